import {
  SealError,
  capabilityStateRecordSchema,
  safeParseWithSchema,
  type CapabilityBuckets,
  type CapabilitySnapshot,
  type CapabilityStateRecord,
  type CapabilityStats,
  type CapabilityStatsSnapshot,
  type EpisodeDiagnosis,
  type SafeParseResult,
  type TaskCapability,
} from '@seal/spec';
import { dominantTag, unknownTag } from './dominant-tag';
import { inferTaskCategory } from './task-category';
import { turnPosition } from './turn-position';

/** What one trajectory contributes to the capability state. */
export type CapabilityObservation = {
  /** The task category; default: inferred from `taskId` (SEAL's `infer_task_category`). */
  category?: string;
  /** The task id; without one, no per-task entry is kept. */
  taskId?: string;
  /** The trajectory's reward (SEAL: the binary official verdict). */
  reward: number;
  /** Whether it succeeded; default `reward >= 1`. */
  success?: boolean;
  /**
   * SEAL's tag per ground-truth turn. Missing and empty entries are dropped;
   * if none remain the trajectory counts one `unknown` tag.
   */
  tags: readonly (string | null | undefined)[] | null | undefined;
  /** Fine tags per turn (counted apart from `tags`, never mixed in). */
  fineTags?: readonly (readonly string[])[];
  /** Error strings of the trajectory, for the window's top-error list. */
  errors?: readonly string[];
  /** The epoch, stamped as `lastEpoch`. */
  epoch?: number | string;
  /** The training step, stamped as `lastStep`. */
  step?: number;
};

/** Which copy of the counters to read. */
export type CapabilityScope = 'total' | 'window';

/** One family of counters. */
export type CapabilityBucketName = keyof CapabilityBuckets;

/** Separator of combined keys (`category::tag`, `position::tag`), as SEAL packs them. */
export const capabilityKeySeparator = '::';

/** SEAL's error strings are counted by their first 200 characters. */
const errorTextLimit = 200;
const topErrorCount = 20;

type StatsMap = Map<string, CapabilityStats>;
type InternalBuckets = Record<CapabilityBucketName, StatsMap>;
type InternalTask = Omit<TaskCapability, 'tagCounts'> & {
  tagCounts: Map<string, number>;
};

const bucketNames: readonly CapabilityBucketName[] = [
  'categories',
  'tags',
  'categoryTags',
  'turnPositions',
  'fineTags',
];

// Keys come from data (task ids, error texts): Maps keep `__proto__` and
// friends ordinary keys; records are built only with Object.fromEntries.
function toMap<T>(record: Record<string, T> | undefined): Map<string, T> {
  return new Map(Object.entries(record ?? {}));
}

function copyStats(stats: CapabilityStats): CapabilityStats {
  return {
    count: stats.count,
    success: stats.success,
    rewardSum: stats.rewardSum,
    partialCount: stats.partialCount,
  };
}

function statsMapFrom(
  record: Record<string, CapabilityStats> | undefined,
): StatsMap {
  return new Map(
    Object.entries(record ?? {}).map(([key, stats]) => [key, copyStats(stats)]),
  );
}

function taskFromRecord(task: TaskCapability): InternalTask {
  return {
    taskId: task.taskId,
    category: task.category,
    count: task.count,
    success: task.success,
    rewardSum: task.rewardSum,
    lastReward: task.lastReward,
    lastSuccess: task.lastSuccess,
    lastTag: task.lastTag,
    tagCounts: toMap(task.tagCounts),
    lastStep: task.lastStep,
  };
}

function bucketsFromRecord(
  record: CapabilityBuckets | undefined,
): InternalBuckets {
  return {
    categories: statsMapFrom(record?.categories),
    tags: statsMapFrom(record?.tags),
    categoryTags: statsMapFrom(record?.categoryTags),
    turnPositions: statsMapFrom(record?.turnPositions),
    fineTags: statsMapFrom(record?.fineTags),
  };
}

function bucketsToRecord(buckets: InternalBuckets): CapabilityBuckets {
  const out = {} as CapabilityBuckets;
  for (const name of bucketNames) {
    out[name] = Object.fromEntries(
      [...buckets[name]].map(([key, stats]) => [key, copyStats(stats)]),
    );
  }
  return out;
}

