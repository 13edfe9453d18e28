import {
  taskV2Schema,
  type EnvironmentV2,
  type TaskV2Input,
  type ToolOutcomeV2,
  type TraceStepV2,
} from '@seal/spec';
import { describe, expect, it } from 'vitest';
import { aggregateScoresV2 } from './aggregate-scores-v2';
import {
  checkEnvironmentV2,
  sabotageGroundTruthV2,
} from './check-environment-v2';
import { runCallsV2 } from './replay-v2';
import { tagTurnV2, type GroundTruthTurnV2 } from './tag-turn';
import { verifyEpisodeV2 } from './verify-episode-v2';

const ok = (content: string): ToolOutcomeV2 => ({
  kind: 'ok',
  ok: true,
  content,
});
const failed = (kind: ToolOutcomeV2['kind'], error: string): ToolOutcomeV2 => ({
  kind,
  ok: false,
  content: `Error: ${error}`,
  error,
});
const call = (
  name: string,
  arguments_: Record<string, unknown>,
  outcome: ToolOutcomeV2,
): TraceStepV2 => ({
  type: 'call',
  call: { name, arguments: arguments_ },
  outcome,
});

const addMilk: GroundTruthTurnV2 = {
  calls: [{ name: 'add', arguments: { item: 'milk' } }],
  outcomes: [ok('added milk')],
  snapshot: { items: ['milk'] },
  hasSnapshot: true,
};
const allChecks = { calls: true, state: true, results: true };

function tag(
  steps: TraceStepV2[],
  {
    groundTruth = addMilk,
    snapshot = { items: ['milk'] } as unknown,
    checks = allChecks,
  } = {},
) {
  return tagTurnV2({
    turn: 0,
    groundTruth,
    steps,
    policySnapshot: { value: snapshot },
    checks,
  });
}

describe('tagTurnV2', () => {
  it('should pass an exact replay', () => {
    const verdict = tag([call('add', { item: 'milk' }, ok('added milk'))]);
    expect(verdict).toMatchObject({ pass: true, tag: 'pass', tags: ['pass'] });
  });

  it('should tag a failed ground truth gt_error and leave it unscored', () => {
    const verdict = tag([], {
      groundTruth: { ...addMilk, error: 'turn 0: add → tool_error' },
    });
    expect(verdict).toMatchObject({
      pass: false,
      tag: 'gt_error',
      scorable: false,
    });
  });

  it('should tag abstention on an empty ground-truth turn correct_abstention (a pass)', () => {
    const verdict = tag([], {
      groundTruth: { calls: [], outcomes: [], hasSnapshot: false },
    });
    expect(verdict).toMatchObject({ pass: true, tag: 'correct_abstention' });
  });

  it('should tag a call on an empty ground-truth turn spurious_tool_call', () => {
    const verdict = tag([call('add', { item: 'milk' }, ok('added milk'))], {
      groundTruth: { calls: [], outcomes: [], hasSnapshot: false },
    });
    expect(verdict).toMatchObject({ pass: false, tag: 'spurious_tool_call' });
  });

  it('should tag unparsable output without a call invalid_call', () => {
    const verdict = tag([
      { type: 'invalid', text: '<call>add(', error: 'unclosed' },
    ]);
    expect(verdict).toMatchObject({ pass: false, tag: 'invalid_call' });
  });

  it('should tag no call where one was expected empty_turn_model_response', () => {
    expect(tag([])).toMatchObject({
      pass: false,
      tag: 'empty_turn_model_response',
    });
  });

  it('should tag another tool wrong_tool', () => {
    const verdict = tag([call('remove', { item: 'milk' }, ok('removed'))]);
    expect(verdict.pass).toBe(false);
    expect(verdict.tag).toBe('wrong_tool');
  });

  it('should tag a dropped call missing_call', () => {
    const groundTruth: GroundTruthTurnV2 = {
      calls: [
        { name: 'add', arguments: { item: 'milk' } },
        { name: 'list', arguments: {} },
      ],
      outcomes: [ok('added milk'), ok('milk')],
      hasSnapshot: false,
    };
    const verdict = tag([call('add', { item: 'milk' }, ok('added milk'))], {
      groundTruth,
    });
    expect(verdict).toMatchObject({ pass: false, tag: 'missing_call' });
    expect(verdict.tags).toContain('response_mismatch');
  });

  it('should tag other arguments argument_mismatch, with the state and response mismatches beside it', () => {
    const verdict = tag([call('add', { item: 'eggs' }, ok('added eggs'))], {
      snapshot: { items: ['eggs'] },
    });
    expect(verdict.tag).toBe('argument_mismatch');
    expect(verdict.tags).toEqual([
      'argument_mismatch',
      'state_mismatch',
      'response_mismatch',
    ]);
  });

  it('should tag a successful call the ground truth does not make extra_call', () => {
    const verdict = tag([
      call('add', { item: 'milk' }, ok('added milk')),
      call('list', {}, ok('milk')),
    ]);
    expect(verdict).toMatchObject({ pass: false, tag: 'extra_call' });
  });

  it('should tag a failure never recovered recovery_failure', () => {
    const verdict = tag(
      [
        call(
          'add',
          { item: 3 },
          failed('invalid_arguments', 'item: expected string'),
        ),
      ],
      { snapshot: { items: [] } },
    );
    expect(verdict.pass).toBe(false);
    expect(verdict.tag).toBe('recovery_failure');
    expect(verdict.tags).toContain('argument_mismatch');
  });

  it('should pass a recovered failure', () => {
    const verdict = tag([
      call('add', { item: 3 }, failed('invalid_arguments', 'bad')),
      call('add', { item: 'milk' }, ok('added milk')),
    ]);
    expect(verdict).toMatchObject({ pass: true, tag: 'pass' });
  });

  it('should tag a differing snapshot state_mismatch', () => {
    const verdict = tag([call('add', { item: 'milk' }, ok('added milk'))], {
      snapshot: { items: ['milk', 'milk'] },
    });
    expect(verdict).toMatchObject({ pass: false, tag: 'state_mismatch' });
  });

  it('should tag a missing ground-truth result response_mismatch', () => {
    const verdict = tag([call('add', { item: 'milk' }, ok('added MILK'))]);
    expect(verdict).toMatchObject({ pass: false, tag: 'response_mismatch' });
  });

  it('should let a disabled check pass what it would fail', () => {
    const verdict = tag([call('add', { item: 'milk' }, ok('added MILK'))], {
      checks: { calls: true, state: true, results: false },
    });
    expect(verdict.pass).toBe(true);
  });
});

