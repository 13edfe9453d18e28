import { formatPoints, heldOutGains, type HeldOutGain } from '@seal/rl';
import type { EvalEvent } from '@seal/spec';

/** Where the pooled, multi-seed figures are recorded (and the command that makes them). */
export const pooledFiguresPointer =
  'pooled figures (seeds 1–5, crossed two-way intervals, t over seeds, MDE) are recorded in bench/RESULTS.md (`pnpm bench learning`)';

const percent = (value: number) => `${(100 * value).toFixed(1)}%`;

function verdict(gain: HeldOutGain): string {
  return gain.estimate.low > 0
    ? 'above 0'
    : gain.estimate.high < 0
      ? 'below 0'
      : 'includes 0';
}

/**
 * The lines `seal train` leads its summary with: greedy pass@1 before →
 * after on each held-out set with its 95% interval, labelled as one seed's;
 * sampled pass@1 beside it, saying what its temperatures compare (the warm
 * start is sampled at T = 1, not at a temperature chosen for it, so the
 * figure is not temperature-matched); the learned logit scale as the
 * temperature it is, when the run learned one; and where the pooled figures
 * are. Pure: the caller reads the run.
 */
export function summaryHeadline({
  evaluations,
  seed,
  logitScaleLine,
}: {
  evaluations: readonly EvalEvent[];
  /** The run's RL seed. */
  seed: number;
  /** The learned logit scale, worded by `logitScaleLine` (train.ts), if the run learned one. */
  logitScaleLine?: string;
}): string[] {
  const gains = heldOutGains({ evaluations });
  const lines: string[] = [];
  const greedy = gains.filter((gain) => gain.measure === 'greedy');
  const sampled = gains.filter((gain) => gain.measure === 'sampled');
  const width = Math.max(0, ...gains.map((gain) => gain.set.length));
  if (greedy.length > 0) {
    lines.push(
      `greedy pass@1 (the primary measure), one seed (RL seed ${seed}), step ${greedy[0]!.fromStep} → ${greedy[0]!.toStep}:`,
    );
    for (const gain of greedy)
      lines.push(
        `  ${gain.set.padEnd(width)}  ${percent(gain.meanBefore)} → ${percent(gain.meanAfter)}  ${formatPoints(gain.estimate)} points, 95% CI ${verdict(gain)} (paired bootstrap over ${gain.tasks} tasks; one seed)`,
      );
  }
  if (sampled.length > 0) {
    const first = sampled[0]!;
    const temperatures = first.temperatures;
    lines.push(
      `sampled pass@1 beside it, ${first.samples ?? 0} samples, ${temperatures ? `sampled at T=${temperatures.after} vs warm start at T=${temperatures.before} (not temperature-matched)` : 'sampling temperatures not recorded'}:`,
    );
    for (const gain of sampled)
      lines.push(
        `  ${gain.set.padEnd(width)}  ${percent(gain.meanBefore)} → ${percent(gain.meanAfter)}  ${formatPoints(gain.estimate)} points, 95% CI ${verdict(gain)} (one seed)`,
      );
  }
  if (logitScaleLine) lines.push(logitScaleLine);
  if (gains.length > 0)
    lines.push(`these are one seed's figures; ${pooledFiguresPointer}`);
  return lines;
}

/**
 * The learned logit scale in words: multiplying the final norm's gain by s
 * (tied head, no bias) is sampling the warm start's logits at temperature
 * 1/s, so it is reported as that temperature and not counted as learning
 * (decision 0038, issue 44).
 */
export function formatLogitScale({
  scale,
  step,
}: {
  scale: number;
  step: number;
}): string {
  return `learned logit scale ×${scale.toFixed(3)} = sampling temperature ${(1 / scale).toFixed(2)} of the warm start's logits (the final norm's gain, step 0 → ${step}); not counted as learning`;
}
