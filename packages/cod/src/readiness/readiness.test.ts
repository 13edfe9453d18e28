import { MockPolicyV1 } from '@seal/engine-ort/test';
import {
  SealError,
  type PackRunRecord,
  type PackRunSolve,
  type PolicyV1GenerateOptions,
  type PolicyV1GenerateResult,
} from '@seal/spec';
import { describe, expect, it } from 'vitest';
import {
  createFrozenLakeEnvironment,
  frozenLakeMapping,
} from '../frozen-lake/frozen-lake-environment';
import { playFrozenLakeExpertPack } from '../frozen-lake/frozen-lake-demonstrations';
import { describeObservedMoves } from '../frozen-lake/frozen-lake-expert';
import {
  generateFrozenLakeTasks,
  type FrozenLakeTask,
} from '../frozen-lake/frozen-lake-tasks';
import {
  hintEndDelimiter,
  hintStartDelimiter,
} from '../hints/parse-hint-block';
import { serializeTrajectory } from '../hints/serialize-trajectory';
import { buildPacks } from '../packs/build-packs';
import { runPackRuns } from '../rollout/run-pack-runs';
import {
  measureReadiness,
  readinessUpdatesFromPackRuns,
  solveTrajectoryFromRecord,
  type ReadinessUpdate,
} from './measure-readiness';
import {
  derivedFacts,
  extractClaims,
  extractTrajectoryFacts,
} from './readiness-facts';
import { readinessWilsonInterval } from './wilson-interval';

const frozen = 'frozen-lake-obscure';
const bfcl = 'bfcl-aliases';

/** A hand-built FrozenLake trajectory as the update prompt shows it: right, a bump, down into a hole. */
const shownFrozen = [
  'Task:\nFrozen lake: S start, F frozen, H hole, G goal; row 0 top, column 0 left. Reach G, avoid H.',
  'Step 1:\nObservation: Map:\nSFF\nFHF\nFFG\nYou are at (0,0). The goal is at (2,2).\nAction: <answer>Direction 3</answer>',
  'Step 2:\nObservation: Direction 3: you moved from (0,0) to (0,1).\nAction: <answer>Direction 1</answer>',
  'Step 3:\nObservation: Direction 1: your position (0,1) did not change (maybe the edge).\nAction: <answer>Direction 2</answer>',
  'Final observation: Direction 2: you moved from (0,1) to (1,1). It is a hole.',
  'Reward: 0.000\nEnvironment feedback: Failed: fell into a hole at (1,1)',
].join('\n\n');

/** Another episode (another pack): left along row 2, then up. */
const controlFrozen = [
  'Task:\nFrozen lake: S start, F frozen, H hole, G goal; row 0 top, column 0 left. Reach G, avoid H.',
  'Step 1:\nObservation: Map:\nGFF\nFHF\nFFS\nYou are at (2,2). The goal is at (0,0).\nAction: <answer>Direction 3</answer>',
  'Step 2:\nObservation: Direction 3: you moved from (2,2) to (2,1).\nAction: <answer>Direction 4</answer>',
  'Final observation: Direction 4: you moved from (2,1) to (1,1). It is a hole.',
  'Reward: 0.000\nEnvironment feedback: Failed: fell into a hole at (1,1)',
].join('\n\n');

const block = (lines: string[]) =>
  [hintStartDelimiter, ...lines, hintEndDelimiter].join('\n');

