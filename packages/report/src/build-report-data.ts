import {
  failureTagSchema,
  taskCategorySchema,
  type CapabilityStats,
  type InterfaceOverlay,
  type PackRunRecord,
} from '@seal/spec';
import type { RunData } from './read-run-directory';
import type {
  CurriculumStageSpan,
  OverlaySummary,
  PackPositionCurve,
  ReportData,
  Series,
  TrainingCategories,
} from './report-data';

/** The outcome of one re-verified training episode. */
export type TrainingOutcome = {
  step: number;
  category: string;
  success: boolean;
};

/** Options of {@link buildReportData}. */
export type BuildReportDataOptions = {
  run: RunData;
  /**
   * Outcomes of re-verified training episodes, for the per-category training
   * charts; absent when the episodes could not be verified (`reason` says why).
   */
  training?:
    | {
        outcomes: TrainingOutcome[];
        unavailable: number;
        unavailableReasons: string[];
      }
    | { reason: string };
  /** The report's timestamp (default: now). */
  now?: Date;
};

const value = (number: number | null | undefined): number | null =>
  typeof number === 'number' && Number.isFinite(number) ? number : null;

/** Known names first in their canonical order, then the rest alphabetically. */
function ordered(
  names: Iterable<string>,
  canonical: readonly string[],
): string[] {
  const set = new Set(names);
  return [
    ...canonical.filter((name) => set.has(name)),
    ...[...set].filter((name) => !canonical.includes(name)).sort(),
  ];
}

function rates(
  stats: Record<string, CapabilityStats>,
): Record<string, { count: number; successRate: number; rewardMean: number }> {
  return Object.fromEntries(
    Object.entries(stats).map(([key, s]) => [
      key,
      {
        count: s.count,
        successRate: s.count === 0 ? 0 : s.success / s.count,
        rewardMean: s.count === 0 ? 0 : s.rewardSum / s.count,
      },
    ]),
  );
}

function patchList(overlay: InterfaceOverlay): OverlaySummary['toolPatches'] {
  return Object.entries(overlay.toolPatches)
    .map(([tool, patch]) => ({
      tool,
      ...(patch.description === undefined
        ? {}
        : { description: patch.description }),
      parameters: patch.parameters,
      hide: patch.hide,
    }))
    .sort((a, b) => a.tool.localeCompare(b.tool));
}

/** Lines of `after` not in `before`, and the reverse. */
function lineChanges(
  before: string,
  after: string,
): { added: string[]; removed: string[] } {
  const old = before.split('\n');
  const now = after.split('\n');
  return {
    added: now.filter((line) => !old.includes(line)),
    removed: old.filter((line) => !now.includes(line)),
  };
}

/** Human-readable differences between two overlays (system notes line by line, the rest by id). */
function overlayChanges(
  previous: InterfaceOverlay,
  next: InterfaceOverlay,
): string[] {
  const changes: string[] = [];
  const notes = (overlay: InterfaceOverlay) => {
    const bySource = new Map<string, string>();
    for (const note of overlay.systemNotes)
      bySource.set(
        note.source,
        bySource.has(note.source)
          ? `${bySource.get(note.source)}\n${note.text}`
          : note.text,
      );
    return bySource;
  };
  const before = notes(previous);
  const after = notes(next);
  for (const [source, text] of after) {
    const old = before.get(source);
    if (old === undefined) changes.push(`+ ${source} note: ${text}`);
    else if (old !== text) {
      const { added, removed } = lineChanges(old, text);
      for (const line of added) changes.push(`+ ${source}: ${line}`);
      for (const line of removed) changes.push(`− ${source}: ${line}`);
    }
  }
  for (const source of before.keys())
    if (!after.has(source)) changes.push(`− ${source} note`);
  const lists: [string, string[], string[]][] = [
    [
      'tool patches',
      Object.keys(previous.toolPatches),
      Object.keys(next.toolPatches),
    ],
    ['parse-error hints', previous.parseErrorHints, next.parseErrorHints],
    [
      'error hints',
      previous.errorHints.map((hint) => hint.id),
      next.errorHints.map((hint) => hint.id),
    ],
    [
      'error rewrites',
      previous.errorRewrites.map((rewrite) => rewrite.id),
      next.errorRewrites.map((rewrite) => rewrite.id),
    ],
    ['categories', previous.categories, next.categories],
  ];
  for (const [what, old, now] of lists) {
    const added = now.filter((item) => !old.includes(item));
    const removed = old.filter((item) => !now.includes(item));
    if (added.length > 0) changes.push(`+ ${what}: ${added.join(', ')}`);
    if (removed.length > 0) changes.push(`− ${what}: ${removed.join(', ')}`);
  }
  if (changes.length === 0 && JSON.stringify(previous) !== JSON.stringify(next))
    changes.push('wording of existing entries');
  return changes;
}

