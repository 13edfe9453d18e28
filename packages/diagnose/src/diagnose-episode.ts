import {
  SealError,
  episodeRecordSchema,
  safeParseWithSchema,
  turnVerdictSchema,
  verifierV1ResultSchema,
  type EpisodeDiagnosis,
  type EpisodeRecord,
  type FailureTag,
  type FineTag,
  type SealWarning,
  type ToolErrorEvidence,
  type TurnDiagnosis,
  type VerifierV1Result,
} from '@seal/spec';
import * as z from 'zod';
import { isArgumentError } from './argument-error';
import { diagnoseTrajectory } from './diagnose-trajectory';
import { dominantCapabilityTag } from './dominant-tag';
import { toolErrorOf, type CallExecutedEvent } from './tool-error';

/** Options of {@link diagnoseEpisode}. */
export type DiagnoseEpisodeOptions = {
  /** The episode as the environment recorded it. */
  record: EpisodeRecord;
  /** The verifier's result for that record (SEAL's tags per ground-truth turn). */
  verification: VerifierV1Result;
  /** The trajectory's reward; default: the verifier's binary reward (SEAL's). */
  reward?: number;
};

/** SEAL tags that are not a failure of the model's turn. */
const notFailed: ReadonlySet<FailureTag> = new Set([
  'pass',
  'correct_abstention',
  'checker_error',
  'gt_error',
]);

/** Error strings are kept to this length, as SEAL's top-error counter keeps them. */
const errorTextLimit = 200;

type TurnEvidence = {
  parseErrors: number;
  refusedCalls: number;
  executions: CallExecutedEvent[];
};

/**
 * The parts of a record and a verification that diagnosis reads, validated
 * at the call. The conversation (`messages`) and the result strings are not
 * read, so they are not re-validated: they dominate a record's size, and the
 * verifier has already checked the record.
 */
const diagnosedRecordSchema = episodeRecordSchema.pick({
  schemaVersion: true,
  episodeId: true,
  taskId: true,
  category: true,
  turns: true,
  events: true,
  endReason: true,
});
const diagnosedVerificationSchema = verifierV1ResultSchema
  .pick({
    schemaVersion: true,
    verifierId: true,
    taskId: true,
    episodeId: true,
    rewards: true,
  })
  .extend({
    turns: z.array(turnVerdictSchema.pick({ turn: true, tag: true })),
  });

function checkInputs({ record, verification }: DiagnoseEpisodeOptions): void {
  const parsedRecord = safeParseWithSchema({
    schema: diagnosedRecordSchema,
    value: record,
    source: 'episode record',
  });
  if (!parsedRecord.success) throw parsedRecord.error;
  const parsedVerification = safeParseWithSchema({
    schema: diagnosedVerificationSchema,
    value: verification,
    source: 'verification',
  });
  if (!parsedVerification.success) throw parsedVerification.error;
  const { taskId, episodeId } = parsedRecord.value;
  const result = parsedVerification.value;
  if (
    result.taskId !== taskId ||
    (result.episodeId !== undefined && result.episodeId !== episodeId)
  ) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `the verification (task ${result.taskId}, episode ${result.episodeId ?? 'none'}) does not belong to episode ${episodeId} of task ${taskId}`,
      details: {
        episodeId,
        taskId,
        verificationTaskId: result.taskId,
        verificationEpisodeId: result.episodeId,
      },
    });
  }
}

function collectEvidence(record: EpisodeRecord): Map<number, TurnEvidence> {
  const byTurn = new Map<number, TurnEvidence>();
  const evidence = (turn: number): TurnEvidence => {
    let entry = byTurn.get(turn);
    if (!entry) {
      entry = { parseErrors: 0, refusedCalls: 0, executions: [] };
      byTurn.set(turn, entry);
    }
    return entry;
  };
  for (const turn of record.turns) {
    const entry = evidence(turn.turn);
    for (const step of turn.steps) {
      if (step.parseError !== undefined) entry.parseErrors++;
      entry.refusedCalls += step.rejectedCalls;
    }
  }
  for (const event of record.events) {
    if (event.type !== 'call-executed') continue;
    const entry = evidence(event.turn);
    entry.executions.push(event);
    // The safe call parser refused the text unexecuted: a refused call too.
    if (event.status === 'rejected') entry.refusedCalls++;
  }
  return byTurn;
}