describe('extractTrajectoryFacts (FrozenLake-Obscure)', () => {
  it('should read moves, the positions each direction was taken at, and the mapping the moves reveal', () => {
    expect(
      [
        ...extractTrajectoryFacts({ environmentId: frozen, text: shownFrozen }),
      ].sort(),
    ).toEqual(
      [
        'move:3:0,0:0,1',
        'move:2:0,1:1,1',
        'position:3:0,0',
        'position:2:0,1',
        'position:1:0,1',
        'mapping:3:right',
        'mapping:2:down',
      ].sort(),
    );
  });

  it('should complete the mapping when three directions are revealed', () => {
    const text = [
      'Direction 1: you moved from (1,1) to (0,1).',
      'Direction 2: you moved from (0,1) to (0,2).',
      'Direction 3: you moved from (0,2) to (1,2).',
    ].join('\n');
    const facts = extractTrajectoryFacts({ environmentId: frozen, text });
    expect(facts.has('mapping:4:left')).toBe(true);
  });

  it('should find no facts in a trajectory without moves', () => {
    const text =
      'Task:\nFrozen lake\n\nStep 1:\nObservation: Map:\nSG\nYou are at (0,0). The goal is at (0,1).\nAction: nonsense\n\nReward: 0.000\nEnvironment feedback: Failed: invalid action format';
    expect(extractTrajectoryFacts({ environmentId: frozen, text }).size).toBe(
      0,
    );
  });
});

describe('derivedFacts', () => {
  it('should give the mapping entries that only notes and moves together reveal, and none for BFCL', () => {
    expect([
      ...derivedFacts({
        environmentId: frozen,
        previousHints: 'Hints: - Direction 1 = up',
        shown: shownFrozen,
      }),
    ]).toEqual(['mapping:1:up', 'mapping:4:left']);
    expect(
      derivedFacts({ environmentId: bfcl, previousHints: 'x', shown: 'y' })
        .size,
    ).toBe(0);
  });
});

describe('extractClaims (FrozenLake-Obscure)', () => {
  it('should read one claim per Direction piece: two positions a move, one a position, `= move` a mapping', () => {
    const text = [
      'Direction 3: (0,0) to (0,1) is right',
      'Direction 1: (0,1) hit the edge, unknown',
      hintStartDelimiter,
      '- Direction 3 = right',
      'Direction 1 = up, Direction 2 = left',
      '- No direction known yet.',
      hintEndDelimiter,
      'No known way: try unknown Direction 4',
    ].join('\n');
    expect(
      extractClaims({ environmentId: frozen, text }).map((c) => [
        c.kind,
        c.key,
      ]),
    ).toEqual([
      ['move', '3:0,0:0,1'],
      ['position', '1:0,1'],
      ['mapping', '3:right'],
      ['mapping', '1:up'],
      ['mapping', '2:left'],
    ]);
  });
});

describe('extractTrajectoryFacts and extractClaims (BFCL aliases)', () => {
  const shown = [
    "Task:\nCall tools by writing only a Python list of calls, e.g. [tool(arg='value')].\nTools:\ncd(folder: str, recursive?: bool = false): Change directory.",
    "Step 1:\nObservation: Go to the folder docs.\nAction: [cd(folder='docs')]",
    "Step 2:\nObservation: Error: NameError: name 'cd' is not defined. The functions of this deployment are: api_cd, api_ls\nAction: [api_cd(folder='docs', depth=2)]",
    "Step 3:\nObservation: Error: TypeError: api_cd() got an unexpected keyword argument 'folder'. Its arguments here: FOLDER\nAction: [api_cd(FOLDER='docs')]",
    "Final observation: [{'role': 'tool', 'name': \"api_cd(FOLDER='docs')\", 'content': \"{'current_working_directory': 'docs'}\"}]",
    'Reward: 1.000\nEnvironment feedback: Success! Every turn passed the state and result checks',
  ].join('\n\n');

  it('should read tool names (calls and the deployment list), argument names and literal values', () => {
    const facts = extractTrajectoryFacts({ environmentId: bfcl, text: shown });
    for (const fact of [
      'tool:cd',
      'tool:api_cd',
      'tool:api_ls',
      'tool:tool',
      'argument:folder',
      'argument:FOLDER',
      'argument:depth',
      'argument:recursive',
      'value:docs',
      'value:2',
    ])
      expect(facts.has(fact)).toBe(true);
    expect(facts.has('tool:api_mkdir')).toBe(false);
    expect(facts.has('value:notes')).toBe(false);
  });

  it('should read the same kinds from hint lines, numbers normalised', () => {
    const text = block([
      "- Call tools as api_<name>, e.g. api_cd(FOLDER='docs')",
      '- api_mkdir(DIR_NAME="notes", depth=2.0)',
    ]);
    expect(
      extractClaims({ environmentId: bfcl, text }).map(
        (c) => `${c.kind}:${c.key}`,
      ),
    ).toEqual([
      'tool:api_cd',
      'tool:api_mkdir',
      'argument:FOLDER',
      'argument:DIR_NAME',
      'argument:depth',
      'value:docs',
      'value:notes',
      'value:2',
    ]);
    const result = measureReadiness({
      updates: [
        {
          environmentId: bfcl,
          response: text,
          previousHints: 'Hints: null',
          shown,
        },
      ],
    });
    // Restated: api_cd, FOLDER, depth, docs, 2; not: api_mkdir, DIR_NAME, notes.
    expect(result.measured).toMatchObject({ restated: 5, claims: 8 });
    expect(result.byKind.tool).toMatchObject({ claims: 2, restated: 1 });
  });
});

