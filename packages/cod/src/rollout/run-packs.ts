import type { PackRunRecord } from '@seal/spec';
import { openPackRunFile } from './pack-run-file';
import {
  runPackRuns,
  type PackRunResult,
  type RunPackRunsOptions,
} from './run-pack-runs';

/** Options of {@link runPacks}: those of {@link runPackRuns} over many packs. */
export type RunPacksOptions<TTask> = Omit<RunPackRunsOptions<TTask>, 'pack'> & {
  packs: RunPackRunsOptions<TTask>['pack'][];
  /**
   * A JSON Lines file of pack runs: complete packs found there are reused
   * (resume at pack boundaries), new ones are appended as they finish.
   */
  file?: string;
  /** Called after each pack with its records and whether they came from the file. */
  onPack?: (info: {
    packIndex: number;
    records: PackRunRecord[];
    resumed: boolean;
  }) => void;
};

/** What {@link runPacks} returns, in pack order. */
export type RunPacksResult = {
  /** Every pack run, pack by pack. */
  records: PackRunRecord[];
  /** Token data of the pack runs generated now (not of resumed ones). */
  results: PackRunResult[];
  /** Packs taken from the file. */
  resumedPacks: number;
};

/**
 * Runs packs one after another ({@link runPackRuns} each), appending every
 * finished pack to `file`. A killed run resumes at the last complete pack:
 * its runs are read back, the pack that was cut is run again from its start,
 * and since each pack's rollouts depend only on the seed, the pack and the
 * weights (the policy's cache is emptied before each pack), the result is the
 * same as an uninterrupted run.
 */
export async function runPacks<TTask>(
  options: RunPacksOptions<TTask>,
): Promise<RunPacksResult> {
  const { packs, file, onPack, ...rest } = options;
  const store =
    file === undefined
      ? undefined
      : openPackRunFile({ path: file, groupSize: options.groupSize });
  const records: PackRunRecord[] = [];
  const results: PackRunResult[] = [];
  let resumedPacks = 0;
  for (const pack of packs) {
    const done = store?.completed.get(pack.packId);
    if (done !== undefined) {
      records.push(...done);
      resumedPacks++;
      onPack?.({ packIndex: pack.packIndex, records: done, resumed: true });
      continue;
    }
    // Each pack starts from an empty cache, as a resumed run does: cached
    // prefixes change the rounding of later prefills.
    await rest.policy.resetCache?.();
    const runs = await runPackRuns({ ...rest, pack });
    const packRecords = runs.map((run) => run.record);
    store?.appendPack(packRecords);
    records.push(...packRecords);
    results.push(...runs);
    onPack?.({
      packIndex: pack.packIndex,
      records: packRecords,
      resumed: false,
    });
  }
  return { records, results, resumedPacks };
}
