import { PyRandom } from '@seal/python';
import type { TrainConfig } from '../config/train-config';
import { zeroVarianceGroups } from '../advantages/grpo';
import { deriveSeed } from '../rollout/run-rollouts';

/*
 * DAPO's dynamic sampling (`TrainConfig.dynamicSampling`): a step's groups
 * that carry no gradient are left out of the update and replaced by fresh
 * groups of further training tasks until the step holds as many groups that
 * carry gradient as it scheduled, within a cap on rounds of draws.
 *
 * The further tasks come from a seeded order of the pool fixed by the run's
 * seed and the step alone, drawn from its front, and each round samples with
 * a seed of its own: a step redone after a resume draws the same tasks with
 * the same seeds, so it replays the uninterrupted run.
 */

/** Dynamic sampling as a run applies it; `undefined` when it is off. */
export type DynamicSampling = {
  /** Rounds of fresh draws per step (0: groups without gradient are only dropped). */
  maxRefillRounds: number;
  /** The step's event records the refill (the settings form; not the earlier `true`). */
  recorded: boolean;
};

/** Reads `config.dynamicSampling` (false, the earlier `true`, or the settings object). */
export function dynamicSamplingOf(
  config: Pick<TrainConfig, 'dynamicSampling'>,
): DynamicSampling | undefined {
  const setting = config.dynamicSampling;
  if (setting === false) return undefined;
  if (setting === true) return { maxRefillRounds: 0, recorded: false };
  if (!setting.enabled) return undefined;
  return { maxRefillRounds: setting.maxRefillRounds, recorded: true };
}

/** Salt of the refill streams' seeds (task order and sampling). */
const refillSalt = 0xd5a1;

/**
 * The further tasks step `step` may draw from, in the order they are drawn:
 * the pool without the step's scheduled tasks, in a seeded shuffle fixed by
 * the run's seed and the step (not by what earlier steps drew).
 */
export function refillStream<T extends { readonly id: string }>({
  seed,
  step,
  pool,
  scheduled,
}: {
  seed: number;
  step: number;
  pool: readonly T[];
  /** The step's scheduled tasks, never drawn again. */
  scheduled: readonly T[];
}): T[] {
  const taken = new Set(scheduled.map((task) => task.id));
  const rest = pool.filter((task) => !taken.has(task.id));
  return new PyRandom(BigInt(deriveSeed(seed, refillSalt, step))).shuffle(rest);
}

/** The sampling seed of a step's rollouts: round 0 the scheduled batch, round r ≥ 1 the r-th refill. */
export function stepSamplingSeed({
  seed,
  step,
  round,
}: {
  seed: number;
  step: number;
  round: number;
}): number {
  return round === 0
    ? deriveSeed(seed, step)
    : deriveSeed(seed, step, refillSalt, round);
}

/** What the refill reads of a round's rollouts. */
export type GroupOutcomes = {
  /** The group (task) of each rollout. */
  groups: readonly string[];
  /** Each rollout's reward. */
  rewards: readonly number[];
  /** Per rollout, each turn's verdict (read under turn-level credit). */
  turnRewards: readonly (readonly number[])[];
};

/** The groups of `outcomes` that carry gradient (see {@link zeroVarianceGroups}). */
export function gradientGroups(
  outcomes: GroupOutcomes,
  { turnCredit }: { turnCredit: boolean },
): string[] {
  const flat = zeroVarianceGroups({
    rewards: outcomes.rewards,
    groups: outcomes.groups,
    ...(turnCredit ? { turnRewards: outcomes.turnRewards } : {}),
  });
  return [...new Set(outcomes.groups)].filter((group) => !flat.has(group));
}

/** A step's rollouts after the refill. */
export type RefilledBatch<O> = {
  /** The scheduled batch's outcomes, then each refill round's. */
  parts: O[];
  /** Groups drawn beyond the scheduled batch. */
  refilledGroups: number;
  /** Rounds of fresh draws. */
  rounds: number;
  /** Groups that carry gradient, over all parts. */
  gradientGroups: number;
};

/**
 * Tops up a step's batch: while fewer than `target` groups carry gradient,
 * draws as many further tasks as are missing from the front of `stream` and
 * rolls them out (`draw`, one round each), at most `maxRefillRounds` rounds
 * and never beyond the stream's end. The step then trains on what it has.
 */
export async function refillBatch<T, O extends GroupOutcomes>({
  first,
  target,
  stream,
  maxRefillRounds,
  turnCredit,
  draw,
}: {
  /** The scheduled batch's outcomes. */
  first: O;
  /** Groups that carry gradient the step wants: as many as it scheduled. */
  target: number;
  /** Further tasks, drawn from the front ({@link refillStream}). */
  stream: readonly T[];
  maxRefillRounds: number;
  /** Turn-level credit is on: a group whose turn verdicts differ carries gradient. */
  turnCredit: boolean;
  /** Rolls out `tasks` (refill round `round`, from 1) and verifies them. */
  draw: (tasks: T[], round: number) => Promise<O>;
}): Promise<RefilledBatch<O>> {
  const parts: O[] = [first];
  let useful = gradientGroups(first, { turnCredit }).length;
  let next = 0;
  let rounds = 0;
  while (useful < target && rounds < maxRefillRounds && next < stream.length) {
    const tasks = stream.slice(next, next + (target - useful));
    next += tasks.length;
    rounds += 1;
    const outcomes = await draw(tasks, rounds);
    parts.push(outcomes);
    useful += gradientGroups(outcomes, { turnCredit }).length;
  }
  return { parts, refilledGroups: next, rounds, gradientGroups: useful };
}
