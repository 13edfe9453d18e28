import {
  createEpisode,
  type EpisodeLimits,
  type PromptMode,
  type ProtocolName,
} from '@seal/env';
import type { Task, ToolBackendV1, VerifierV1 } from '@seal/spec';
import { trajectoryFromRecord } from '@seal/verifier';
import type {
  PackEnvironment,
  PackSolveEpisode,
} from '../environment/pack-environment';
import {
  bfclPackRegularity,
  createAliasedBackend,
  createBfclPackAliases,
  describeBfclRegularity,
} from './bfcl-pack-regularity';

/** Settings of {@link createBfclPackEnvironment}. */
export type BfclPackSettings = {
  /** Executes the documented calls (`createBfclBackend` of `@seal/bfcl`). */
  backend: ToolBackendV1;
  /** Checks each solve episode (`createBfclVerifier` of `@seal/verifier`). */
  verifier: VerifierV1;
  /** Tool-call protocol. Default `bfcl-python`. */
  protocol?: ProtocolName;
  /** How tool docs are rendered. Default `compact`. */
  promptMode?: PromptMode;
  /** Model calls per task. Default 12. */
  maxModelCalls?: number;
  /** Further episode limits. */
  limits?: Omit<EpisodeLimits, 'maxModelCalls'>;
};

/** The taskset of a BFCL task: its involved classes (pack tasks share their tools). */
export function bfclTasksetId(task: Task): string {
  return task.backend.involvedClasses.join('+');
}

/**
 * BFCL-backed packs: each pack's deployment spells tool and argument names
 * its own way ({@link bfclPackRegularity}), while the tool docs the model
 * reads stay the documented ones. The model finds the spelling by trying
 * (the errors name what this deployment accepts), notes it, and reuses it on
 * the pack's later tasks. Calls run on the BFCL executor after translation,
 * and every task is checked by the BFCL verifier on the translated
 * trajectory: outcome 1 when BFCL's official check passes.
 */
export function createBfclPackEnvironment(
  settings: BfclPackSettings,
): PackEnvironment<Task> {
  const maxModelCalls = settings.maxModelCalls ?? 12;
  return {
    environmentId: 'bfcl-aliases',
    taskId: (task) => task.id,
    tasksetId: bfclTasksetId,
    describeRegularity: (packSeed) =>
      describeBfclRegularity(bfclPackRegularity(packSeed)),
    startSolve({ task, packSeed, episodeId }): PackSolveEpisode {
      const regularity = bfclPackRegularity(packSeed);
      const episode = createEpisode({
        task,
        backend: createAliasedBackend({
          backend: settings.backend,
          regularity,
        }),
        protocol: settings.protocol ?? 'bfcl-python',
        promptMode: settings.promptMode ?? 'compact',
        mode: 'eval',
        // The deployment's names differ from the docs: the aliased backend checks them.
        enforceAvailableTools: false,
        limits: { ...settings.limits, maxModelCalls },
        episodeId,
      });
      return {
        reset: () => episode.reset(),
        step(response) {
          const result = episode.step(response);
          return { observation: result.observation, done: result.done };
        },
        get done() {
          return episode.done;
        },
        abort: (reason) => episode.abort(reason),
        async finish() {
          const record = episode.record();
          const aliases = createBfclPackAliases({
            tools: task.tools,
            regularity,
          });
          // Calls the deployment refused ran nothing: leave them out of the replay.
          const trajectory = trajectoryFromRecord(record).map((turn) =>
            turn
              .map((step) =>
                step.flatMap((call) => {
                  const canonical = aliases.toCanonical(call);
                  return canonical.success ? [canonical.callText] : [];
                }),
              )
              .filter((step) => step.length > 0),
          );
          const verdict = await settings.verifier.verify({ task, trajectory });
          const success = verdict.official.valid;
          const failedTurn = verdict.official.failedTurn;
          const feedback = success
            ? 'Success! Every turn passed the state and result checks'
            : `Failed${failedTurn === undefined ? '' : ` at turn ${failedTurn + 1}`}: ${verdict.official.errorType ?? 'the checks did not pass'}`;
          return {
            outcome: success ? 1 : 0,
            success,
            feedback,
            stepsUsed: record.modelCalls,
            maxSteps: maxModelCalls,
            record,
          };
        },
      };
    },
  };
}
