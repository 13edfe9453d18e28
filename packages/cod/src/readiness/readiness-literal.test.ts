import { describe, expect, it } from 'vitest';
import { playFrozenLakeExpertPack } from '../frozen-lake/frozen-lake-demonstrations';
import {
  createFrozenLakeEnvironment,
  frozenLakeMapping,
} from '../frozen-lake/frozen-lake-environment';
import {
  observedDirectionFacts,
  readDirectionFacts,
} from '../frozen-lake/frozen-lake-expert';
import { generateFrozenLakeTasks } from '../frozen-lake/frozen-lake-tasks';
import {
  hintEndDelimiter,
  hintStartDelimiter,
} from '../hints/parse-hint-block';
import { buildPacks } from '../packs/build-packs';
import { measureReadiness, type ReadinessUpdate } from './measure-readiness';
import {
  derivedFacts,
  extractClaims,
  extractTrajectoryFacts,
} from './readiness-facts';

const literal = 'frozen-lake-literal';

/** A hand-built trajectory of the literal setting: right, a bump (which names its move), down into a hole. */
const shownLiteral = [
  'Task:\nFrozen lake: S start, F frozen, H hole, G goal; row 0 top, column 0 left. Reach G, avoid H.',
  'Step 1:\nObservation: Map:\nSFF\nFHF\nFFG\nYou are at (0,0). The goal is at (2,2).\nAction: <answer>Direction 3</answer>',
  'Step 2:\nObservation: Direction 3 = right: you moved from (0,0) to (0,1).\nAction: <answer>Direction 1</answer>',
  'Step 3:\nObservation: Direction 1 = up: your position (0,1) did not change (maybe the edge).\nAction: <answer>Direction 2</answer>',
  'Final observation: Direction 2 = down: you moved from (0,1) to (1,1). It is a hole.',
  'Reward: 0.000\nEnvironment feedback: Failed: fell into a hole at (1,1)',
].join('\n\n');

/** Another pack's trajectory: Direction 3 went left there, Direction 4 up. */
const controlLiteral = [
  'Task:\nFrozen lake: S start, F frozen, H hole, G goal; row 0 top, column 0 left. Reach G, avoid H.',
  'Step 1:\nObservation: Map:\nGFF\nFHF\nFFS\nYou are at (2,2). The goal is at (0,0).\nAction: <answer>Direction 3</answer>',
  'Step 2:\nObservation: Direction 3 = left: you moved from (2,2) to (2,1).\nAction: <answer>Direction 4</answer>',
  'Final observation: Direction 4 = up: you moved from (2,1) to (1,1). It is a hole.',
  'Reward: 0.000\nEnvironment feedback: Failed: fell into a hole at (1,1)',
].join('\n\n');

const block = (lines: string[]) =>
  [hintStartDelimiter, ...lines, hintEndDelimiter].join('\n');

const update = (
  response: string,
  previousHints = 'Hints: null',
): ReadinessUpdate => ({
  environmentId: literal,
  response,
  previousHints,
  shown: shownLiteral,
  control: controlLiteral,
});

describe('the literal FrozenLake setting', () => {
  it('should name the real move in every observation, the edge included, under its own environment id', () => {
    const tasks = generateFrozenLakeTasks({ seed: 3, count: 1 });
    const environment = createFrozenLakeEnvironment({
      format: 'compact',
      observations: 'literal',
    });
    expect(environment.environmentId).toBe('frozen-lake-literal');
    expect(createFrozenLakeEnvironment().environmentId).toBe(
      'frozen-lake-obscure',
    );
    const mapping = frozenLakeMapping(77);
    const episode = environment.startSolve({
      task: tasks[0]!,
      packSeed: 77,
      episodeId: 'e',
    });
    episode.reset();
    const seen: string[] = [];
    for (const k of [1, 2, 3, 4, 1, 2, 3, 4]) {
      if (episode.done) break;
      const step = episode.step(`<answer>Direction ${k}</answer>`);
      for (const message of step.observation) seen.push(message.content);
    }
    expect(seen.length).toBeGreaterThan(0);
    for (const text of seen) {
      const match = /^Direction ([1-4]) = (up|down|left|right): /.exec(text);
      expect({ text, named: match !== null }).toEqual({ text, named: true });
      expect(mapping[Number(match![1]) - 1]).toBe(match![2]);
    }
  });

  it('should read the mapping from literal observations (a bump too), and not from hint bullets', () => {
    expect([...observedDirectionFacts(shownLiteral)].sort()).toEqual([
      [1, 'up'],
      [2, 'down'],
      [3, 'right'],
      [4, 'left'],
    ]);
    // A hint bullet has no colon: it is a note, not an observation.
    expect(observedDirectionFacts('- Direction 1 = up').size).toBe(0);
    expect(readDirectionFacts('- Direction 1 = up').get(1)).toBe('up');
  });

  it('should give the facts of a literal trajectory: moves, positions and the named mapping', () => {
    const facts = extractTrajectoryFacts({
      environmentId: literal,
      text: shownLiteral,
    });
    expect(facts).toEqual(
      new Set([
        'move:3:0,0:0,1',
        'position:3:0,0',
        'position:1:0,1',
        'move:2:0,1:1,1',
        'position:2:0,1',
        'mapping:1:up',
        'mapping:2:down',
        'mapping:3:right',
        'mapping:4:left',
      ]),
    );
    expect(
      extractClaims({
        environmentId: literal,
        text: 'Direction 3 = right: you moved from (0,0) to (0,1).',
      }),
    ).toEqual([
      {
        kind: 'move',
        key: '3:0,0:0,1',
        text: 'Direction 3 = right: you moved from (0,0) to (0,1).',
      },
    ]);
  });
});