/** A real little environment: a shopping list, with a tool that throws and one that hangs. */
function shoppingList({
  checker,
}: { checker?: EnvironmentV2['checker'] } = {}): EnvironmentV2 {
  return {
    specificationVersion: 'v2',
    environmentId: 'shopping-list',
    ...(checker === undefined ? {} : { checker }),
    openSession() {
      const items: string[] = [];
      return Promise.resolve({
        listTools: () => Promise.resolve([]),
        call({ name, arguments: arguments_ }) {
          if (name === 'add') {
            items.push(String(arguments_.item));
            return Promise.resolve(ok(`added ${String(arguments_.item)}`));
          }
          if (name === 'list') return Promise.resolve(ok(items.join(',')));
          if (name === 'explode')
            return Promise.reject(new Error('the tool threw'));
          return Promise.resolve(failed('unknown_tool', `unknown ${name}`));
        },
        snapshot: () => Promise.resolve({ items: [...items] }),
        close: () => Promise.resolve(),
      });
    },
  };
}

const task = (
  input: Omit<TaskV2Input, 'turns'> & { turns?: TaskV2Input['turns'] },
) =>
  taskV2Schema.parse({
    turns: (input.groundTruth ?? [[]]).map(() => [
      { role: 'user', content: 'please' },
    ]),
    ...input,
  });

