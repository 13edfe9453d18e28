import { SealError, type PackRunRecord, type PackRunSolve } from '@seal/spec';
import type { PromptFormat } from '../hints/hint-section';
import {
  serializeTrajectory,
  type SerializeTrajectoryOptions,
  type SolveTrajectory,
} from '../hints/serialize-trajectory';
import { createPackRandom, mixSeed } from '../packs/pack-random';
import {
  derivedFacts,
  extractClaims,
  extractTrajectoryFacts,
  factId,
  type ReadinessFactKind,
} from './readiness-facts';
import { readinessWilsonInterval } from './wilson-interval';

/** The readiness bar: a CoD setting is ready when its policy restates at least this fraction. */
export const readinessBar = 0.8;

/** One update-context episode, as the readiness check reads it. */
export type ReadinessUpdate = {
  /** `frozen-lake-obscure` or `bfcl-aliases`. */
  environmentId: string;
  /** What the policy wrote after seeing the trajectory (the raw update response). */
  response: string;
  /** The hints it was shown with the trajectory: claims also stated there are carried, not counted. */
  previousHints: string;
  /** The trajectory it was shown, serialised as the update prompt shows it. */
  shown: string;
  /** A trajectory it was not shown (the chance control), serialised the same way; absent when there is none. */
  control?: string;
};

/** A proportion with its Wilson 95% interval; `fraction` is null when there are no claims. */
export type ReadinessProportion = {
  restated: number;
  claims: number;
  fraction: number | null;
  interval: [number, number];
};

/** The result of {@link measureReadiness}. */
export type ReadinessResult = {
  /** Update episodes read. */
  updates: number;
  /** Updates whose response states at least one counted fact. */
  updatesWithClaims: number;
  /** Claims left out because the previous hints state the same fact, or it follows from them and the trajectory together. */
  carried: number;
  /** Counted claims that state a fact of the trajectory shown. */
  measured: ReadinessProportion;
  /** The same claims against the control trajectories (updates that have one); null when none has. */
  chance: ReadinessProportion | null;
  /** Per fact kind: claims, restated against the shown trajectory, and against the control. */
  byKind: Partial<
    Record<
      ReadinessFactKind,
      {
        claims: number;
        restated: number;
        chanceClaims: number;
        chanceRestated: number;
      }
    >
  >;
  /** The bar ({@link readinessBar}). */
  bar: number;
  /** Whether `measured.fraction` ≥ `bar` (false when there are no claims). */
  ready: boolean;
  /** Why a figure is missing or weak, in words. */
  warnings: string[];
};

function proportion(restated: number, claims: number): ReadinessProportion {
  return {
    restated,
    claims,
    fraction: claims === 0 ? null : restated / claims,
    interval: readinessWilsonInterval({ successes: restated, total: claims }),
  };
}

/**
 * How often the facts an update-context response states are facts of the
 * trajectory it was shown, against chance.
 *
 * Each response is read into claims ({@link extractClaims}: a move, a
 * position, a direction mapping, a tool or argument name, a literal value).
 * A claim whose fact the previous hints already state is carried over, not
 * read off the trajectory, and one that follows only from the previous
 * hints and the trajectory together ({@link derivedFacts}) is an inference:
 * both are left out of both figures. Every other
 * claim counts once: `measured` is the fraction whose fact is among the
 * facts of the trajectory shown ({@link extractTrajectoryFacts}); `chance`
 * is the fraction of the same claims whose fact is among the facts of the
 * control trajectory, one the policy was not shown. Both are pooled over
 * the updates (claims, not updates, are the unit), with Wilson 95%
 * intervals. An empty list, responses that state nothing, or updates
 * without controls give null fractions and a warning, never NaN.
 */
export function measureReadiness({
  updates,
  bar = readinessBar,
}: {
  updates: readonly ReadinessUpdate[];
  bar?: number;
}): ReadinessResult {
  if (!(bar >= 0 && bar <= 1))
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `the readiness bar is a fraction in [0, 1], got ${bar}`,
    });
  let restated = 0;
  let claims = 0;
  let chanceRestated = 0;
  let chanceClaims = 0;
  let carried = 0;
  let updatesWithClaims = 0;
  let withControl = 0;
  const byKind: ReadinessResult['byKind'] = {};
  for (const update of updates) {
    const { environmentId } = update;
    const previous = new Set(
      extractClaims({ environmentId, text: update.previousHints }).map(factId),
    );
    const shown = extractTrajectoryFacts({ environmentId, text: update.shown });
    const derived = derivedFacts({
      environmentId,
      previousHints: update.previousHints,
      shown: update.shown,
    });
    const control =
      update.control === undefined
        ? undefined
        : extractTrajectoryFacts({ environmentId, text: update.control });
    if (control !== undefined) withControl++;
    let counted = 0;
    for (const claim of extractClaims({
      environmentId,
      text: update.response,
    })) {
      const id = factId(claim);
      if (previous.has(id) || derived.has(id)) {
        carried++;
        continue;
      }
      counted++;
      const kind = (byKind[claim.kind] ??= {
        claims: 0,
        restated: 0,
        chanceClaims: 0,
        chanceRestated: 0,
      });
      claims++;
      kind.claims++;
      if (shown.has(id)) {
        restated++;
        kind.restated++;
      }
      if (control !== undefined) {
        chanceClaims++;
        kind.chanceClaims++;
        if (control.has(id)) {
          chanceRestated++;
          kind.chanceRestated++;
        }
      }
    }
    if (counted > 0) updatesWithClaims++;
  }
  const warnings: string[] = [];
  if (updates.length === 0) warnings.push('no update-context episodes to read');
  else if (claims === 0)
    warnings.push(
      `none of the ${updates.length} update responses states a fact of the kind the environment defines (or all were carried from the previous hints)`,
    );
  if (updates.length > 0 && withControl === 0)
    warnings.push(
      'no control trajectory (it needs two packs or more of one environment): chance is not measured',
    );
  else if (withControl < updates.length)
    warnings.push(
      `${updates.length - withControl} of ${updates.length} updates have no control trajectory: chance is measured on the others`,
    );
  const measured = proportion(restated, claims);
  return {
    updates: updates.length,
    updatesWithClaims,
    carried,
    measured,
    chance: withControl === 0 ? null : proportion(chanceRestated, chanceClaims),
    byKind,
    bar,
    ready: measured.fraction !== null && measured.fraction >= bar,
    warnings,
  };
}