describe('measureReadiness on the literal setting', () => {
  it('should count a hint block that copies the named moves as restated, far above chance', () => {
    const response = block([
      '- Direction 1 = up',
      '- Direction 2 = down',
      '- Direction 3 = right',
    ]);
    const result = measureReadiness({ updates: [update(response)] });
    expect(result.measured).toMatchObject({
      restated: 3,
      claims: 3,
      fraction: 1,
    });
    // The control trajectory named Direction 3 = left and Direction 4 = up: none of these.
    expect(result.chance).toMatchObject({ restated: 0, claims: 3 });
    expect(result.ready).toBe(true);
  });

  it('should count moves swapped between directions as unrestated', () => {
    const response = block([
      '- Direction 1 = down',
      '- Direction 2 = up',
      '- Direction 3 = left',
    ]);
    const result = measureReadiness({ updates: [update(response)] });
    expect(result.measured).toMatchObject({ restated: 0, claims: 3 });
    expect(result.chance).toMatchObject({ restated: 1, claims: 3 });
    expect(result.ready).toBe(false);
  });

  it('should leave out what the previous hints state and what they and the trajectory give together', () => {
    // Notes: 4 = left. Seen: 3 = right. Together with the notes' completion nothing new is derived
    // here, so the carried bullet is left out and the copied one counted.
    const response = block(['- Direction 3 = right', '- Direction 4 = left']);
    const result = measureReadiness({
      updates: [update(response, 'Hints: - Direction 4 = left')],
    });
    expect(result.carried).toBe(1);
    expect(result.measured).toMatchObject({ restated: 1, claims: 1 });
    // With two noted and one seen, the fourth is an inference (derived), not a copy.
    const partial = [
      'Task:\nFrozen lake',
      'Step 1:\nObservation: Map:\nSF\nFG\nYou are at (0,0). The goal is at (1,1).\nAction: <answer>Direction 3</answer>',
      'Final observation: Direction 3 = right: you moved from (0,0) to (0,1).',
    ].join('\n\n');
    const derived = derivedFacts({
      environmentId: literal,
      previousHints: 'Hints: - Direction 1 = up\n- Direction 2 = down',
      shown: partial,
    });
    expect(derived.has('mapping:4:left')).toBe(true);
    expect(derived.has('mapping:3:right')).toBe(false);
  });

  it('should read the literal demonstrator, which writes the hint block alone, as ready, far above chance', async () => {
    const tasks = generateFrozenLakeTasks({ seed: 9, count: 16 });
    const packs = buildPacks({
      tasks,
      taskId: (t) => t.taskId,
      tasksetId: (t) => t.tasksetId,
      packSize: 4,
      seed: 21,
    }).slice(0, 3);
    const perPack = await Promise.all(
      packs.map(async (pack) =>
        (
          await playFrozenLakeExpertPack({
            pack,
            settings: { randomMoveRate: 0.25, observations: 'literal' },
          })
        )
          .filter((c) => c.kind === 'update')
          .map((c) => {
            const body = c.messages.find((m) => m.role === 'user')!.content;
            const cut = body.lastIndexOf('Task:');
            const response = c.messages.find(
              (m) => m.role === 'assistant',
            )!.content;
            return {
              previousHints: body.slice(0, cut),
              shown: body.slice(cut),
              response,
            };
          }),
      ),
    );
    // The block alone: no reasoning line before it.
    for (const list of perPack)
      for (const u of list)
        expect(u.response.startsWith(hintStartDelimiter)).toBe(true);
    const updates: ReadinessUpdate[] = perPack.flatMap((list, pack) =>
      list.map((u, index) => ({
        environmentId: literal,
        ...u,
        control: perPack[(pack + 1) % perPack.length]![index]!.shown,
      })),
    );
    const result = measureReadiness({ updates });
    expect(result.measured.claims).toBeGreaterThan(3);
    expect(result.measured.fraction).toBe(1);
    expect(result.ready).toBe(true);
    expect(result.chance!.fraction!).toBeLessThan(0.5);
  });
});
