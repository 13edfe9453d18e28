import { describe, expect, it } from 'vitest';
import { SerialQueue } from './serial-queue';

/** A task that records when it starts and ends, and settles when released. */
function gatedTask(log: string[], name: string, outcome: 'resolve' | 'reject') {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const task = async (): Promise<string> => {
    log.push(`${name} start`);
    await gate;
    log.push(`${name} end`);
    if (outcome === 'reject') throw new Error(`${name} failed`);
    return name;
  };
  return { task, release };
}

/** Tasks a and b handed to one queue in that order, b resolving. */
function queuedPair(outcomeOfA: 'resolve' | 'reject') {
  const queue = new SerialQueue();
  const log: string[] = [];
  const a = gatedTask(log, 'a', outcomeOfA);
  const b = gatedTask(log, 'b', 'resolve');
  return { log, a, b, first: queue.run(a.task), second: queue.run(b.task) };
}

describe('SerialQueue', () => {
  it('should start a task only after the one before it has settled, in call order', async () => {
    const { log, a, b, first, second } = queuedPair('resolve');
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(log).toEqual(['a start']);
    b.release();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(log).toEqual(['a start']);
    a.release();
    await expect(first).resolves.toBe('a');
    await expect(second).resolves.toBe('b');
    expect(log).toEqual(['a start', 'a end', 'b start', 'b end']);
  });

  it('should reject only the failed task and run the next one', async () => {
    const { log, a, b, first, second } = queuedPair('reject');
    a.release();
    b.release();
    await expect(first).rejects.toThrow('a failed');
    await expect(second).resolves.toBe('b');
    expect(log).toEqual(['a start', 'a end', 'b start', 'b end']);
  });
});
