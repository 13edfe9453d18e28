import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  SealError,
  capabilityStateRecordSchema,
  codRunConfigSchema,
  evalEventSchema,
  overlayLineSchema,
  parseJsonText,
  rollbackEventSchema,
  runConfigSchema,
  runDirectoryLayout,
  safeParseWithSchema,
  stageEventSchema,
  trainStepEventSchema,
  validationEventSchema,
  type CapabilityStateRecord,
  type CodRunConfig,
  type EvalEvent,
  type OverlayLine,
  type PackRunRecord,
  type RollbackEvent,
  type RunConfig,
  type SealWarning,
  type StageEvent,
  type TrainStepEvent,
  type ValidationEvent,
} from '@seal/spec';
import { codArmsFileName, codArmsSchema, type CodArms } from './cod-arms';
import { listEpisodeFiles, type EpisodeFile } from './episode-files';
import {
  listPackRunFiles,
  readPackRuns,
  type PackRunFile,
} from './pack-run-files';
import { readJsonLines } from './read-json-lines';

/** Everything a report needs from a run directory, parsed. */
export type RunData = {
  /** The run directory (absolute). */
  root: string;
  /** `config.json`, when present (its raw JSON in `rawConfig`): an RL run's or a Connect the Dots run's. */
  config?: RunConfig | CodRunConfig;
  rawConfig?: unknown;
  /** Training-step events by step (the last record wins for a step recorded twice). */
  steps: TrainStepEvent[];
  /** Evaluation events by step, then set. */
  evaluations: EvalEvent[];
  /** `overlays.jsonl`, by step. */
  overlays: OverlayLine[];
  /** Environment Tuning's stage changes and validations, by step (empty for other methods). */
  stages: StageEvent[];
  validations: ValidationEvent[];
  /** Gap-monitor rollbacks, by step (empty without the monitor). */
  rollbacks: RollbackEvent[];
  /** `capability_state.json`, when present. */
  capability?: CapabilityStateRecord;
  /** The files of `episodes/`. */
  episodeFiles: EpisodeFile[];
  /** Connect the Dots: the files of `packs/` with their pack runs (empty for other methods). */
  packRuns: { file: PackRunFile; records: PackRunRecord[] }[];
  /** Connect the Dots: `cod-arms.json`, the comparison of arms a benchmark left here, when present. */
  codArms?: CodArms;
  /** What was skipped or missing. */
  warnings: SealWarning[];
};

const hasType =
  (type: string) =>
  (value: unknown): boolean =>
    typeof value === 'object' &&
    value !== null &&
    (value as { type?: unknown }).type === type;

async function readJsonFile(path: string): Promise<unknown> {
  return parseJsonText({ text: await readFile(path, 'utf8'), source: path });
}

/** Keeps the last record per key, in key order. */
function lastByKey<T>(
  values: readonly T[],
  key: (value: T) => string | number,
): T[] {
  const byKey = new Map<string | number, T>();
  for (const value of values) byKey.set(key(value), value);
  return [...byKey.values()];
}

/**
 * Reads a training run directory (see `@seal/rl`'s `RunDirectory`): the
 * config, step and evaluation events, overlays, the capability state and the
 * list of episode files; for a Connect the Dots run (`seal train --method
 * cod`), the pack runs of `packs/`. Missing optional files and skipped lines
 * become warnings.
 *
 * Throws a SealError `FILE_NOT_FOUND` when the directory does not exist or
 * holds none of `events.jsonl`, `config.json` and pack-run files.
 */
