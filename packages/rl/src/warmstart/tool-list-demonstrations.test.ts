import { createBfclBackend } from '@seal/bfcl';
import { createGeneratorRuntime, generateTasks } from '@seal/bfcl-tasks';
import { MockPolicyV1 } from '@seal/engine-ort/test';
import type { Task } from '@seal/spec';
import { describe, expect, it } from 'vitest';
import { missingToolReply, type Demonstration } from './demonstrations';
import {
  buildToolListDemonstrations,
  toolListPairs,
} from './tool-list-demonstrations';

const base = generateTasks({
  seed: 5,
  split: 'warmup',
  count: 12,
  variants: ['multi_turn_base'],
});
const missing = generateTasks({
  seed: 5,
  split: 'warmup',
  count: 4,
  variants: ['multi_turn_miss_param', 'multi_turn_miss_func'],
});
const tokenizer = new MockPolicyV1().tokenizer;
const backend = createBfclBackend({ runtime: createGeneratorRuntime() });

const calledNames = (task: Task): string[] =>
  (task.groundTruth[0] ?? []).map((call) => call.slice(0, call.indexOf('(')));

/** The demonstration's trained (assistant) tokens, decoded. */
const trained = (demo: Demonstration): string =>
  tokenizer.decode(demo.tokenIds.filter((_, i) => demo.assistantMask[i] === 1));

/** The system prompt's tool lines: `name(…): description`, one a line. */
const renderedToolNames = (demo: Demonstration): string[] => {
  const system = demo.text.split('<|im_end|>')[0] ?? '';
  const tools = system.split('\nTools:\n')[1] ?? '';
  return tools
    .split('\n')
    .map((line) => line.slice(0, line.indexOf('(')))
    .filter((name) => name.length > 0);
};

describe('toolListPairs', () => {
  it('should pair each base task whose first turn calls a tool, offered as generated and withheld without the called tools', () => {
    const noCall: Task = {
      ...base[0]!,
      id: 'no-call',
      groundTruth: [[], ...base[0]!.groundTruth.slice(1)],
    };
    const pairs = toolListPairs([...base, ...missing, noCall]);
    expect(pairs.map((pair) => pair.offered.id)).toEqual(
      base.map((task) => `${task.id}#offered`),
    );
    pairs.forEach(({ offered, withheld }, index) => {
      const task = base[index]!;
      const needed = calledNames(task);
      expect(needed.length).toBeGreaterThan(0);
      expect(withheld.id).toBe(`${task.id}#withheld`);
      for (const form of [offered, withheld]) {
        expect(form.turns).toEqual([task.turns[0]]);
        expect(form.category).toBe('multi_turn_base');
        expect(form.backend).toEqual(task.backend);
      }
      expect(offered.tools).toEqual(task.tools);
      expect(offered.groundTruth).toEqual([task.groundTruth[0]]);
      expect(withheld.groundTruth).toEqual([[]]);
      expect(withheld.tools).toEqual(
        task.tools.filter((tool) => !needed.includes(tool.name)),
      );
      expect(withheld.tools.length).toBeLessThan(task.tools.length);
    });
  });
});

describe('buildToolListDemonstrations', () => {
  const demos = buildToolListDemonstrations({
    tasks: base,
    tokenizer,
    backend,
  });

  it('should build offered then withheld per pair, the same prompt but for the tool list', () => {
    expect(demos.map((demo) => demo.taskId)).toEqual(
      base.flatMap((task) => [`${task.id}#offered`, `${task.id}#withheld`]),
    );
    base.forEach((task, index) => {
      const offered = demos[2 * index]!;
      const withheld = demos[2 * index + 1]!;
      const needed = calledNames(task);
      expect(renderedToolNames(offered)).toEqual(
        task.tools.map((tool) => tool.name),
      );
      expect(renderedToolNames(withheld)).toEqual(
        task.tools
          .map((tool) => tool.name)
          .filter((name) => !needed.includes(name)),
      );
      // The user's request is the same in both.
      const request = (demo: Demonstration) =>
        demo.text.split('<|im_start|>user\n')[1]?.split('<|im_end|>')[0];
      expect(request(withheld)).toBe(request(offered));
      expect(request(offered)).toBe(task.turns[0]!.at(-1)!.content);
    });
  });

  it('should train the ground-truth calls when the tool is offered', () => {
    base.forEach((task, index) => {
      const answer = trained(demos[2 * index]!);
      for (const call of task.groundTruth[0]!)
        expect(answer).toContain(`[${call}]`);
    });
  });

  it('should train a plain-text reply and no call when the tool is withheld', () => {
    base.forEach((task, index) => {
      const withheld = demos[2 * index + 1]!;
      const answer = trained(withheld);
      expect(answer).toBe(`${missingToolReply}<|im_end|>`);
      expect(answer).not.toContain('[');
      for (const name of calledNames(task)) {
        expect(answer).not.toContain(name);
        expect(withheld.text).not.toContain(`${name}(`);
      }
    });
  });

  it('should be deterministic for a seed, its overlays differing across seeds', () => {
    const build = (seed: number) =>
      buildToolListDemonstrations({
        tasks: base,
        tokenizer,
        backend,
        seed,
        overlayShare: 0.5,
      });
    const once = build(1);
    expect(build(1)).toEqual(once);
    expect(build(2).map((demo) => demo.text)).not.toEqual(
      once.map((demo) => demo.text),
    );
    // Overlays change the context only: the trained tokens stay the pair's.
    expect(once.map(trained)).toEqual(demos.map(trained));
    // Some pairs are overlaid, some not, and a pair's two forms share the
    // draw: both are overlaid or neither.
    const overlaid = once.map((demo, i) => demo.text !== demos[i]!.text);
    expect(overlaid).toContain(true);
    expect(overlaid).toContain(false);
    for (let i = 0; i < overlaid.length; i += 2)
      expect(overlaid[i + 1]).toBe(overlaid[i]);
  });
});

describe('buildToolListDemonstrations with recovery', () => {
  const demos = buildToolListDemonstrations({
    tasks: base,
    tokenizer,
    backend,
    recovery: true,
  });
  const plain = buildToolListDemonstrations({
    tasks: base,
    tokenizer,
    backend,
  });

  it('should add a recovered withheld turn after each pair, leaving the pair as without it', () => {
    expect(demos.map((demo) => demo.taskId)).toEqual(
      base.flatMap((task) => [
        `${task.id}#offered`,
        `${task.id}#withheld`,
        `${task.id}#withheld:recovered`,
      ]),
    );
    expect(demos.filter((_, i) => i % 3 !== 2)).toEqual(plain);
  });

  it('should show the call of the missing tool and its error as context, and train only the plain-text reply', () => {
    base.forEach((task, index) => {
      const recovered = demos[3 * index + 2]!;
      const firstCall = task.groundTruth[0]![0]!;
      const name = calledNames(task)[0]!;
      // The wrong call and the episode's error are in the conversation …
      expect(recovered.text).toContain(`[${firstCall}]`);
      expect(recovered.text).toContain(`tool '${name}' is not available`);
      // … after the call, before the reply.
      expect(recovered.text.indexOf(`[${firstCall}]`)).toBeLessThan(
        recovered.text.indexOf('is not available'),
      );
      expect(recovered.text.indexOf('is not available')).toBeLessThan(
        recovered.text.lastIndexOf(missingToolReply),
      );
      // … and only the reply is trained.
      expect(trained(recovered)).toBe(`${missingToolReply}<|im_end|>`);
      // The tool is still out of the list.
      expect(renderedToolNames(recovered)).not.toContain(name);
    });
  });
});