describe('verifyEpisodeV2', () => {
  it('should pass the ground truth replayed as the policy and score its rewards', async () => {
    const environment = shoppingList();
    const shopping = task({
      id: 'a',
      category: 'lists',
      groundTruth: [
        [{ name: 'add', arguments: { item: 'milk' } }],
        [],
        [{ name: 'list', arguments: {} }],
      ],
    });
    const trace = await runCallsV2({
      environment,
      task: shopping,
      calls: shopping.groundTruth!,
    });
    const result = await verifyEpisodeV2({
      environment,
      task: shopping,
      trace,
    });
    expect(result.turns.map((turn) => turn.tag)).toEqual([
      'pass',
      'correct_abstention',
      'pass',
    ]);
    expect(result.success).toBe(true);
    expect(result.rewards).toEqual({ success: 1, validity: 1, format: 1 });
    expect(result.category).toBe('lists');
  });

  it('should tag a ground truth that throws gt_error on its turn and after', async () => {
    const environment = shoppingList();
    const broken = task({
      id: 'b',
      groundTruth: [[{ name: 'explode', arguments: {} }], []],
    });
    const trace = { taskId: 'b', turns: [{ steps: [] }, { steps: [] }] };
    const result = await verifyEpisodeV2({ environment, task: broken, trace });
    expect(result.turns.map((turn) => turn.tag)).toEqual([
      'gt_error',
      'gt_error',
    ]);
    expect(result.turns[0]!.detail).toContain('the tool threw');
  });

  it('should tag every turn checker_error when the checker throws', async () => {
    const environment = shoppingList({
      checker: () => Promise.reject(new Error('checker bug')),
    });
    const checked = task({
      id: 'c',
      turns: [[{ role: 'user', content: 'hi' }]],
    });
    const session = await environment.openSession({
      task: checked,
      role: 'policy',
    });
    const result = await verifyEpisodeV2({
      environment,
      task: checked,
      trace: { taskId: 'c', turns: [{ steps: [] }] },
      session,
    });
    expect(result.turns[0]).toMatchObject({
      tag: 'checker_error',
      scorable: false,
      detail: expect.stringContaining('checker bug'),
    });
  });

  it('should take per-turn verdicts from a checker', async () => {
    const environment = shoppingList({
      checker: async ({ session }) => {
        const state = (await session.snapshot?.()) as { items: string[] };
        return { turns: [{ pass: state.items.includes('milk') }] };
      },
    });
    const checked = task({
      id: 'd',
      turns: [[{ role: 'user', content: 'hi' }]],
    });
    const session = await environment.openSession({
      task: checked,
      role: 'policy',
    });
    const before = await verifyEpisodeV2({
      environment,
      task: checked,
      trace: { taskId: 'd', turns: [{ steps: [] }] },
      session,
    });
    expect(before.turns[0]!.tag).toBe('checker_fail');
    await session.call({ name: 'add', arguments: { item: 'milk' } });
    const after = await verifyEpisodeV2({
      environment,
      task: checked,
      trace: { taskId: 'd', turns: [{ steps: [] }] },
      session,
    });
    expect(after.turns[0]!.tag).toBe('pass');
  });
});

describe('checkEnvironmentV2', () => {
  const tasks = [
    task({
      id: 'one',
      category: 'add',
      groundTruth: [
        [
          { name: 'add', arguments: { item: 'milk' } },
          { name: 'add', arguments: { item: 'eggs' } },
        ],
        [{ name: 'list', arguments: {} }],
      ],
    }),
    task({ id: 'two', category: 'ask', groundTruth: [[]] }),
    task({ id: 'three', groundTruth: [[{ name: 'explode', arguments: {} }]] }),
  ];

  it('should pass good replays, tag every sabotaged one, and fail a throwing ground truth', async () => {
    const report = await checkEnvironmentV2({
      environment: shoppingList(),
      tasks,
      seed: 7,
    });
    expect(report.replays).toEqual({ passed: 2, total: 3 });
    expect(report.tasks[2]!.replay.turns[0]!.tag).toBe('gt_error');
    // `two` has no call to drop; `three`'s sabotage fails on gt_error, not a tag.
    expect(report.sabotaged).toEqual({ tagged: 1, total: 2 });
    const sabotage = report.tasks[0]!.sabotage!;
    expect(sabotage.tagged).toBe(true);
    expect(sabotage.result.turns[sabotage.turn]!.pass).toBe(false);
  });

  it('should choose the same dropped call for the same seed', () => {
    const first = sabotageGroundTruthV2({ task: tasks[0]!, seed: 11 });
    const again = sabotageGroundTruthV2({ task: tasks[0]!, seed: 11 });
    expect(again).toEqual(first);
    const drops = new Set(
      Array.from({ length: 20 }, (_, seed) =>
        JSON.stringify(
          sabotageGroundTruthV2({ task: tasks[0]!, seed })?.dropped,
        ),
      ),
    );
    expect(drops.size).toBeGreaterThan(1);
  });
});

describe('aggregateScoresV2', () => {
  it('should score by the environment own categories', async () => {
    const report = await checkEnvironmentV2({
      environment: shoppingList(),
      tasks: tasks_(),
    });
    const scores = aggregateScoresV2(report.tasks.map((check) => check.replay));
    expect(Object.keys(scores.byCategory)).toEqual(['add', 'default']);
    expect(scores.byCategory.add).toMatchObject({ episodes: 1, successes: 1 });
    expect(scores.overall.episodes).toBe(2);
  });
});

function tasks_() {
  return [
    task({
      id: 'x',
      category: 'add',
      groundTruth: [[{ name: 'add', arguments: { item: 'a' } }]],
    }),
    task({ id: 'y', groundTruth: [[]] }),
  ];
}
