import type { BfclDataset } from '@seal/bfcl';
import {
  hasSharedBfclData,
  loadSharedBfclData,
  sharedDataSkipMessage,
} from '@seal/bfcl/test';
import { createEpisode } from '@seal/env';
import type {
  EpisodeRecord,
  FailureTag,
  Task,
  TurnVerdict,
  VerifierV1Result,
} from '@seal/spec';
import { MockToolBackendV1 } from '@seal/spec/test';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  calls,
  groundTruthScript,
  reply,
  runScripted,
} from './__fixtures__/scripted-episode';
import { diagnoseEpisode } from './diagnose-episode';

// multi_turn_base_1 (GorillaFileSystem), ground truth per turn:
//   0: ls(a=True)
//   1: cd(folder='workspace'), mv(source='log.txt', destination='archive')
//   2: cd(folder='archive'), grep(file_name='log.txt', pattern='Error')
//   3: tail(file_name='log.txt', lines=20)
// multi_turn_miss_func_1 is the same scenario with an empty ground-truth
// turn 1 (mv is held out until turn 2).
const base = 'multi_turn_base_1';
const missFunc = 'multi_turn_miss_func_1';
const qwenCall = (name: string, args: Record<string, unknown>) =>
  `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;

describe.skipIf(!hasSharedBfclData)(
  'diagnoseEpisode (shared BFCL data)',
  () => {
    let dataset: BfclDataset;
    beforeAll(async () => {
      dataset = await loadSharedBfclData();
    });

    /** Runs `taskId` with the ground truth, turn `turn` replaced by `messages`. */
    const withTurn = ({
      taskId,
      turn,
      messages,
    }: {
      taskId: string;
      turn: number;
      messages: string[];
    }) =>
      runScripted({
        dataset,
        taskId,
        script: (task) =>
          groundTruthScript(task).map((script, index) =>
            index === turn ? messages : script,
          ),
      });
    const diagnose = ({
      record,
      verification,
    }: {
      record: EpisodeRecord;
      verification: VerifierV1Result;
    }) => diagnoseEpisode({ record, verification });
    const tags = (
      diagnosis: ReturnType<typeof diagnoseEpisode>,
    ): FailureTag[] => diagnosis.turns.map((turn) => turn.tag);

    describe('SEAL tags through the real verifier', () => {
      it('should copy pass on every turn of the unmutated ground truth', () => {
        const episode = runScripted({ dataset, taskId: base });
        const diagnosis = diagnose(episode);
        expect(tags(diagnosis)).toEqual(['pass', 'pass', 'pass', 'pass']);
        expect(tags(diagnosis)).toEqual(
          episode.verification.turns.map((turn) => turn.tag),
        );
        expect(
          diagnosis.turns.every(
            (turn) => turn.fineTags.length === 0 && turn.reached,
          ),
        ).toBe(true);
        expect(diagnosis).toMatchObject({
          reward: 1,
          success: true,
          dominantTag: 'pass',
        });
        expect(diagnosis.trajectory.clean).toBe(true);
      });

      it('should copy correct_abstention on the empty ground-truth turn', () => {
        const diagnosis = diagnose(runScripted({ dataset, taskId: missFunc }));
        expect(tags(diagnosis)).toEqual([
          'pass',
          'correct_abstention',
          'pass',
          'pass',
          'pass',
        ]);
        expect(diagnosis.dominantTag).toBe('correct_abstention');
      });

      it('should copy spurious_tool_call when the model acts on the empty ground-truth turn', () => {
        const diagnosis = diagnose(
          withTurn({
            taskId: missFunc,
            turn: 1,
            messages: [calls('pwd()'), reply],
          }),
        );
        expect(tags(diagnosis)).toEqual([
          'pass',
          'spurious_tool_call',
          'pass',
          'pass',
          'pass',
        ]);
        // BFCL does not check empty turns: the episode still succeeds.
        expect(diagnosis).toMatchObject({
          reward: 1,
          dominantTag: 'spurious_tool_call',
        });
        expect(diagnosis.turns[1]!.fineTags).toEqual([]);
      });

      it('should copy empty_turn_model_response when the model answers without calls', () => {
        const diagnosis = diagnose(
          withTurn({ taskId: base, turn: 2, messages: [reply] }),
        );
        expect(tags(diagnosis)[2]).toBe('empty_turn_model_response');
        expect(diagnosis.turns[2]!.fineTags).toEqual([]);
        expect(diagnosis.reward).toBe(0);
      });

      it('should copy state_mismatch when a state-changing call has a wrong argument', () => {
        const diagnosis = diagnose(
          withTurn({
            taskId: base,
            turn: 1,
            messages: [
              calls(
                "cd(folder='workspace')",
                "mv(source='log.txt', destination='archived')",
              ),
              reply,
            ],
          }),
        );
        expect(tags(diagnosis)[1]).toBe('state_mismatch');
        expect(diagnosis.turns[1]!.fineTags).toEqual([]);
      });

      it('should copy response_mismatch when a read-only call is dropped', () => {
        const diagnosis = diagnose(
          withTurn({
            taskId: base,
            turn: 2,
            messages: [calls("cd(folder='archive')"), reply],
          }),
        );
        expect(tags(diagnosis)).toEqual([
          'pass',
          'pass',
          'response_mismatch',
          'pass',
        ]);
        expect(diagnosis.dominantTag).toBe('response_mismatch');
      });

      // instance_mismatch, checker_error and gt_error cannot arise with our
      // executor: every session instantiates all involved classes up front (the
      // model's and the ground truth's class sets are always equal and never
      // empty), and execution and the checkers turn every failure into a result
      // string instead of raising. They are tested with constructed inputs below.
    });

    describe('fine tags from the event stream', () => {
      it('should tag invalid_tool_call for a parse error without changing the pass', () => {
        const episode = runScripted({
          dataset,
          taskId: base,
          protocol: 'qwen-xml',
          script: () => [
            [
              '<tool_call>\n{"name": "ls", "arguments": \n</tool_call>',
              qwenCall('ls', { a: true }),
              reply,
            ],
          ],
        });
        const turn = diagnose(episode).turns[0]!;
        expect(turn).toMatchObject({
          tag: 'pass',
          fineTags: ['invalid_tool_call'],
          parseErrors: 1,
          refusedCalls: 0,
        });
      });

      it('should tag invalid_tool_call for a refused unknown tool', () => {
        const episode = withTurn({
          taskId: base,
          turn: 0,
          messages: [
            calls("delete_everything(path='/')"),
            calls('ls(a=True)'),
            reply,
          ],
        });
        const turn = diagnose(episode).turns[0]!;
        expect(turn).toMatchObject({
          tag: 'pass',
          fineTags: ['invalid_tool_call'],
          refusedCalls: 1,
          executedCalls: 1,
        });
      });

      it('should tag argument_mismatch for an unexpected keyword, recovered by a correct retry', () => {
        const episode = withTurn({
          taskId: base,
          turn: 3,
          messages: [
            calls("tail(file='log.txt', lines=20)"),
            calls("tail(file_name='log.txt', lines=20)"),
            reply,
          ],
        });
        const turn = diagnose(episode).turns[3]!;
        expect(turn.tag).toBe('pass');
        expect(turn.fineTags).toEqual(['argument_mismatch']);
        expect(turn.toolErrors).toEqual([
          {
            step: 0,
            name: 'tail',
            error:
              "GorillaFileSystem.tail() got an unexpected keyword argument 'file'",
            argumentError: true,
            recovered: true,
          },
        ]);
      });

      it('should tag argument_mismatch and recovery_failure when a missing argument is never fixed', () => {
        // BFCL's ground truth calls sort('final_report.pdf') positionally; BFCL's
        // prompting decoder drops positional arguments, so the call runs as sort().
        const diagnosis = diagnose(
          runScripted({ dataset, taskId: 'multi_turn_base_0' }),
        );
        const turn = diagnosis.turns[2]!;
        expect(turn.tag).toBe('response_mismatch');
        expect(turn.fineTags).toEqual([
          'argument_mismatch',
          'recovery_failure',
        ]);
        expect(turn.toolErrors[0]).toMatchObject({
          name: 'sort',
          argumentError: true,
          recovered: false,
        });
      });

      it('should not tag a state error recovered by the same tool', () => {
        const episode = withTurn({
          taskId: base,
          turn: 1,
          messages: [
            calls("cd(folder='work')"),
            calls(
              "cd(folder='workspace')",
              "mv(source='log.txt',destination='archive')",
            ),
            reply,
          ],
        });
        const turn = diagnose(episode).turns[1]!;
        expect(turn.tag).toBe('pass');
        expect(turn.fineTags).toEqual([]);
        expect(turn.toolErrors).toMatchObject([
          { name: 'cd', argumentError: false, recovered: true },
        ]);
      });

      it('should tag recovery_failure for an unrecovered tool error even when the turn passes', () => {
        const episode = withTurn({
          taskId: base,
          turn: 3,
          messages: [
            calls(
              "tail(file_name='log.txt',lines=20)",
              "cat(file_name='missing.txt')",
            ),
            reply,
          ],
        });
        const diagnosis = diagnose(episode);
        expect(diagnosis.turns[3]).toMatchObject({
          tag: 'pass',
          fineTags: ['recovery_failure'],
        });
        expect(diagnosis.reward).toBe(1);
        expect(diagnosis.trajectory.hasToolError).toBe(true);
      });

      it('should tag recovery_failure when the turn fails after error feedback', () => {
        const episode = runScripted({
          dataset,
          taskId: base,
          protocol: 'qwen-xml',
          script: () => [
            [
              '<tool_call>\nnot json\n</tool_call>',
              'I cannot list the directory.',
            ],
          ],
        });
        const turn = diagnose(episode).turns[0]!;
        expect(turn).toMatchObject({
          tag: 'empty_turn_model_response',
          fineTags: ['invalid_tool_call', 'recovery_failure'],
        });
      });

      it('should leave turns the episode never reached without fine tags', () => {
        const episode = runScripted({
          dataset,
          taskId: base,
          script: (task) => groundTruthScript(task).slice(0, 2),
        });
        const diagnosis = diagnose(episode);
        expect(tags(diagnosis)).toEqual([
          'pass',
          'pass',
          'empty_turn_model_response',
          'empty_turn_model_response',
        ]);
        expect(diagnosis.turns.map((turn) => turn.reached)).toEqual([
          true,
          true,
          true,
          false,
        ]);
        expect(
          diagnosis.turns.every((turn) => turn.fineTags.length === 0),
        ).toBe(true);
      });
    });

    describe('trajectory diagnostics', () => {
      it("should count SEAL's rates over attempts, acceptances and executions", () => {
        const episode = runScripted({
          dataset,
          taskId: base,
          script: (task) =>
            groundTruthScript(task).map((script, index) =>
              index === 0
                ? [
                    calls('unknown_tool()', 'ls(a=True)'),
                    calls("cat(file_name='nope.txt')"),
                    ...script,
                  ]
                : script,
            ),
        });
        const { trajectory } = diagnose(episode);
        expect(trajectory).toEqual({
          clean: false,
          hasInvalidToolCall: true,
          hasToolError: true,
          errorCount: 2,
          numUserTurns: 4,
          numTurnsWithToolCall: 4,
          // 2 refused in the mixed message, then 1 + 1 + 2 + 2 + 1 accepted.
          numToolCallsAttempted: 9,
          numToolCallsAccepted: 7,
          numToolExecutionsNoError: 6,
          turnCoverageRate: 1,
          toolCallAcceptRate: 7 / 9,
          toolExecSuccessRate: 6 / 7,
        });
      });
    });

    describe('malformed input', () => {
      it('should reject a malformed record with INVALID_DATA', () => {
        const { record, verification } = runScripted({ dataset, taskId: base });
        const broken = {
          ...record,
          turns: [{ turn: -1, steps: 'none' }],
        } as unknown as EpisodeRecord;
        expect(() => diagnoseEpisode({ record: broken, verification })).toThrow(
          expect.objectContaining({ code: 'INVALID_DATA' }),
        );
        const noEvents = {
          ...record,
          events: undefined,
        } as unknown as EpisodeRecord;
        expect(() =>
          diagnoseEpisode({ record: noEvents, verification }),
        ).toThrow(expect.objectContaining({ code: 'INVALID_DATA' }));
      });

      it('should reject a malformed verification with INVALID_DATA', () => {
        const { record, verification } = runScripted({ dataset, taskId: base });
        const broken = {
          ...verification,
          turns: [{ turn: 0, tag: 'great' }],
        } as unknown as VerifierV1Result;
        expect(() => diagnoseEpisode({ record, verification: broken })).toThrow(
          expect.objectContaining({ code: 'INVALID_DATA' }),
        );
      });

      it('should reject a verification of another episode with INVALID_ARGUMENT', () => {
        const { record } = runScripted({ dataset, taskId: base });
        const { verification } = runScripted({ dataset, taskId: missFunc });
        expect(() => diagnoseEpisode({ record, verification })).toThrow(
          expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
        );
      });
    });
  },
);

describe('diagnoseEpisode with constructed verdicts', () => {
  // A two-turn task on a mock backend: `probe` fails with a state error the
  // first time, `bad` is refused by the executor, `fetch` always works.
  const task: Task = {
    schemaVersion: 1,
    id: 'multi_turn_base_900',
    category: 'multi_turn_base',
    source: 'generated',
    turns: [
      [{ role: 'user', content: 'Probe it.' }],
      [{ role: 'user', content: 'Fetch it.' }],
    ],
    tools: ['probe', 'fetch', 'bad'].map((name) => ({
      name,
      description: `Does ${name}.`,
      parameters: { type: 'dict', properties: {}, required: [] },
    })),
    holdouts: [],
    backend: {
      kind: 'bfcl',
      involvedClasses: ['GorillaFileSystem'],
      initialConfig: '{}',
      longContext: false,
    },
    groundTruth: [['probe()'], ['fetch()']],
  };
  const record = (): EpisodeRecord => {
    const backend = new MockToolBackendV1({
      execute: (callText) =>
        callText.startsWith('probe')
          ? {
              result: '{"error": "probe: target: No such file or directory"}',
              status: 'ok',
              error: 'probe: target: No such file or directory',
            }
          : callText.startsWith('bad')
            ? {
                result: 'Error during execution: expression refused',
                status: 'rejected',
              }
            : { result: 'fetched', status: 'ok' },
    });
    const episode = createEpisode({ task, backend, episodeId: 'constructed' });
    episode.reset();
    for (const message of [
      qwenCall('probe', {}),
      'Probing failed.',
      qwenCall('bad', {}),
      qwenCall('fetch', {}),
      'Done.',
    ]) {
      episode.step(message);
    }
    return episode.record();
  };
  const verdict = (turn: number, tag: FailureTag): TurnVerdict => ({
    turn,
    tag,
    valid: false,
    irrelevance: null,
    modelResults: [],
    groundTruthResults: [],
  });
  const verification = (tags: [FailureTag, FailureTag]): VerifierV1Result => ({
    schemaVersion: 1,
    verifierId: 'constructed',
    taskId: task.id,
    episodeId: 'constructed',
    category: task.category,
    official: { valid: false },
    turns: tags.map((tag, turn) => verdict(turn, tag)),
    progress: 0,
    progressWithIrrelevance: 0,
    passedTurns: 0,
    scorableTurns: 2,
    passedIrrelevanceTurns: 0,
    irrelevanceTurns: 0,
    terminatedEarly: false,
    rewards: { binary: 0, progress: 0, format: 0 },
    warnings: [],
  });

  it.each([['instance_mismatch'], ['checker_error'], ['gt_error']] as const)(
    'should copy %s unchanged',
    (tag) => {
      const diagnosis = diagnoseEpisode({
        record: record(),
        verification: verification([tag, tag]),
      });
      expect(diagnosis.turns.map((turn) => turn.tag)).toEqual([tag, tag]);
      expect(diagnosis.dominantTag).toBe(tag);
    },
  );

  it('should count a failed turn after an error as a recovery failure, but not a checker or ground-truth error', () => {
    const failed = diagnoseEpisode({
      record: record(),
      verification: verification(['instance_mismatch', 'pass']),
    });
    // Turn 0: probe failed and was never retried (unrecovered).
    expect(failed.turns[0]).toMatchObject({
      fineTags: ['recovery_failure'],
      toolErrors: [{ name: 'probe', recovered: false }],
    });
    // Turn 1: bad was refused by the executor (an invalid call and a tool error).
    expect(failed.turns[1]).toMatchObject({
      fineTags: ['invalid_tool_call', 'recovery_failure'],
      refusedCalls: 1,
    });
    const excluded = diagnoseEpisode({
      record: record(),
      verification: verification(['pass', 'checker_error']),
    });
    // Rule (a) still applies to the unrecovered errors; rule (b) skips checker errors.
    expect(excluded.turns.map((turn) => turn.fineTags)).toEqual([
      ['recovery_failure'],
      ['invalid_tool_call', 'recovery_failure'],
    ]);
  });

  it('should override the reward when one is given', () => {
    const diagnosis = diagnoseEpisode({
      record: record(),
      verification: verification(['pass', 'pass']),
      reward: 1,
    });
    expect(diagnosis).toMatchObject({ reward: 1, success: true });
  });

  it('should warn about recorded turns beyond the verified ones', () => {
    const short = verification(['pass', 'pass']);
    short.turns = short.turns.slice(0, 1);
    const diagnosis = diagnoseEpisode({
      record: record(),
      verification: short,
    });
    expect(diagnosis.turns).toHaveLength(1);
    expect(diagnosis.warnings).toHaveLength(1);
  });
});

describe.skipIf(hasSharedBfclData)(
  'diagnoseEpisode without the shared BFCL data',
  () => {
    it.skip(sharedDataSkipMessage, () => {});
  },
);