/**
 * Environment Tuning's stage timeline: from the stage events (each ends the
 * stage it leaves after its step), or, for runs recorded before them, from
 * the stage of each training step. Null when the run has no curriculum.
 */
function buildCurriculum(run: RunData): ReportData['curriculum'] {
  const stepStages = run.steps.filter((event) => event.curriculumStage);
  if (
    run.stages.length === 0 &&
    run.validations.length === 0 &&
    stepStages.length === 0
  )
    return null;
  const stages: CurriculumStageSpan[] = [];
  const lastStep = run.steps.at(-1)?.step ?? 0;
  if (run.stages.length > 0) {
    let fromStep = 1;
    for (const change of run.stages) {
      stages.push({
        name: change.from,
        fromStep,
        toStep: change.step,
        endedBy: change.reason ?? null,
        endValidation: change.validation ?? null,
      });
      fromStep = change.step + 1;
    }
    stages.push({
      name: run.stages.at(-1)!.to,
      fromStep,
      toStep: null,
      endedBy: null,
      endValidation: null,
    });
  } else {
    for (const event of stepStages) {
      const current = stages.at(-1);
      if (current && current.name === event.curriculumStage)
        current.toStep = event.step;
      else
        stages.push({
          name: event.curriculumStage!,
          fromStep: event.step,
          toStep: event.step,
          endedBy: null,
          endValidation: null,
        });
    }
    if (stages.length > 0) stages.at(-1)!.toStep = null;
  }
  // The stage the run ended in spans to its last recorded step.
  const open = stages.at(-1);
  if (open && open.fromStep <= lastStep) open.toStep = lastStep;
  return {
    stages,
    validation: {
      steps: run.validations.map((event) => event.step),
      accuracy: run.validations.map((event) => value(event.accuracy)),
      stage: run.validations.map((event) => event.stage ?? null),
      tasks: run.validations[0]?.tasks ?? null,
    },
  };
}

function buildOverlays(run: RunData): ReportData['overlays'] {
  const overlays: OverlaySummary[] = [];
  const byHash = new Map<string, OverlaySummary>();
  const segments: ReportData['overlays']['segments'] = [];
  let previous: InterfaceOverlay | undefined;
  for (const line of run.overlays) {
    let summary = byHash.get(line.hash);
    if (!summary) {
      summary = {
        index: overlays.length + 1,
        hash: line.hash,
        steps: [],
        systemNotes: line.overlay.systemNotes.map((note) => ({
          source: note.source,
          text: note.text,
        })),
        toolPatches: patchList(line.overlay),
        parseErrorHints: [...line.overlay.parseErrorHints],
        errorHints: line.overlay.errorHints.map((hint) => ({
          id: hint.id,
          hint: hint.hint,
        })),
        errorRewrites: line.overlay.errorRewrites.map((rewrite) => ({
          id: rewrite.id,
          replacement: rewrite.replacement,
        })),
        categories: [...line.overlay.categories],
        changes: previous ? overlayChanges(previous, line.overlay) : [],
      };
      byHash.set(line.hash, summary);
      overlays.push(summary);
    }
    summary.steps.push(line.step);
    const last = segments.at(-1);
    if (last && last.hash === line.hash && last.toStep === line.step - 1)
      last.toStep = line.step;
    else
      segments.push({
        overlay: summary.index,
        hash: line.hash,
        fromStep: line.step,
        toStep: line.step,
      });
    previous = line.overlay;
  }
  return { segments, overlays };
}

function trainingCategories(
  steps: number[],
  names: string[],
  outcomes: TrainingOutcome[],
): TrainingCategories {
  const successRate: Record<string, Series> = {};
  const episodes: Record<string, Series> = {};
  for (const category of names) {
    successRate[category] = steps.map(() => null);
    episodes[category] = steps.map(() => 0);
  }
  const index = new Map(steps.map((step, i) => [step, i]));
  const solved: Record<string, number[]> = Object.fromEntries(
    names.map((name) => [name, steps.map(() => 0)]),
  );
  for (const outcome of outcomes) {
    const i = index.get(outcome.step);
    if (i === undefined) continue;
    episodes[outcome.category]![i] = (episodes[outcome.category]![i] ?? 0) + 1;
    if (outcome.success) solved[outcome.category]![i]! += 1;
  }
  for (const category of names) {
    successRate[category] = episodes[category]!.map((count, i) =>
      count ? solved[category]![i]! / count : null,
    );
  }
  return { source: 'diagnosis', steps, successRate, episodes };
}

