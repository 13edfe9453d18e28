import { describe, expect, it } from 'vitest';
import { buildPacks } from '../packs/build-packs';
import {
  createFrozenLakeEnvironment,
  frozenLakeMapping,
  parseFrozenLakeAnswer,
} from './frozen-lake-environment';
import {
  generateFrozenLakeTasks,
  shortestFrozenLakePath,
  type FrozenLakeTask,
} from './frozen-lake-tasks';

const answer = (k: number) => `<answer>Direction ${k}</answer>`;

/** A hand-made map: S at (0,0), a hole at (1,0), G at (1,1). */
const task: FrozenLakeTask = {
  taskId: 't',
  tasksetId: 'x',
  rows: ['SF', 'HG'],
  shortestPath: 2,
};

function directionOf(packSeed: number, move: string): number {
  return frozenLakeMapping(packSeed).indexOf(move as never) + 1;
}

describe('generateFrozenLakeTasks', () => {
  it('should draw solvable maps of the requested size, the same for the same seed', () => {
    const maps = generateFrozenLakeTasks({ seed: 5, count: 20 });
    expect(generateFrozenLakeTasks({ seed: 5, count: 20 })).toEqual(maps);
    for (const map of maps) {
      expect(map.rows.length).toBeGreaterThanOrEqual(4);
      expect(map.rows.length).toBeLessThanOrEqual(5);
      expect(map.rows.join('').split('S')).toHaveLength(2);
      expect(map.rows.join('').split('G')).toHaveLength(2);
      expect(map.shortestPath).toBe(shortestFrozenLakePath(map.rows));
      expect(map.shortestPath).toBeGreaterThanOrEqual(2);
      expect(map.shortestPath).toBeLessThanOrEqual(6);
    }
    expect(new Set(maps.map((m) => m.rows.join('/'))).size).toBeGreaterThan(15);
  });

  it('should draw larger maps for the harder evaluation', () => {
    const maps = generateFrozenLakeTasks({
      seed: 1,
      count: 5,
      minSize: 6,
      maxSize: 7,
    });
    expect(
      maps.every((m) => m.rows.length >= 6 && m.rows[0]!.length >= 6),
    ).toBe(true);
    expect(maps[0]!.tasksetId).toBe('frozen-lake-6x7');
  });
});

describe('frozenLakeMapping', () => {
  it('should give the same permutation for the same pack seed and re-draw it per pack', () => {
    expect(frozenLakeMapping(42)).toEqual(frozenLakeMapping(42));
    expect([...frozenLakeMapping(42)].sort()).toEqual([
      'down',
      'left',
      'right',
      'up',
    ]);
    const packs = buildPacks({
      tasks: generateFrozenLakeTasks({ seed: 1, count: 96 }),
      taskId: (t) => t.taskId,
      tasksetId: (t) => t.tasksetId,
      packSize: 4,
      seed: 9,
    });
    const mappings = packs.map((p) => frozenLakeMapping(p.packSeed).join(','));
    expect(mappings[0]).not.toBe(mappings[1]);
    // 24 packs over 24 permutations: far more than a handful distinct.
    expect(new Set(mappings).size).toBeGreaterThanOrEqual(10);
  });
});