describe('measureReadiness', () => {
  const update = (response: string, control?: string): ReadinessUpdate => ({
    environmentId: frozen,
    response,
    previousHints: 'Hints: null',
    shown: shownFrozen,
    ...(control === undefined ? {} : { control }),
  });

  it('should give 100% and ready for a response that restates every move', () => {
    const response = [
      ...describeObservedMoves(shownFrozen),
      block(['- Direction 3 = right', '- Direction 2 = down']),
    ].join('\n');
    const result = measureReadiness({ updates: [update(response)] });
    expect(result.measured).toMatchObject({
      restated: 5,
      claims: 5,
      fraction: 1,
    });
    expect(result.ready).toBe(true);
    expect(result.updatesWithClaims).toBe(1);
  });

  it('should give 0% and not ready for a response whose moves did not happen', () => {
    const response = [
      'Direction 1: (3,2) to (2,2) is up',
      'Direction 4: (0,0) to (1,0) is down',
      block(['- Direction 1 = up, Direction 2 = left']),
    ].join('\n');
    const result = measureReadiness({ updates: [update(response)] });
    expect(result.measured).toMatchObject({
      restated: 0,
      claims: 4,
      fraction: 0,
    });
    expect(result.ready).toBe(false);
  });

  it('should measure chance as the same claims against the control trajectory', () => {
    // Claims: move 3 (0,0)→(0,1) (shown only), Direction 3 = right (shown; the control's
    // Direction 3 went left), position 4 at (2,1) (control only), Direction 2 = down (shown only),
    // and a move in neither.
    const response = [
      'Direction 3: (0,0) to (0,1) is right',
      'Direction 4: (2,1) tried',
      'Direction 1: (5,5) to (5,6) is right',
      block(['- Direction 3 = right', '- Direction 2 = down']),
    ].join('\n');
    const result = measureReadiness({
      updates: [update(response, controlFrozen)],
    });
    expect(result.measured).toMatchObject({
      restated: 3,
      claims: 5,
      fraction: 0.6,
    });
    expect(result.chance).toMatchObject({
      restated: 1,
      claims: 5,
      fraction: 0.2,
    });
    expect(result.measured.interval).toEqual(
      readinessWilsonInterval({ successes: 3, total: 5 }),
    );
    expect(result.byKind.position).toEqual({
      claims: 1,
      restated: 0,
      chanceClaims: 1,
      chanceRestated: 1,
    });
    expect(result.warnings).toEqual([]);
  });

  it('should leave out claims the previous hints already state', () => {
    const response = block(['- Direction 3 = right', '- Direction 4 = up']);
    const result = measureReadiness({
      updates: [
        { ...update(response), previousHints: 'Hints: - Direction 4 = up' },
      ],
    });
    expect(result.carried).toBe(1);
    expect(result.measured).toMatchObject({ restated: 1, claims: 1 });
  });

  it('should leave out a direction completed from the previous hints and the trajectory together', () => {
    const response = block([
      '- Direction 1 = up',
      '- Direction 2 = down',
      '- Direction 3 = right',
      '- Direction 4 = left',
    ]);
    // The notes state 1 = up and 4 = left; the trajectory reveals 3 = right and 2 = down.
    const notes = measureReadiness({
      updates: [
        {
          ...update(response),
          previousHints: 'Hints: - Direction 1 = up\n- Direction 4 = left',
        },
      ],
    });
    expect(notes.carried).toBe(2);
    expect(notes.measured).toMatchObject({ restated: 2, claims: 2 });
    // One note (1 = up) and two seen moves give the fourth, 4 = left: derived, not read off.
    const completed = measureReadiness({
      updates: [
        { ...update(response), previousHints: 'Hints: - Direction 1 = up' },
      ],
    });
    expect(completed.carried).toBe(2);
    expect(completed.measured).toMatchObject({ restated: 2, claims: 2 });
  });

  it('should give null fractions and warnings, never NaN, for no updates, responses without facts, or a trajectory without facts', () => {
    const none = measureReadiness({ updates: [] });
    expect(none.measured).toEqual({
      restated: 0,
      claims: 0,
      fraction: null,
      interval: [0, 1],
    });
    expect(none.chance).toBeNull();
    expect(none.ready).toBe(false);
    expect(none.warnings).toEqual(['no update-context episodes to read']);

    const silent = measureReadiness({
      updates: [update(''), update(block(['- No direction known yet.']))],
    });
    expect(silent.measured.fraction).toBeNull();
    expect(silent.ready).toBe(false);
    expect(silent.warnings[0]).toMatch(/none of the 2 update responses/);
    expect(silent.warnings[1]).toMatch(/chance is not measured/);

    const factless = measureReadiness({
      updates: [
        {
          ...update('Direction 1: (0,0) to (0,1) is right', 'Map:\nSG'),
          shown: 'Map:\nSG\nYou are at (0,0).',
        },
      ],
    });
    expect(factless.measured).toMatchObject({
      restated: 0,
      claims: 1,
      fraction: 0,
    });
    expect(factless.chance).toMatchObject({
      restated: 0,
      claims: 1,
      fraction: 0,
    });
    expect(Number.isNaN(factless.measured.interval[0])).toBe(false);
  });

  it('should refuse an environment it has no facts for, and a bar outside [0, 1]', () => {
    expect(() =>
      measureReadiness({
        updates: [{ ...update('x'), environmentId: 'chess' }],
      }),
    ).toThrow(SealError);
    expect(() => measureReadiness({ updates: [], bar: 1.5 })).toThrow(
      /fraction in \[0, 1\]/,
    );
  });
});