function toolErrorsOf(
  executions: readonly CallExecutedEvent[],
): ToolErrorEvidence[] {
  const errors = executions.map(toolErrorOf);
  const out: ToolErrorEvidence[] = [];
  executions.forEach((event, index) => {
    const error = errors[index];
    if (error === undefined) return;
    const recovered = executions.some(
      (later, laterIndex) =>
        laterIndex > index &&
        later.call.name === event.call.name &&
        errors[laterIndex] === undefined,
    );
    out.push({
      step: event.step,
      name: event.call.name,
      error,
      argumentError: isArgumentError(error),
      recovered,
    });
  });
  return out;
}

/**
 * The fine tags of one turn, from its evidence and SEAL's tag:
 * - `invalid_tool_call`: a step of the turn did not parse, or a call was
 *   refused before execution (unknown or held-out tool, or call text the safe
 *   parser refused);
 * - `argument_mismatch`: an executed call's error is an argument or
 *   type/value error (`isArgumentError`);
 * - `recovery_failure`: (a) a tool error is not followed, later in the same
 *   turn, by an error-free call of the same tool, or (b) the turn failed
 *   (SEAL tag other than `pass`, `correct_abstention`, `checker_error`,
 *   `gt_error`) after error feedback (a tool error or an invalid tool call).
 */
function fineTagsOf({
  tag,
  evidence,
  toolErrors,
}: {
  tag: FailureTag;
  evidence: TurnEvidence;
  toolErrors: readonly ToolErrorEvidence[];
}): FineTag[] {
  const invalid = evidence.parseErrors > 0 || evidence.refusedCalls > 0;
  const fineTags: FineTag[] = [];
  if (invalid) fineTags.push('invalid_tool_call');
  if (toolErrors.some((error) => error.argumentError))
    fineTags.push('argument_mismatch');
  const unrecovered = toolErrors.some((error) => !error.recovered);
  const failedAfterError =
    !notFailed.has(tag) && (toolErrors.length > 0 || invalid);
  if (unrecovered || failedAfterError) fineTags.push('recovery_failure');
  return fineTags;
}

/**
 * Diagnoses one episode. Per ground-truth turn: SEAL's tag, copied unchanged
 * from the verification (so SEAL's numbers never depend on anything here),
 * and the finer tags derived from the record's event stream (see the fine
 * tag rules on `fineTagsOf` in the source and in `docs/architecture/diagnose.md`).
 * Per episode: the reward, success (reward ≥ 1), the dominant tag and SEAL's
 * trajectory diagnostics.
 *
 * Throws a SealError `INVALID_DATA` when the record or the verification does
 * not match its schema (naming the field), and `INVALID_ARGUMENT` when the
 * verification belongs to another task or episode.
 */
export function diagnoseEpisode(
  options: DiagnoseEpisodeOptions,
): EpisodeDiagnosis {
  checkInputs(options);
  const { record, verification } = options;
  const reward = options.reward ?? verification.rewards.binary;
  const evidenceByTurn = collectEvidence(record);
  const reachedTurns = new Set(record.turns.map((turn) => turn.turn));
  const empty: TurnEvidence = {
    parseErrors: 0,
    refusedCalls: 0,
    executions: [],
  };

  const turns: TurnDiagnosis[] = verification.turns.map(({ turn, tag }) => {
    const evidence = evidenceByTurn.get(turn) ?? empty;
    const toolErrors = toolErrorsOf(evidence.executions);
    return {
      turn,
      tag,
      fineTags: fineTagsOf({ tag, evidence, toolErrors }),
      reached: reachedTurns.has(turn),
      parseErrors: evidence.parseErrors,
      refusedCalls: evidence.refusedCalls,
      executedCalls: evidence.executions.length,
      toolErrors,
    };
  });

  const warnings: SealWarning[] = [];
  const scored = new Set(verification.turns.map((turn) => turn.turn));
  const unscored = [...evidenceByTurn.keys()].filter(
    (turn) => !scored.has(turn),
  );
  if (unscored.length > 0) {
    warnings.push({
      type: 'other',
      message: `the record has turns ${unscored.join(', ')} beyond the verified ground-truth turns; their events were not diagnosed`,
    });
  }

  const errors: string[] = [];
  for (const event of record.events) {
    if (event.type === 'parse-error' || event.type === 'call-rejected')
      errors.push(event.message.slice(0, errorTextLimit));
  }
  for (const turn of turns) {
    for (const toolError of turn.toolErrors)
      errors.push(toolError.error.slice(0, errorTextLimit));
  }

  return {
    schemaVersion: 1,
    episodeId: record.episodeId,
    taskId: record.taskId,
    category: record.category,
    verifierId: verification.verifierId,
    reward,
    success: reward >= 1,
    dominantTag: dominantCapabilityTag(turns.map((turn) => turn.tag)),
    turns,
    trajectory: diagnoseTrajectory(record),
    errors,
    warnings,
  };
}
