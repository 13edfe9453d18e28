import type { EpisodeDiagnosis, EnvironmentEpisodeRecord } from '@seal/spec';

/**
 * What is known about one episode's outcome. Run directories record episodes
 * without their verdicts, so the outcome is derived by re-verifying the
 * episode against its task, which only the caller can supply (BFCL data, the
 * task generator, a tasks file): `diagnosed` when that worked, `unavailable`
 * with the reason otherwise.
 */
export type EpisodeAssessment =
  | {
      type: 'diagnosed';
      /** SEAL's per-turn tags, fine tags, reward and trajectory diagnostics. */
      diagnosis: EpisodeDiagnosis;
      /** The task's ground-truth calls per turn, when known. */
      groundTruth?: readonly (readonly string[])[];
    }
  | { type: 'unavailable'; reason: string };

/**
 * Derives an episode's verdict and tags (for example: find the task, verify
 * the record, diagnose it). Must not throw: failures are `unavailable`.
 */
export type EpisodeDiagnoser = (options: {
  record: EnvironmentEpisodeRecord;
}) => EpisodeAssessment;