describe('createFrozenLakeEnvironment', () => {
  const environment = createFrozenLakeEnvironment();

  it('should move by the pack mapping, report positions and reward reaching the goal', async () => {
    const packSeed = 7;
    const episode = environment.startSolve({ task, packSeed, episodeId: 'e' });
    const [system, first] = episode.reset();
    expect(system!.content).toContain(
      'Direction 1, Direction 2, Direction 3 and Direction 4',
    );
    expect(first!.content).toBe(
      'Map:\nSF\nHG\nYou are at (0,0). The goal is at (1,1).',
    );
    const up = directionOf(packSeed, 'up');
    expect(episode.step(answer(up)).observation[0]!.content).toBe(
      `Direction ${up}: your position (0,0) did not change (maybe the edge).`,
    );
    const right = directionOf(packSeed, 'right');
    expect(episode.step(answer(right))).toEqual({
      observation: [
        {
          role: 'user',
          content: `Direction ${right}: you moved from (0,0) to (0,1).`,
        },
      ],
      done: false,
    });
    const step = episode.step(answer(directionOf(packSeed, 'down')));
    expect(step.done).toBe(true);
    expect(await episode.finish()).toEqual({
      outcome: 1,
      success: true,
      feedback: 'Success! Reached the goal',
      stepsUsed: 3,
      maxSteps: 8,
    });
  });

  it('should end with 0 in a hole', async () => {
    const episode = environment.startSolve({
      task,
      packSeed: 7,
      episodeId: 'e',
    });
    episode.reset();
    expect(episode.step(answer(directionOf(7, 'down'))).done).toBe(true);
    expect(await episode.finish()).toMatchObject({
      outcome: 0,
      success: false,
      feedback: 'Failed: fell into a hole at (1,0)',
    });
  });

  it('should end with 0 on a malformed or out-of-range answer', async () => {
    for (const response of [
      'Direction 2',
      '<answer>Direction 5</answer>',
      '<answer>Direction 1</answer> and more',
    ]) {
      const episode = environment.startSolve({
        task,
        packSeed: 7,
        episodeId: 'e',
      });
      episode.reset();
      expect(episode.step(response).done).toBe(true);
      expect(await episode.finish()).toMatchObject({
        outcome: 0,
        stepsUsed: 1,
      });
      expect((await episode.finish()).feedback).toMatch(
        /^Failed: invalid action format/,
      );
    }
  });

  it('should accept a short reasoning before the answer in the compact format only', async () => {
    const compact = createFrozenLakeEnvironment({ format: 'compact' });
    const right = directionOf(7, 'right');
    const episode = compact.startSolve({ task, packSeed: 7, episodeId: 'e' });
    expect(episode.reset()[0]!.content).toContain(
      'End your reply with <answer>Direction k</answer>.',
    );
    expect(
      episode.step(
        `Toward the goal: right, Direction ${right}\n${answer(right)}`,
      ),
    ).toEqual({
      observation: [
        {
          role: 'user',
          content: `Direction ${right}: you moved from (0,0) to (0,1).`,
        },
      ],
      done: false,
    });
    // The paper format still wants the answer alone.
    const paper = environment.startSolve({ task, packSeed: 7, episodeId: 'e' });
    paper.reset();
    expect(
      paper.step(`Toward the goal: right, Direction ${right}\n${answer(right)}`)
        .done,
    ).toBe(true);
    expect((await paper.finish()).feedback).toMatch(
      /^Failed: invalid action format; reply with exactly/,
    );
    const bad = compact.startSolve({ task, packSeed: 7, episodeId: 'e' });
    bad.reset();
    expect(bad.step(`${answer(right)} then more`).done).toBe(true);
    expect((await bad.finish()).feedback).toBe(
      'Failed: invalid action format; end your reply with <answer>Direction k</answer>, k from 1 to 4',
    );
  });

  it('should end when the moves run out', async () => {
    const small = createFrozenLakeEnvironment({ maxSteps: 2 });
    const episode = small.startSolve({ task, packSeed: 7, episodeId: 'e' });
    episode.reset();
    const up = answer(directionOf(7, 'up'));
    expect(episode.step(up).done).toBe(false);
    expect(episode.step(up).done).toBe(true);
    expect(await episode.finish()).toMatchObject({
      outcome: 0,
      stepsUsed: 2,
      maxSteps: 2,
      feedback: 'Failed: ran out of moves (2/2) at (0,0), the goal is at (1,1)',
    });
  });

  it('should state the regularity for records', () => {
    expect(environment.describeRegularity(7)).toBe(
      frozenLakeMapping(7)
        .map((d, k) => `Direction ${k + 1} = ${d}`)
        .join(', '),
    );
  });
});

describe('parseFrozenLakeAnswer', () => {
  it('should read an exact answer in both formats', () => {
    for (const format of ['paper', 'compact'] as const) {
      expect(
        parseFrozenLakeAnswer({
          response: ' <answer>Direction 3</answer>\n',
          format,
        }),
      ).toBe(3);
      expect(
        parseFrozenLakeAnswer({
          response: '<answer> Direction 2 </answer>',
          format,
        }),
      ).toBe(2);
    }
  });

  it('should accept text before the answer in the compact format, the last tag counting', () => {
    expect(
      parseFrozenLakeAnswer({
        response:
          'Toward the goal: up, Direction 4\n<answer>Direction 4</answer>',
        format: 'compact',
      }),
    ).toBe(4);
    expect(
      parseFrozenLakeAnswer({
        response:
          'not <answer>Direction 1</answer> but\n<answer>Direction 2</answer> ',
        format: 'compact',
      }),
    ).toBe(2);
    expect(
      parseFrozenLakeAnswer({
        response:
          'Toward the goal: up, Direction 4\n<answer>Direction 4</answer>',
      }),
    ).toBeUndefined();
  });

  it('should refuse text after the answer, a missing tag and an out-of-range number in both formats', () => {
    for (const format of ['paper', 'compact'] as const) {
      for (const response of [
        '<answer>Direction 1</answer> and more',
        'Direction 2',
        'so <answer>Direction 5</answer>',
        '<answer>Direction 1</answer>\n<answer>',
      ]) {
        expect(parseFrozenLakeAnswer({ response, format })).toBeUndefined();
      }
    }
  });
});
