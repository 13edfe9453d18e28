import { describe, expect, it } from 'vitest';
import { buildPacks, derivePackSeed } from './build-packs';

type T = { id: string; set: string };
const tasks = (set: string, n: number): T[] =>
  Array.from({ length: n }, (_, i) => ({ id: `${set}${i}`, set }));
const base = { taskId: (t: T) => t.id, tasksetId: (t: T) => t.set, seed: 3 };
const ids = (packs: { tasks: T[] }[]) =>
  packs.map((p) => p.tasks.map((t) => t.id));

describe('buildPacks', () => {
  it('should make packs of different tasks from one taskset, in order', () => {
    const packs = buildPacks({
      ...base,
      tasks: [...tasks('a', 8), ...tasks('b', 4)],
      packSize: 4,
    });
    expect(ids(packs)).toEqual([
      ['a0', 'a1', 'a2', 'a3'],
      ['a4', 'a5', 'a6', 'a7'],
      ['b0', 'b1', 'b2', 'b3'],
    ]);
    expect(packs.map((p) => p.tasksetId)).toEqual(['a', 'a', 'b']);
    expect(new Set(packs.map((p) => p.packId)).size).toBe(3);
  });

  it('should pad a taskset remainder cyclically, or drop it', () => {
    const input = [...tasks('a', 6)];
    expect(ids(buildPacks({ ...base, tasks: input, packSize: 4 }))).toEqual([
      ['a0', 'a1', 'a2', 'a3'],
      ['a4', 'a5', 'a0', 'a1'],
    ]);
    expect(
      ids(buildPacks({ ...base, tasks: input, packSize: 4, padding: 'drop' })),
    ).toEqual([['a0', 'a1', 'a2', 'a3']]);
  });

  it('should never mix tasksets and skip a taskset smaller than one pack', () => {
    const packs = buildPacks({
      ...base,
      tasks: [...tasks('a', 2), ...tasks('b', 3)],
      packSize: 3,
    });
    expect(ids(packs)).toEqual([['b0', 'b1', 'b2']]);
  });

  it('should repeat the first task of each cod pack for ralph_sample, keeping its seed', () => {
    const input = tasks('a', 8);
    const cod = buildPacks({ ...base, tasks: input, packSize: 4 });
    const ralph = buildPacks({
      ...base,
      tasks: input,
      packSize: 4,
      strategy: 'ralph_sample',
    });
    expect(ids(ralph)).toEqual([
      ['a0', 'a0', 'a0', 'a0'],
      ['a4', 'a4', 'a4', 'a4'],
    ]);
    expect(ralph.map((p) => p.packSeed)).toEqual(cod.map((p) => p.packSeed));
  });

  it('should make one repeated pack per task for ralph_full, without dropping or padding', () => {
    const packs = buildPacks({
      ...base,
      tasks: [...tasks('a', 3), ...tasks('b', 1)],
      packSize: 2,
      strategy: 'ralph_full',
    });
    expect(ids(packs)).toEqual([
      ['a0', 'a0'],
      ['a1', 'a1'],
      ['a2', 'a2'],
      ['b0', 'b0'],
    ]);
  });

  it('should refuse a pack size below 2 by code', () => {
    for (const packSize of [1, 0, 2.5]) {
      expect(() =>
        buildPacks({ ...base, tasks: tasks('a', 8), packSize }),
      ).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    }
  });

  it('should refuse a taskset too small for one pack, naming the largest', () => {
    let error: unknown;
    try {
      buildPacks({
        ...base,
        tasks: [...tasks('a', 3), ...tasks('b', 2)],
        packSize: 4,
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { largestTaskset: 'a', largestSize: 3, packSize: 4 },
    });
    expect(() =>
      buildPacks({ ...base, tasks: [], packSize: 4, strategy: 'ralph_full' }),
    ).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });
});

describe('derivePackSeed', () => {
  it('should give the same seed for the same pack and different seeds for different packs', () => {
    expect(derivePackSeed({ seed: 1, packIndex: 4 })).toBe(
      derivePackSeed({ seed: 1, packIndex: 4 }),
    );
    const seeds = new Set(
      Array.from({ length: 100 }, (_, packIndex) =>
        derivePackSeed({ seed: 1, packIndex }),
      ),
    );
    expect(seeds.size).toBe(100);
    expect(derivePackSeed({ seed: 2, packIndex: 4 })).not.toBe(
      derivePackSeed({ seed: 1, packIndex: 4 }),
    );
  });
});
