import type { EpisodeRecord } from '../../episode/v1/episode-record';
import type { Task } from '../../task/v1/task';
import type { VerifierV1Result } from './verifier-v1-result';

/** What to verify: an episode record, or a decoded trajectory (turn → step → call strings). */
export type VerifierV1CallOptions =
  | { task: Task; record: EpisodeRecord; trajectory?: undefined }
  | { task: Task; trajectory: string[][][]; record?: undefined };

/**
 * Executable verification: replays the ground truth on shadow instances and
 * produces BFCL's official verdict, SEAL's per-turn verdicts and the rewards
 * in one pass. Verifying one episode never touches another's state.
 */
export type VerifierV1 = {
  readonly specificationVersion: 'v1';
  /** Identifies the implementation and its version (stamped on samples). */
  readonly verifierId: string;
  verify(options: VerifierV1CallOptions): PromiseLike<VerifierV1Result>;
  /**
   * The same verification, synchronously: optional, for verifiers whose work
   * is plain computation (the BFCL verifier is). Consumers on a hot path (the
   * training loop, the environment service) ask for a {@link SyncVerifierV1}.
   */
  verifySync?(options: VerifierV1CallOptions): VerifierV1Result;
};

/** A {@link VerifierV1} that offers the synchronous form. */
export type SyncVerifierV1 = VerifierV1 & {
  verifySync(options: VerifierV1CallOptions): VerifierV1Result;
};