describe('readinessWilsonInterval', () => {
  it('should give the Wilson 95% interval', () => {
    const [low, high] = readinessWilsonInterval({ successes: 8, total: 10 });
    expect(low).toBeCloseTo(0.4902, 3);
    expect(high).toBeCloseTo(0.9433, 3);
    expect(readinessWilsonInterval({ successes: 0, total: 0 })).toEqual([0, 1]);
  });
});

/** Records of pack runs on a real FrozenLake environment, driven by a scripted policy. */
async function scriptedPackRuns(
  write: (updatePrompt: string) => string,
): Promise<{ records: PackRunRecord[]; updatePrompts: string[] }> {
  const maps: [string[], number][] = [
    [['SFF', 'FFF', 'FFG'], 4],
    [['FFS', 'FFF', 'GFF'], 4],
    [['FFF', 'FSF', 'FFG'], 2],
  ];
  const tasks: FrozenLakeTask[] = [0, 1, 2].flatMap((copy) =>
    maps.map(([rows, shortestPath], index) => ({
      taskId: `t${copy}-${index}`,
      tasksetId: 'x',
      rows,
      shortestPath,
    })),
  );
  const packs = buildPacks({
    tasks,
    taskId: (t) => t.taskId,
    tasksetId: (t) => t.tasksetId,
    packSize: 3,
    seed: 11,
  });
  const updatePrompts: string[] = [];
  let move = 0;
  const policy: MockPolicyV1 = new MockPolicyV1({
    maxSequenceLength: 100_000,
    generate: (request: PolicyV1GenerateOptions): PolicyV1GenerateResult => ({
      generations: (request.prompts ?? []).map((prompt) => {
        const text = policy.tokenizer.decode(prompt);
        const isUpdate = text.includes('Previous hints:');
        if (isUpdate) updatePrompts.push(text);
        const answer = isUpdate
          ? write(text)
          : `<answer>Direction ${(move++ % 4) + 1}</answer>`;
        const tokenIds = [...policy.tokenizer.encode(answer), 257];
        return {
          tokenIds,
          text: answer,
          logprobs: tokenIds.map(() => -0.1),
          modelLogprobs: tokenIds.map(() => -0.1),
          finishReason: 'stop' as const,
          promptTokenIds: prompt,
        };
      }),
      usage: { promptTokens: 0, completionTokens: 0 },
    }),
  });
  const records: PackRunRecord[] = [];
  for (const pack of packs) {
    const runs = await runPackRuns({
      policy,
      environment: createFrozenLakeEnvironment({
        maxSteps: 3,
        format: 'compact',
      }),
      pack,
      groupSize: 1,
      sampling: {
        maxTokens: 16,
        updateMaxTokens: 200,
        temperature: 1,
        seed: 3,
      },
      hints: { format: 'compact' },
      mode: 'eval',
    });
    records.push(...runs.map((run) => run.record));
  }
  return { records, updatePrompts };
}