function taskToRecord(task: InternalTask): TaskCapability {
  return { ...task, tagCounts: Object.fromEntries(task.tagCounts) };
}

function bump(
  bucket: StatsMap,
  key: string,
  reward: number,
  success: boolean,
): void {
  let stats = bucket.get(key);
  if (!stats) {
    stats = { count: 0, success: 0, rewardSum: 0, partialCount: 0 };
    bucket.set(key, stats);
  }
  stats.count += 1;
  stats.success += success ? 1 : 0;
  stats.rewardSum += reward;
  stats.partialCount += reward > 0 && reward < 1 ? 1 : 0;
}

/** A counter with its rates: `successRate` and `rewardMean` (0 when empty). */
export function statsSnapshot(stats: CapabilityStats): CapabilityStatsSnapshot {
  return {
    count: stats.count,
    success: stats.success,
    successRate: stats.count > 0 ? stats.success / stats.count : 0,
    rewardMean: stats.count > 0 ? stats.rewardSum / stats.count : 0,
    partialCount: stats.partialCount,
  };
}

function snapshotMap(
  bucket: StatsMap,
): Record<string, CapabilityStatsSnapshot> {
  return Object.fromEntries(
    [...bucket].map(([key, stats]) => [key, statsSnapshot(stats)]),
  );
}

/** Joins a category or position with a tag: `multi_turn_base::state_mismatch`. */
export function packCapabilityKey({
  prefix,
  tag,
}: {
  prefix: string;
  tag: string;
}): string {
  return `${prefix}${capabilityKeySeparator}${tag}`;
}

/** Splits a combined key at its first `::`; a key without one has tag `unknown` (SEAL). */
export function unpackCapabilityKey(key: string): {
  prefix: string;
  tag: string;
} {
  const cut = key.indexOf(capabilityKeySeparator);
  if (cut < 0) return { prefix: key, tag: unknownTag };
  return {
    prefix: key.slice(0, cut),
    tag: key.slice(cut + capabilityKeySeparator.length),
  };
}

/**
 * Validates a capability state read from disk: a `schemaVersion` other than
 * 1 gives `UNSUPPORTED_SPEC_VERSION`; anything else that does not match the
 * schema gives `INVALID_DATA` naming the field.
 */
export function safeParseCapabilityStateRecord({
  value,
  source,
}: {
  value: unknown;
  source?: string;
}): SafeParseResult<CapabilityStateRecord> {
  if (
    typeof value === 'object' &&
    value !== null &&
    'schemaVersion' in value &&
    value.schemaVersion !== 1
  ) {
    const version = String((value as { schemaVersion: unknown }).schemaVersion);
    return {
      success: false,
      error: new SealError({
        code: 'UNSUPPORTED_SPEC_VERSION',
        message: `${source === undefined ? '' : `${source}: `}capability state schemaVersion ${version} is not supported (expected 1)`,
        details: {
          ...(source === undefined ? {} : { source }),
          schemaVersion: version,
        },
      }),
    };
  }
  const result = safeParseWithSchema({
    schema: capabilityStateRecordSchema,
    value,
    source,
  });
  // zod rebuilds records by assignment, which turns a `__proto__` key (a task
  // id or error text is data) into a prototype; once validated, the JSON
  // value itself is kept, and the state copies only the fields it knows.
  return result.success
    ? { success: true, value: value as CapabilityStateRecord }
    : result;
}

/** Like {@link safeParseCapabilityStateRecord} but throws the SealError. */
export function parseCapabilityStateRecord(options: {
  value: unknown;
  source?: string;
}): CapabilityStateRecord {
  const result = safeParseCapabilityStateRecord(options);
  if (!result.success) throw result.error;
  return result.value;
}

/**
 * SEAL's capability state C_t (`TOCFCapabilityState`): counters
 * {count, success, rewardSum, partialCount} by category, tag,
 * `category::tag`, `position::tag` and fine tag, in an all-time ("total") and
 * a per-window copy, plus per-task memory and the RL loop's dynamic tag
 * weights.
 *
 * Counting rule: a category counts once per trajectory; a tag once per
 * occurrence (per turn), each occurrence adding the trajectory's reward, so a
 * trajectory with three `state_mismatch` turns and reward r adds 3 to that
 * tag's `count` and 3·r to its `rewardSum`. Success is `reward >= 1`.
 * The state is pure and in memory; `saveCapabilityState` and
 * `loadCapabilityState` persist it.
 */
