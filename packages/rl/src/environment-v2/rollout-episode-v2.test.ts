import type {
  EnvironmentV2,
  TaskV2,
  ToolDocV2,
  ToolOutcomeV2,
} from '@seal/spec';
import { taskV2Schema } from '@seal/spec';
import { describe, expect, it } from 'vitest';
import {
  loopVerdictOfV2,
  prepareTrainingEnvironmentV2,
  scoreByCategory,
  toolDocOfV2,
} from './training-environment-v2';

/**
 * A counter environment written against the v2 contract: `add` (required
 * `amount`, an `enum` mode), `read`, and `reset`, withheld until a later
 * turn by the tasks below; one counter per session, the snapshot its value.
 */
function counterEnvironment(): EnvironmentV2 & { open: () => number } {
  let open = 0;
  const tools: ToolDocV2[] = [
    {
      name: 'add',
      description: 'Adds to the counter.',
      inputSchema: {
        type: 'object',
        properties: {
          amount: { type: 'integer' },
          mode: { type: 'string', enum: ['up', 'down'] },
        },
        required: ['amount'],
      },
    },
    {
      name: 'read',
      description: 'Reads the counter.',
      inputSchema: { type: 'object', properties: {} },
    },
    {
      name: 'reset',
      description: 'Sets the counter to 0.',
      inputSchema: { type: 'object', properties: {} },
    },
  ];
  return {
    specificationVersion: 'v2',
    environmentId: 'counter',
    open: () => open,
    openSession: () => {
      open += 1;
      let value = 0;
      const ok = (content: string): ToolOutcomeV2 => ({
        kind: 'ok',
        ok: true,
        content,
      });
      return Promise.resolve({
        listTools: () => Promise.resolve(tools),
        call: ({ name, arguments: args }) => {
          if (name === 'add') {
            if (typeof args['amount'] !== 'number')
              return Promise.resolve({
                kind: 'invalid_arguments',
                ok: false,
                content: 'Error: amount is required',
                error: 'amount is required',
              } as const);
            value += args['mode'] === 'down' ? -args['amount'] : args['amount'];
            return Promise.resolve(ok(String(value)));
          }
          if (name === 'read') return Promise.resolve(ok(String(value)));
          if (name === 'reset') {
            value = 0;
            return Promise.resolve(ok('0'));
          }
          return Promise.resolve({
            kind: 'unknown_tool',
            ok: false,
            content: `Error: unknown tool ${name}`,
            error: `unknown tool ${name}`,
          } as const);
        },
        snapshot: () => Promise.resolve({ value }),
        close: () => {
          open -= 1;
          return Promise.resolve();
        },
      });
    },
  };
}

const tasks: TaskV2[] = [
  taskV2Schema.parse({
    id: 'add-then-reset',
    category: 'counting',
    turns: [
      [{ role: 'user', content: 'Add 2.' }],
      [{ role: 'user', content: 'Now reset it.' }],
    ],
    holdouts: [{ turn: 1, toolNames: ['reset'] }],
    groundTruth: [
      [{ name: 'add', arguments: { amount: 2 } }],
      [{ name: 'reset', arguments: {} }],
    ],
  }),
];

const episodeOptions = {
  protocol: 'bfcl-python' as const,
  promptMode: 'compact' as const,
  mode: 'train' as const,
  stamps: { runId: 'test' },
};