export async function readRunDirectory({
  runDirectory,
}: {
  runDirectory: string;
}): Promise<RunData> {
  const root = resolve(runDirectory);
  const eventsPath = join(root, runDirectoryLayout.events);
  const configPath = join(root, runDirectoryLayout.config);
  const packFiles = await listPackRunFiles(root);
  if (
    !existsSync(eventsPath) &&
    !existsSync(configPath) &&
    packFiles.length === 0
  ) {
    throw new SealError({
      code: 'FILE_NOT_FOUND',
      message: existsSync(root)
        ? `${root} is not a run directory (no events.jsonl, config.json or packs/)`
        : `run directory not found: ${root}`,
      details: { file: root },
    });
  }
  const warnings: SealWarning[] = [];
  const data: RunData = {
    root,
    steps: [],
    evaluations: [],
    overlays: [],
    stages: [],
    validations: [],
    rollbacks: [],
    episodeFiles: await listEpisodeFiles(root),
    packRuns: [],
    warnings,
  };
  for (const file of packFiles) {
    const { values, warnings: skipped } = await readPackRuns({
      runDirectory: root,
      file,
    });
    warnings.push(...skipped);
    data.packRuns.push({ file, records: values });
  }

  if (existsSync(configPath)) {
    try {
      const raw = await readJsonFile(configPath);
      // A Connect the Dots run records its own settings (`method: 'cod'`).
      const cod =
        typeof raw === 'object' &&
        raw !== null &&
        'method' in raw &&
        raw.method === 'cod';
      const parsed = cod
        ? safeParseWithSchema({
            schema: codRunConfigSchema,
            value: raw,
            source: configPath,
          })
        : safeParseWithSchema({
            schema: runConfigSchema,
            value: raw,
            source: configPath,
          });
      data.rawConfig = raw;
      if (parsed.success) data.config = parsed.value;
      else warnings.push({ type: 'other', message: parsed.error.message });
    } catch (error) {
      warnings.push({ type: 'other', message: (error as Error).message });
    }
  } else {
    warnings.push({ type: 'other', message: 'config.json is missing' });
  }

  if (existsSync(eventsPath)) {
    const steps = await readJsonLines({
      path: eventsPath,
      schema: trainStepEventSchema,
      accept: hasType('train-step'),
    });
    const evaluations = await readJsonLines({
      path: eventsPath,
      schema: evalEventSchema,
      accept: hasType('eval'),
    });
    // Both passes see the same torn or malformed lines; report them once.
    warnings.push(...steps.warnings);
    for (const warning of evaluations.warnings) {
      if (
        !steps.warnings.some(
          (seen) => JSON.stringify(seen) === JSON.stringify(warning),
        )
      )
        warnings.push(warning);
    }
    data.steps = lastByKey(steps.values, (event) => event.step).sort(
      (a, b) => a.step - b.step,
    );
    data.evaluations = lastByKey(
      evaluations.values,
      (event) => `${event.step}\u0000${event.set}`,
    ).sort((a, b) => a.step - b.step || a.set.localeCompare(b.set));
    const stages = await readJsonLines({
      path: eventsPath,
      schema: stageEventSchema,
      accept: hasType('stage'),
    });
    const validations = await readJsonLines({
      path: eventsPath,
      schema: validationEventSchema,
      accept: hasType('validation'),
    });
    for (const warning of [...stages.warnings, ...validations.warnings]) {
      if (
        !warnings.some(
          (seen) => JSON.stringify(seen) === JSON.stringify(warning),
        )
      )
        warnings.push(warning);
    }
    data.stages = lastByKey(stages.values, (event) => event.step).sort(
      (a, b) => a.step - b.step,
    );
    data.validations = lastByKey(
      validations.values,
      (event) => event.step,
    ).sort((a, b) => a.step - b.step);
    const rollbacks = await readJsonLines({
      path: eventsPath,
      schema: rollbackEventSchema,
      accept: hasType('rollback'),
    });
    for (const warning of rollbacks.warnings) {
      if (
        !warnings.some(
          (seen) => JSON.stringify(seen) === JSON.stringify(warning),
        )
      )
        warnings.push(warning);
    }
    data.rollbacks = lastByKey(rollbacks.values, (event) => event.step).sort(
      (a, b) => a.step - b.step,
    );
  } else if (packFiles.length === 0) {
    // Connect the Dots runs record their steps as pack runs, not events.
    warnings.push({ type: 'other', message: 'events.jsonl is missing' });
  }

  const overlaysPath = join(root, runDirectoryLayout.overlays);
  if (existsSync(overlaysPath)) {
    const overlays = await readJsonLines({
      path: overlaysPath,
      schema: overlayLineSchema,
    });
    warnings.push(...overlays.warnings);
    data.overlays = lastByKey(overlays.values, (line) => line.step).sort(
      (a, b) => a.step - b.step,
    );
  }

  const codArmsPath = join(root, codArmsFileName);
  if (existsSync(codArmsPath)) {
    try {
      const parsed = safeParseWithSchema({
        schema: codArmsSchema,
        value: await readJsonFile(codArmsPath),
        source: codArmsPath,
      });
      if (parsed.success) data.codArms = parsed.value;
      else warnings.push({ type: 'other', message: parsed.error.message });
    } catch (error) {
      warnings.push({ type: 'other', message: (error as Error).message });
    }
  }

  const capabilityPath = join(root, runDirectoryLayout.capabilityState);
  if (existsSync(capabilityPath)) {
    try {
      const parsed = safeParseWithSchema({
        schema: capabilityStateRecordSchema,
        value: await readJsonFile(capabilityPath),
        source: capabilityPath,
      });
      if (parsed.success) data.capability = parsed.value;
      else warnings.push({ type: 'other', message: parsed.error.message });
    } catch (error) {
      warnings.push({ type: 'other', message: (error as Error).message });
    }
  }
  return data;
}