export class CapabilityState {
  private total: InternalBuckets;
  private window: InternalBuckets;
  private readonly tasks: Map<string, InternalTask>;
  private weights: Map<string, number>;
  private windowErrors: Map<string, number>;
  private lastEpoch: number | string | null;
  private lastStep: number | null;
  private observations: number;

  /** An empty state, or one restored from a validated record (copied). */
  constructor(record?: CapabilityStateRecord) {
    this.total = bucketsFromRecord(record?.total);
    this.window = bucketsFromRecord(record?.window);
    this.tasks = new Map(
      Object.entries(record?.tasks ?? {}).map(([id, task]) => [
        id,
        taskFromRecord(task),
      ]),
    );
    this.weights = toMap(record?.dynamicTagWeights);
    this.windowErrors = toMap(record?.windowErrors);
    this.lastEpoch = record?.lastEpoch ?? null;
    this.lastStep = record?.lastStep ?? null;
    this.observations = record?.observeCount ?? 0;
  }

  /** Restores a state from untrusted JSON (see {@link parseCapabilityStateRecord}). */
  static fromJSON({
    value,
    source,
  }: {
    value: unknown;
    source?: string;
  }): CapabilityState {
    return new CapabilityState(parseCapabilityStateRecord({ value, source }));
  }

  /** Trajectories observed in total. */
  get observeCount(): number {
    return this.observations;
  }

  /**
   * Records one trajectory in both copies and returns its dominant tag
   * (SEAL's `observe`).
   */
  observe(observation: CapabilityObservation): string {
    const tags = (observation.tags ?? []).filter(
      (tag): tag is string => typeof tag === 'string' && tag !== '',
    );
    if (tags.length === 0) tags.push(unknownTag);
    const dominant = dominantTag(tags);
    const category =
      observation.category || inferTaskCategory(observation.taskId);
    const { reward } = observation;
    const success = observation.success ?? reward >= 1;

    this.lastEpoch = observation.epoch ?? null;
    this.lastStep = observation.step ?? null;
    this.observations++;

    for (const buckets of [this.total, this.window]) {
      bump(buckets.categories, category, reward, success);
      tags.forEach((tag, index) => {
        bump(buckets.tags, tag, reward, success);
        bump(
          buckets.categoryTags,
          packCapabilityKey({ prefix: category, tag }),
          reward,
          success,
        );
        const position = turnPosition({ index, total: tags.length });
        bump(
          buckets.turnPositions,
          packCapabilityKey({ prefix: position, tag }),
          reward,
          success,
        );
      });
      for (const turnFineTags of observation.fineTags ?? []) {
        for (const fineTag of turnFineTags)
          bump(buckets.fineTags, fineTag, reward, success);
      }
    }

    for (const error of observation.errors ?? []) {
      const key = error.slice(0, errorTextLimit);
      this.windowErrors.set(key, (this.windowErrors.get(key) ?? 0) + 1);
    }

    const taskId = observation.taskId ?? '';
    if (taskId !== '') {
      let task = this.tasks.get(taskId);
      if (!task) {
        task = {
          taskId,
          category,
          count: 0,
          success: 0,
          rewardSum: 0,
          lastReward: 0,
          lastSuccess: false,
          lastTag: unknownTag,
          tagCounts: new Map(),
          lastStep: null,
        };
        this.tasks.set(taskId, task);
      }
      task.category = category;
      task.count += 1;
      task.success += success ? 1 : 0;
      task.rewardSum += reward;
      task.lastReward = reward;
      task.lastSuccess = success;
      task.lastTag = dominant;
      task.lastStep = observation.step ?? null;
      for (const tag of tags)
        task.tagCounts.set(tag, (task.tagCounts.get(tag) ?? 0) + 1);
    }
    return dominant;
  }