/** Success and reward per pack position over some pack runs. */
function positionCurve(
  records: readonly PackRunRecord[],
): PackPositionCurve['positions'] {
  const totals: { runs: number; successes: number; reward: number }[] = [];
  for (const record of records) {
    for (const solve of record.solves) {
      const entry = (totals[solve.position] ??= {
        runs: 0,
        successes: 0,
        reward: 0,
      });
      entry.runs++;
      if (solve.success) entry.successes++;
      entry.reward += solve.reward;
    }
  }
  // A position no run reached (a sparse array slot) counts as zero runs.
  return Array.from(
    totals,
    (entry = { runs: 0, successes: 0, reward: 0 }, position) => ({
      position,
      runs: entry.runs,
      successRate: entry.runs === 0 ? 0 : entry.successes / entry.runs,
      rewardMean: entry.runs === 0 ? 0 : entry.reward / entry.runs,
    }),
  );
}

/** Connect the Dots: the position curves per file and the fate of the hint blocks. */
function buildPacks(run: RunData): ReportData['packs'] {
  if (run.packRuns.length === 0 && run.codArms === undefined) return null;
  const curves = run.packRuns.map(({ file, records }) => ({
    file: file.name,
    kind: file.kind,
    step: file.step,
    packRuns: records.length,
    strategies: [...new Set(records.map((record) => record.strategy))],
    positions: positionCurve(records),
  }));
  const updates = run.packRuns.flatMap(({ records }) =>
    records.flatMap((record) => record.updates),
  );
  const parsed = updates.filter((update) => update.parsed);
  const failures: Record<string, number> = {};
  for (const update of updates) {
    if (!update.parsed)
      failures[update.failure ?? 'unknown'] =
        (failures[update.failure ?? 'unknown'] ?? 0) + 1;
  }
  // `Hints: <block>`: the block is what the model wrote.
  const blockLength = (hints: string) => hints.replace(/^Hints: /, '').length;
  return {
    evaluations: curves.filter((curve) => curve.kind === 'eval'),
    arms: run.codArms ?? null,
    training: curves.filter((curve) => curve.kind === 'train'),
    hints: {
      updates: updates.length,
      parsed: parsed.length,
      failures,
      meanLength:
        parsed.length === 0
          ? null
          : parsed.reduce((sum, update) => sum + blockLength(update.hints), 0) /
            parsed.length,
    },
  };
}

/**
 * Turns a parsed run directory into the report's data: learning curves,
 * evaluation by set and category, tag counts, the overlay timeline and the
 * ρ history. Pure; what the run did not record is `null` or absent.
 */
