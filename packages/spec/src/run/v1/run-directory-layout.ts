/**
 * The names of what a training run writes in its directory (see
 * docs/architecture/run-records.md for the schema of each). Writers and
 * readers join these names; none spells them out again.
 *
 * - `config.json`: the resolved configuration (`runConfigSchema`);
 * - `events.jsonl`: one `runEventSchema` line per step, evaluation or event;
 * - `overlays.jsonl`: one `overlayLineSchema` line per step;
 * - `tasks.jsonl`: the run's tasks, one per line;
 * - `capability_state.json`: the failure profile;
 * - `episodes/`: `step-NNNNNN.jsonl`, `baseline-NNNNNN.jsonl` and
 *   `eval-NNNNNN-<set>.jsonl`, one `episodeRecordSchema` per line;
 * - `checkpoints/`: `step-NNNNNN/` (the policy and its `trainer-state.json`,
 *   `trainerStateSchema`) and `latest.json` (`latestCheckpointSchema`);
 * - `packs/`: Connect the Dots' pack-run files.
 */
export const runDirectoryLayout = {
  config: 'config.json',
  events: 'events.jsonl',
  overlays: 'overlays.jsonl',
  tasks: 'tasks.jsonl',
  capabilityState: 'capability_state.json',
  episodes: 'episodes',
  checkpoints: 'checkpoints',
  /** In `checkpoints/`. */
  latestCheckpoint: 'latest.json',
  /** In each `checkpoints/step-NNNNNN/`. */
  trainerState: 'trainer-state.json',
  packs: 'packs',
} as const;

/** The zero-padded step of a run file's name (`step-000012`). */
export function runStepName(step: number): string {
  return String(step).padStart(6, '0');
}