  /** Observes an {@link EpisodeDiagnosis}: its SEAL tags, fine tags, reward and errors. */
  observeDiagnosis({
    diagnosis,
    epoch,
    step,
  }: {
    diagnosis: EpisodeDiagnosis;
    epoch?: number | string;
    step?: number;
  }): string {
    return this.observe({
      category: diagnosis.category,
      taskId: diagnosis.taskId,
      reward: diagnosis.reward,
      success: diagnosis.success,
      tags: diagnosis.turns.map((turn) => turn.tag),
      fineTags: diagnosis.turns.map((turn) => turn.fineTags),
      errors: diagnosis.errors,
      ...(epoch === undefined ? {} : { epoch }),
      ...(step === undefined ? {} : { step }),
    });
  }

  /** Clears the window copy and its error counts (SEAL: at every epoch end). */
  resetWindow(): void {
    this.window = bucketsFromRecord(undefined);
    this.windowErrors = new Map();
  }

  /** The counters of one family (copies). */
  stats({
    scope,
    bucket,
  }: {
    scope: CapabilityScope;
    bucket: CapabilityBucketName;
  }): Record<string, CapabilityStats> {
    return bucketsToRecord(scope === 'total' ? this.total : this.window)[
      bucket
    ];
  }

  /**
   * The tag counters the closed loop reads (SEAL §4.4 and §5.4): the window's,
   * or the total's when the window is empty (copies).
   */
  activeTagStats(): Record<string, CapabilityStats> {
    return this.stats({
      scope: this.window.tags.size > 0 ? 'window' : 'total',
      bucket: 'tags',
    });
  }

  /** The per-task entry (a copy), if the task was observed. */
  task(taskId: string): TaskCapability | undefined {
    const task = this.tasks.get(taskId);
    return task === undefined ? undefined : taskToRecord(task);
  }

  /** SEAL's `dynamic_tag_weights`: ρ_t per tag, as the RL loop last stored them (a copy). */
  get dynamicTagWeights(): Record<string, number> {
    return Object.fromEntries(this.weights);
  }

  /** Stores the RL loop's current tag weights (persisted with the state). */
  setDynamicTagWeights(weights: Readonly<Record<string, number>>): void {
    for (const [tag, weight] of Object.entries(weights)) {
      if (!Number.isFinite(weight)) {
        throw new SealError({
          code: 'INVALID_ARGUMENT',
          message: `dynamic tag weight for ${tag} is not a finite number (${weight})`,
          details: { tag },
        });
      }
    }
    this.weights = toMap(weights);
  }

  /** The window's error strings with counts, most common first (ties: first seen). */
  topErrors(limit = topErrorCount): [string, number][] {
    // Array.prototype.sort is stable, so equal counts keep insertion order.
    return [...this.windowErrors].sort((a, b) => b[1] - a[1]).slice(0, limit);
  }

  /**
   * One copy with derived rates (`successRate`, `rewardMean`), the tasks, the
   * weights and the window's 20 most common errors: SEAL's per-epoch dump.
   */
  snapshot({
    scope = 'window',
  }: { scope?: CapabilityScope } = {}): CapabilitySnapshot {
    const buckets = scope === 'total' ? this.total : this.window;
    return {
      schemaVersion: 1,
      scope,
      epoch: this.lastEpoch,
      globalStep: this.lastStep,
      categories: snapshotMap(buckets.categories),
      tags: snapshotMap(buckets.tags),
      categoryTags: snapshotMap(buckets.categoryTags),
      turnPositions: snapshotMap(buckets.turnPositions),
      fineTags: snapshotMap(buckets.fineTags),
      tasks: Object.fromEntries(
        [...this.tasks].map(([id, task]) => [id, taskToRecord(task)]),
      ),
      dynamicTagWeights: Object.fromEntries(this.weights),
      topErrors: this.topErrors(),
    };
  }

  /** The persisted form (a copy), `schemaVersion: 1`. */
  toJSON(): CapabilityStateRecord {
    return {
      schemaVersion: 1,
      total: bucketsToRecord(this.total),
      window: bucketsToRecord(this.window),
      tasks: Object.fromEntries(
        [...this.tasks].map(([id, task]) => [id, taskToRecord(task)]),
      ),
      dynamicTagWeights: Object.fromEntries(this.weights),
      windowErrors: Object.fromEntries(this.windowErrors),
      lastEpoch: this.lastEpoch,
      lastStep: this.lastStep,
      observeCount: this.observations,
    };
  }
}

/** Creates an empty {@link CapabilityState}. */
export function createCapabilityState(): CapabilityState {
  return new CapabilityState();
}