describe('readinessUpdatesFromPackRuns', () => {
  it('should rebuild the trajectory each update was shown, token for token, and pair it with another pack', async () => {
    const copier = (prompt: string) =>
      [
        ...describeObservedMoves(prompt.slice(prompt.lastIndexOf('Task:'))),
        block(['- noted']),
      ].join('\n');
    const { records, updatePrompts } = await scriptedPackRuns(copier);
    expect(new Set(records.map((r) => r.packSeed)).size).toBe(3);
    const updates = readinessUpdatesFromPackRuns({
      records,
      seed: 1,
      format: 'compact',
    });
    expect(updates).toHaveLength(6);
    updates.forEach((u, index) => {
      expect(updatePrompts[index]).toContain(u.shown);
      expect(u.control).toBeDefined();
      expect(u.control).not.toBe(u.shown);
    });
    // Each pack is paired with one other pack, the same for the same seed.
    expect(
      readinessUpdatesFromPackRuns({ records, seed: 1, format: 'compact' }),
    ).toEqual(updates);
    const shownOfPack = records.map((record) =>
      serializeTrajectory({
        trajectory: solveTrajectoryFromRecord(record.solves[0]!),
        options: { format: 'compact' },
      }),
    );
    const controls = [0, 2, 4].map((i) =>
      shownOfPack.indexOf(updates[i]!.control!),
    );
    expect([...controls].sort()).toEqual([0, 1, 2]);
    controls.forEach((pack, own) => expect(pack).not.toBe(own));

    // The copier restates every move it was shown; chance is far lower.
    const result = measureReadiness({ updates });
    expect(result.measured.claims).toBeGreaterThan(0);
    expect(result.measured.fraction).toBe(1);
    expect(result.ready).toBe(true);
    expect(result.chance!.fraction!).toBeLessThan(0.5);
  });

  it('should measure a policy that writes a fixed line as unready, and give no chance with one pack', async () => {
    const mapping = frozenLakeMapping(0);
    const fixed = () =>
      [
        'Direction 1: (3,2) to (2,2) is up',
        block([`- Direction 1 = ${mapping[0]}`]),
      ].join('\n');
    const { records } = await scriptedPackRuns(fixed);
    const result = measureReadiness({
      updates: readinessUpdatesFromPackRuns({
        records,
        seed: 1,
        format: 'compact',
      }),
    });
    expect(result.measured.fraction!).toBeLessThan(0.8);
    expect(result.ready).toBe(false);
    const onePack = readinessUpdatesFromPackRuns({
      records: records.filter((r) => r.packId === records[0]!.packId),
      seed: 1,
      format: 'compact',
    });
    expect(onePack.every((u) => u.control === undefined)).toBe(true);
    expect(measureReadiness({ updates: onePack }).chance).toBeNull();
  });

  it('should refuse a record whose update has no solve before it', () => {
    const solve = {
      position: 0,
      taskId: 't',
      episodeId: 'e',
      hints: 'Hints: null',
      messages: [{ role: 'system', content: 's' }],
      outcome: 0,
      success: false,
      reward: 0,
      feedback: 'f',
      stepsUsed: 0,
      maxSteps: 1,
      responseTokens: 0,
      endReason: 'finished',
    } satisfies PackRunSolve;
    const record: PackRunRecord = {
      schemaVersion: 1,
      type: 'pack-run',
      packRunId: 'p#0',
      packId: 'p',
      packIndex: 0,
      packSeed: 1,
      tasksetId: 'x',
      strategy: 'cod',
      environmentId: frozen,
      regularity: '',
      runIndex: 0,
      mode: 'eval',
      policyStep: null,
      solves: [solve],
      updates: [
        {
          afterPosition: 3,
          previousHints: 'Hints: null',
          response: '',
          hints: 'Hints: no hint available.',
          parsed: false,
          trailingText: false,
          reward: 0,
          responseTokens: 0,
        },
      ],
      taskRewards: [0],
      hintRewards: [0],
      advantages: null,
    };
    expect(() =>
      readinessUpdatesFromPackRuns({ records: [record], seed: 0 }),
    ).toThrow(/no solve there/);
  });
});