export function buildReportData({
  run,
  training,
  now = new Date(),
}: BuildReportDataOptions): ReportData {
  const steps = run.steps.map((event) => event.step);
  const categoryNames = ordered(
    [
      ...run.evaluations.flatMap((event) =>
        Object.keys(event.categories ?? {}),
      ),
      ...Object.keys(run.capability?.total.categories ?? {}),
      ...(training && 'outcomes' in training
        ? training.outcomes.map((outcome) => outcome.category)
        : []),
    ],
    taskCategorySchema.options,
  );
  const tagNames = ordered(
    [
      ...run.steps.flatMap((event) => Object.keys(event.tagCounts ?? {})),
      ...run.evaluations.flatMap((event) => Object.keys(event.tagCounts ?? {})),
      ...Object.keys(run.capability?.total.tags ?? {}),
    ],
    failureTagSchema.options,
  );
  const rhoTags = ordered(
    run.steps.flatMap((event) => Object.keys(event.tagWeights ?? {})),
    failureTagSchema.options,
  );

  const setNames = [...new Set(run.evaluations.map((event) => event.set))];
  const sets = setNames.map((name) => {
    const events = run.evaluations.filter((event) => event.set === name);
    const setCategories = ordered(
      events.flatMap((event) => Object.keys(event.categories ?? {})),
      categoryNames,
    );
    const setTags = ordered(
      events.flatMap((event) => Object.keys(event.tagCounts ?? {})),
      tagNames,
    );
    return {
      name,
      steps: events.map((event) => event.step),
      accuracy: events.map((event) => value(event.accuracy)),
      overall: events.map((event) => value(event.overall)),
      categories: Object.fromEntries(
        setCategories.map((category) => [
          category,
          events.map((event) => value(event.categories?.[category]?.accuracy)),
        ]),
      ),
      tagCounts: Object.fromEntries(
        setTags.map((tag) => [
          tag,
          events.map((event) => event.tagCounts?.[tag] ?? 0),
        ]),
      ),
    };
  });

  let categoriesTraining: TrainingCategories;
  if (training === undefined)
    categoriesTraining = {
      source: 'absent',
      reason: 'training episodes were not re-verified',
    };
  else if ('reason' in training)
    categoriesTraining = { source: 'absent', reason: training.reason };
  else if (training.outcomes.length === 0) {
    categoriesTraining = {
      source: 'absent',
      reason:
        training.unavailableReasons[0] ??
        'no training episodes were recorded (keepEpisodes off?)',
    };
  } else
    categoriesTraining = trainingCategories(
      steps,
      categoryNames,
      training.outcomes,
    );

  const capability = run.capability;
  const categoryTotals: Record<string, Record<string, number>> | null =
    capability
      ? Object.entries(capability.total.categoryTags).reduce<
          Record<string, Record<string, number>>
        >((out, [key, stats]) => {
          const separator = key.indexOf('::');
          if (separator < 0) return out;
          const category = key.slice(0, separator);
          (out[category] ??= {})[key.slice(separator + 2)] = stats.count;
          return out;
        }, {})
      : null;

  const trainFiles = run.episodeFiles.filter(
    (file) => file.kind === 'train',
  ).length;
  return {
    schemaVersion: 1,
    generatedAt: now.toISOString(),
    run: {
      directory: run.root,
      runId: run.config?.runId ?? null,
      method: run.config?.method ?? run.steps[0]?.method ?? null,
      seed: run.config?.seed ?? null,
      configuredSteps: run.config?.steps ?? null,
      // Connect the Dots runs record a step as a pack-run file, not an event.
      completedSteps:
        run.steps.length > 0
          ? run.steps.length
          : run.packRuns.filter(({ file }) => file.kind === 'train').length,
      config: run.rawConfig ?? null,
    },
    training: {
      steps,
      rewardMean: run.steps.map((event) => value(event.rewardMean)),
      successRate: run.steps.map((event) => value(event.successRate)),
      loss: run.steps.map((event) => value(event.loss)),
      kl: run.steps.map((event) => value(event.kl)),
      gradNorm: run.steps.map((event) => value(event.gradNorm)),
      clipFraction: run.steps.map((event) => value(event.clipFraction)),
      stepSeconds: run.steps.map((event) => {
        const total = value(event.timing?.total);
        return total === null ? null : total / 1000;
      }),
      curriculumStage: run.steps.map((event) => event.curriculumStage ?? null),
    },
    evaluation: { sets },
    categories: {
      names: categoryNames,
      training: categoriesTraining,
      capabilityTotals: capability
        ? Object.fromEntries(
            Object.entries(rates(capability.total.categories)).map(
              ([category, stats]) => [
                category,
                { count: stats.count, successRate: stats.successRate },
              ],
            ),
          )
        : null,
    },
    tags: {
      names: tagNames,
      training: {
        steps,
        counts: Object.fromEntries(
          tagNames.map((tag) => [
            tag,
            run.steps.map((event) => event.tagCounts?.[tag] ?? 0),
          ]),
        ),
      },
      totals: capability ? rates(capability.total.tags) : null,
      categoryTotals,
    },
    curriculum: buildCurriculum(run),
    rollbacks: run.rollbacks.map(
      ({ step, toStep, windowGain, learningRate }) => ({
        step,
        toStep,
        windowGain,
        learningRate,
      }),
    ),
    overlays: buildOverlays(run),
    rho: {
      steps,
      weights: Object.fromEntries(
        rhoTags.map((tag) => [
          tag,
          run.steps.map((event) => value(event.tagWeights?.[tag])),
        ]),
      ),
      latest:
        capability && Object.keys(capability.dynamicTagWeights).length > 0
          ? { ...capability.dynamicTagWeights }
          : null,
    },
    episodes: {
      files: run.episodeFiles.length,
      trainFiles,
      evalFiles: run.episodeFiles.length - trainFiles,
      diagnosed:
        training && 'outcomes' in training ? training.outcomes.length : 0,
      unavailable:
        training && 'outcomes' in training ? training.unavailable : 0,
      unavailableReasons:
        training && 'outcomes' in training ? training.unavailableReasons : [],
    },
    packs: buildPacks(run),
    warnings: run.warnings.map((warning) =>
      warning.type === 'other' ? warning.message : JSON.stringify(warning),
    ),
  };
}