describe('the v2 rollout episode', () => {
  it('should run parsed calls on its own session, hide a withheld tool until its turn, and verify with the generic verifier', async () => {
    const environment = counterEnvironment();
    const { training, loopTasks } = await prepareTrainingEnvironmentV2({
      environment,
      tasks,
    });
    const task = loopTasks[0]!;
    expect(task.category).toBe('counting');
    const episode = training.createEpisode({
      ...episodeOptions,
      task,
      episodeId: 'e1',
    });
    const opening = await episode.reset();
    expect(opening[0]!.content).not.toContain('reset(');
    expect(episode.tools().map((tool) => tool.name)).toEqual(['add', 'read']);
    // A withheld tool before its turn is refused: nothing runs.
    let step = await episode.step('[reset()]');
    expect(step.observation[0]!.content).toContain("'reset' is not available");
    // BFCL's prompting decoder drops positional arguments (as BFCL does): the
    // call runs without them, and the tool's own validation answers.
    step = await episode.step('[add(2)]');
    expect(step.observation[0]!.content).toContain('amount is required');
    await episode.step('[add(amount=2)]');
    step = await episode.step('Added.');
    expect(step.turn).toBe(1);
    expect(episode.tools().map((tool) => tool.name)).toContain('reset');
    await episode.step('[reset()]');
    step = await episode.step('Done.');
    expect(step.done).toBe(true);
    const record = episode.record();
    expect(record.category).toBe('counting');
    expect(record.turns[0]!.steps.map((s) => s.calls)).toEqual([
      [],
      ['add()'],
      ['add(amount=2)'],
      [],
    ]);
    const trace = episode.trace();
    expect(trace.turns.map((turn) => turn.snapshot)).toEqual([
      { value: 2 },
      { value: 0 },
    ]);
    expect(
      trace.turns[0]!.steps.map((s) =>
        s.type === 'call' ? s.outcome.kind : s.type,
      ),
    ).toEqual(['unknown_tool', 'invalid_arguments', 'ok']);
    const verdict = await training.verify({ task, record });
    // The refused and the invalid call were recovered from: both turns pass.
    expect(verdict.turns.map((turn) => turn.tag)).toEqual(['pass', 'pass']);
    expect(verdict.official.valid).toBe(true);
    expect(verdict.rewards).toMatchObject({ binary: 1, progress: 1 });
    // Verifying closed the policy session (the ground-truth replay closes its own).
    expect(environment.open()).toBe(0);
  });

  it('should tag a missing call and keep the loop verdict in step with the generic one', async () => {
    const environment = counterEnvironment();
    const { training, loopTasks } = await prepareTrainingEnvironmentV2({
      environment,
      tasks,
    });
    const task = loopTasks[0]!;
    const episode = training.createEpisode({
      ...episodeOptions,
      task,
      episodeId: 'e2',
    });
    await episode.reset();
    await episode.step('Nothing to do.');
    await episode.step('[reset()]');
    await episode.step('Done.');
    const verdict = await training.verify({ task, record: episode.record() });
    expect(verdict.turns[0]!.tag).toBe('empty_turn_model_response');
    expect(verdict.official.valid).toBe(false);
    expect(verdict.rewards.binary).toBe(0);
    expect(verdict.rewards.progress).toBe(verdict.generic.rewards.validity);
    expect(loopVerdictOfV2(verdict.generic)).toEqual(verdict);
    await expect(
      training.verify({ task, record: episode.record() }),
    ).rejects.toMatchObject({ code: 'INVALID_STATE' });
  });

  it("should keep a JSON Schema's required and enum for φ_schema and score by the environment's categories", () => {
    const doc = toolDocOfV2({
      name: 'add',
      inputSchema: {
        type: 'object',
        properties: { mode: { type: 'string', enum: ['up', 'down'] } },
        required: ['mode'],
      },
    });
    expect(doc).toEqual({
      name: 'add',
      description: '',
      parameters: {
        type: 'object',
        properties: { mode: { type: 'string', enum: ['up', 'down'] } },
        required: ['mode'],
      },
    });
    expect(
      scoreByCategory([
        { category: 'a', valid: true },
        { category: 'a', valid: false },
        { category: 'b', valid: true },
      ]),
    ).toEqual({
      categories: {
        a: { accuracy: 0.5, correctCount: 1, totalCount: 2 },
        b: { accuracy: 1, correctCount: 1, totalCount: 1 },
      },
      overall: 2 / 3,
    });
  });
});