describe('measureReadiness on the FrozenLake demonstrator', () => {
  it('should read the demonstrator, which writes down what it saw, as ready, far above chance', async () => {
    const tasks = generateFrozenLakeTasks({ seed: 9, count: 16 });
    const packs = buildPacks({
      tasks,
      taskId: (t) => t.taskId,
      tasksetId: (t) => t.tasksetId,
      packSize: 4,
      seed: 21,
    }).slice(0, 3);
    expect(packs).toHaveLength(3);
    // Per pack, its update episodes: the previous hints and the trajectory shown, and the response.
    const perPack = await Promise.all(
      packs.map(async (pack) =>
        (
          await playFrozenLakeExpertPack({
            pack,
            settings: { randomMoveRate: 0.25 },
          })
        )
          .filter((c) => c.kind === 'update')
          .map((c) => {
            const body = c.messages.find((m) => m.role === 'user')!.content;
            const cut = body.lastIndexOf('Task:');
            return {
              previousHints: body.slice(0, cut),
              shown: body.slice(cut),
              response: c.messages.find((m) => m.role === 'assistant')!.content,
            };
          }),
      ),
    );
    const updates: ReadinessUpdate[] = perPack.flatMap((list, pack) =>
      list.map((u, index) => ({
        environmentId: frozen,
        ...u,
        control: perPack[(pack + 1) % perPack.length]![index]!.shown,
      })),
    );
    expect(updates).toHaveLength(9);
    const result = measureReadiness({ updates });
    expect(result.measured.claims).toBeGreaterThan(10);
    expect(result.measured.fraction).toBe(1);
    expect(result.ready).toBe(true);
    expect(result.chance!.fraction!).toBeLessThan(0.5);
  });
});