/**
 * The trajectory of a recorded solve as the update-context episode read it:
 * the system prompt, one step per assistant message (the observation is the
 * user and tool messages since the previous one), and the messages after the
 * last action as the final observation when the episode finished (one cut
 * by the context limit shows none, as in the loop).
 */
export function solveTrajectoryFromRecord(
  solve: PackRunSolve,
): SolveTrajectory {
  const [system, ...rest] = solve.messages;
  const steps: { observation: string; action: string }[] = [];
  let pending: string[] = [];
  for (const message of rest) {
    if (message.role === 'assistant') {
      steps.push({ observation: pending.join('\n'), action: message.content });
      pending = [];
    } else pending.push(message.content);
  }
  const finalObservation = pending.join('\n');
  return {
    systemPrompt: system?.content ?? '',
    steps,
    ...(solve.endReason === 'finished' && finalObservation.length > 0
      ? { finalObservation }
      : {}),
    reward: solve.reward,
    feedback: solve.feedback,
  };
}

/**
 * The update-context episodes of recorded pack runs, each with the
 * trajectory it was shown and a chance control.
 *
 * The control of an update is a trajectory of another pack of the same
 * environment, which the pack run never showed the policy (not in its
 * prompt, not in its hints): the packs of each environment are put in one
 * random cycle drawn from `seed` (Sattolo's algorithm, so no pack maps to
 * itself), and the update after position p of run r of pack P is paired
 * with the solve at position p (modulo the pack's length) of run r (modulo
 * its runs) of the next pack in the cycle. With one pack of an environment
 * there is no control. Deterministic for a seed.
 */
export function readinessUpdatesFromPackRuns({
  records,
  seed,
  format,
  serialize,
}: {
  records: readonly PackRunRecord[];
  seed: number;
  /** The prompt format the runs used (default `paper`). */
  format?: PromptFormat;
  /** Further limits the loop serialised its trajectories with. */
  serialize?: SerializeTrajectoryOptions;
}): ReadinessUpdate[] {
  const options: SerializeTrajectoryOptions = {
    ...serialize,
    ...(format === undefined ? {} : { format }),
  };
  const shownText = (solve: PackRunSolve) =>
    serializeTrajectory({
      trajectory: solveTrajectoryFromRecord(solve),
      options,
    });
  // Pack runs by environment, then by pack, in the order they appear.
  const byEnvironment = new Map<string, Map<string, PackRunRecord[]>>();
  for (const record of records) {
    const packs =
      byEnvironment.get(record.environmentId) ??
      new Map<string, PackRunRecord[]>();
    byEnvironment.set(record.environmentId, packs);
    const runs = packs.get(record.packId) ?? [];
    packs.set(record.packId, [...runs, record]);
  }
  const controlPack = new Map<string, PackRunRecord[]>();
  for (const [environmentId, packs] of byEnvironment) {
    const ids = [...packs.keys()];
    if (ids.length < 2) continue;
    const random = createPackRandom(
      mixSeed(seed, ids.length, environmentId.length),
    );
    const cycle = [...ids];
    // Sattolo: a uniformly random cyclic permutation (no fixed point).
    for (let i = cycle.length - 1; i > 0; i--) {
      const j = random.int(i);
      [cycle[i], cycle[j]] = [cycle[j]!, cycle[i]!];
    }
    cycle.forEach((id, index) =>
      controlPack.set(
        `${environmentId}\u0000${id}`,
        packs.get(cycle[(index + 1) % cycle.length]!)!,
      ),
    );
  }
  const updates: ReadinessUpdate[] = [];
  for (const record of records) {
    const controlRuns = controlPack.get(
      `${record.environmentId}\u0000${record.packId}`,
    );
    for (const update of record.updates) {
      const solve = record.solves[update.afterPosition];
      if (solve === undefined)
        throw new SealError({
          code: 'INVALID_DATA',
          message: `pack run ${record.packRunId} has an update after position ${update.afterPosition} but no solve there`,
        });
      const controlRun =
        controlRuns === undefined
          ? undefined
          : controlRuns[record.runIndex % controlRuns.length]!;
      const controlSolve =
        controlRun === undefined
          ? undefined
          : controlRun.solves[update.afterPosition % controlRun.solves.length]!;
      updates.push({
        environmentId: record.environmentId,
        response: update.response,
        previousHints: update.previousHints,
        shown: shownText(solve),
        ...(controlSolve === undefined
          ? {}
          : { control: shownText(controlSolve) }),
      });
    }
  }
  return updates;
}
