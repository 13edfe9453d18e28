import { readdir, rename, rm } from 'node:fs/promises';
import type {
  PolicyV1,
  RollbackEvent,
  TrainerState,
  TrainStepEvent,
} from '@seal/spec';
import type { TrainConfig } from '../config/train-config';
import type { RunDirectory } from '../run/run-directory';
import { observeGap } from './gap-monitor';
import { untimed, type ModelClock } from './step-clock';
import type { TrainProgress, TrainSummary } from './train-types';

/**
 * The gap monitor's best weights: those of its best step in
 * `best-<step>` (`best-000000`: the starting weights), written before the
 * checkpoint that records it, so a resumed run finds the best its state
 * names.
 */
export class BestWeights {
  constructor(
    private readonly run: RunDirectory,
    private readonly policy: PolicyV1,
    private readonly clock: ModelClock,
  ) {}

  /** The directory of step `step`'s best weights. */
  path(step: number): string {
    return this.run.path(`best-${String(step).padStart(6, '0')}`);
  }

  /** Saves the policy's weights as step `step`'s best (not counted as model time). */
  async save(step: number): Promise<void> {
    const temporary = `${this.path(step)}.tmp-${process.pid}`;
    await rm(temporary, { recursive: true, force: true });
    await untimed(this.clock, () => this.policy.save({ directory: temporary }));
    await rm(this.path(step), { recursive: true, force: true });
    await rename(temporary, this.path(step));
  }

  /** Removes every best but step `keep`'s. */
  async prune(keep: number): Promise<void> {
    for (const name of await readdir(this.run.path('.'))) {
      if (
        /^best-\d{6}/.test(name) &&
        name !== `best-${String(keep).padStart(6, '0')}`
      ) {
        await rm(this.run.path(name), { recursive: true, force: true });
      }
    }
  }
}

/**
 * The gap monitor after a step: the paired gain over the frozen warm start
 * on this step's tasks and seeds decides whether to keep the weights (a new
 * best is saved) or restore the best ones (a rollback event; with a
 * checkpoint due, the step's checkpoint is rewritten with the restored
 * weights). Returns the state with the monitor's new state.
 */
export async function watchGap({
  step,
  event,
  state,
  config,
  best,
  policy,
  clock,
  run,
  checkpointDue,
  summary,
  onProgress,
}: {
  step: number;
  event: TrainStepEvent;
  state: TrainerState;
  config: TrainConfig;
  best: BestWeights;
  policy: PolicyV1;
  clock: ModelClock;
  run: RunDirectory;
  checkpointDue: boolean;
  summary: TrainSummary;
  onProgress: ((progress: TrainProgress) => void) | undefined;
}): Promise<TrainerState> {
  if (
    !config.gapMonitor ||
    !state.gapMonitor ||
    event.baselineSuccessRate === undefined
  ) {
    return state;
  }
  const observed = observeGap({
    state: state.gapMonitor,
    step,
    gain: event.successRate - event.baselineSuccessRate,
    settings: config.gapMonitor,
  });
  const next = { ...state, gapMonitor: observed.state };
  if (observed.decision.action === 'continue' && observed.decision.newBest) {
    await best.save(step);
  } else if (observed.decision.action === 'rollback') {
    const { toStep } = observed.decision;
    await untimed(clock, () => policy.load({ directory: best.path(toStep) }));
    const rollback: RollbackEvent = {
      schemaVersion: 1,
      type: 'rollback',
      step,
      toStep,
      windowGain: observed.decision.windowGain,
      learningRate:
        config.ppo.learningRate * observed.decision.learningRateScale,
    };
    await run.appendJsonLines(run.file('events'), [rollback]);
    summary.rollbacks.push(rollback);
    onProgress?.({ type: 'rollback', event: rollback });
    if (checkpointDue) {
      // The checkpoint of this step holds the restored weights.
      await policy.save({ directory: run.checkpointPath(step) });
    }
  }
  return next;
}
