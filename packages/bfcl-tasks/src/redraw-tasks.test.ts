import { describe, expect, it } from 'vitest';
import { generateTasks } from './generate-tasks';
import { createTaskRedrawer, isGeneratedTaskId } from './redraw-tasks';

describe('createTaskRedrawer', () => {
  it('should re-draw generated tasks from their ids, the same task byte for byte', () => {
    const drawn = [
      ...generateTasks({ seed: 3, split: 'train', count: 12 }),
      ...generateTasks({ seed: 3, split: 'warmup', count: 3 }),
    ];
    const redraw = createTaskRedrawer({ seed: 3 });
    // Late ids first: the pool grows once, and earlier ids come from it.
    for (const task of [...drawn].reverse()) {
      expect(isGeneratedTaskId(task.id)).toBe(true);
      expect(redraw(task.id)).toEqual({ success: true, task });
    }
  });

  it('should say why an id cannot be re-drawn', () => {
    const redraw = createTaskRedrawer({ seed: 3 });
    expect(isGeneratedTaskId('multi_turn_base_12')).toBe(false);
    expect(redraw('multi_turn_base_12')).toEqual({
      success: false,
      reason: 'multi_turn_base_12 is not a generated task id',
    });
    expect(redraw('gen_nowhere_multi_turn_base_0')).toEqual({
      success: false,
      reason: 'the generator has no split nowhere',
    });
    expect(redraw('gen_warmup_multi_turn_miss_func_0')).toEqual({
      success: false,
      reason: 'split warmup has no multi_turn_miss_func tasks',
    });
    // Each seed re-draws its own pool.
    const other = generateTasks({ seed: 4, split: 'train', count: 4 })[3]!;
    expect(createTaskRedrawer({ seed: 4 })(other.id)).toEqual({
      success: true,
      task: other,
    });
  });
});
