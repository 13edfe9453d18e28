import type { CodArms } from './cod-arms';
/** A series over steps; `null` where a step has no value. */
export type Series = (number | null)[];

/** One interface overlay of the run, summarised for the timeline. */
export type OverlaySummary = {
  /** 1-based, in order of first use. */
  index: number;
  hash: string;
  /** Training steps this overlay was in force. */
  steps: number[];
  /** Paragraphs added to the system prompt (schema note, φ_cap guidelines, curriculum notes). */
  systemNotes: { source: string; text: string }[];
  /** φ_schema cues: per tool, the parameters annotated and hidden. */
  toolPatches: {
    tool: string;
    description?: string;
    parameters: Record<string, string>;
    hide: string[];
  }[];
  /** Hint lines appended to parse errors (φ_err). */
  parseErrorHints: string[];
  /** Recovery hints for tool errors (φ_err). */
  errorHints: { id: string; hint: string }[];
  /** Environment Tuning's error rewrites. */
  errorRewrites: { id: string; replacement: string }[];
  /** Categories the overlay applies to; empty means all. */
  categories: string[];
  /** What changed from the overlay in force before it (empty for the first). */
  changes: string[];
};

/** One stage of Environment Tuning's curriculum, as the run went through it. */
export type CurriculumStageSpan = {
  /** The stage's name (`syntax`, `hints`, `hard`, `independent`). */
  name: string;
  /** The first training step of the stage (past the last step: reached at the end of the run). */
  fromStep: number;
  /** Its last training step (null when the run recorded no step in it: a stage reached after the last step). */
  toStep: number | null;
  /** What ended it: `plateau` of the validation score or its step `budget`; null for the stage the run ended in. */
  endedBy: string | null;
  /** The validation accuracy at the step that ended it. */
  endValidation: number | null;
};

/** Per-category training outcomes, when episodes could be re-verified. */
export type TrainingCategories =
  | {
      source: 'diagnosis';
      steps: number[];
      /** Success rate per category per step (`null`: no episode of that category). */
      successRate: Record<string, Series>;
      /** Episodes per category per step. */
      episodes: Record<string, Series>;
    }
  | { source: 'absent'; reason: string };

/** Success and reward per pack position over the pack runs of one file (Connect the Dots). */
export type PackPositionCurve = {
  /** The pack-run file (`eval-000000.jsonl`, `step-000003.jsonl`). */
  file: string;
  /** `eval` (longer packs, one run each) or `train` (G runs per pack). */
  kind: 'train' | 'eval';
  /** The training step it was recorded at (0: before training). */
  step: number;
  /** Pack runs in the file. */
  packRuns: number;
  /** How their packs were formed (`cod`; `ralph_sample`, `ralph_full`: the Ralph loop). */
  strategies: string[];
  /** One entry per position from 0; a rise with the position is the CoD signature. */
  positions: {
    position: number;
    runs: number;
    successRate: number;
    rewardMean: number;
  }[];
};

/**
 * Everything `report.html` shows, as data: serialisable, embedded in the page
 * as JSON and printed by `seal report --json`.
 */
export type ReportData = {
  schemaVersion: 1;
  /** ISO time the report was made. */
  generatedAt: string;
  run: {
    directory: string;
    runId: string | null;
    method: string | null;
    seed: number | null;
    /** `steps` of the config (null when not recorded). */
    configuredSteps: number | null;
    /** Training steps with an event. */
    completedSteps: number;
    /** `config.json` as written. */
    config: unknown;
  };
  training: {
    steps: number[];
    rewardMean: Series;
    successRate: Series;
    loss: Series;
    kl: Series;
    gradNorm: Series;
    clipFraction: Series;
    /** Wall time per step, seconds. */
    stepSeconds: Series;
    /** Environment Tuning's curriculum stage per step (null for other methods). */
    curriculumStage: (string | null)[];
  };
  evaluation: {
    sets: {
      name: string;
      steps: number[];
      accuracy: Series;
      overall: Series;
      /** Accuracy per BFCL category per step. */
      categories: Record<string, Series>;
      /** SEAL tag occurrences per step. */
      tagCounts: Record<string, Series>;
    }[];
  };
  categories: {
    /** Category names in display order. */
    names: string[];
    training: TrainingCategories;
    /** All-time training counters per category from `capability_state.json`. */
    capabilityTotals: Record<
      string,
      { count: number; successRate: number }
    > | null;
  };
  tags: {
    /** Tag names in display order (SEAL's order, then any others). */
    names: string[];
    /** SEAL tag occurrences per training step. */
    training: { steps: number[]; counts: Record<string, Series> };
    /** All-time counters per tag from `capability_state.json`. */
    totals: Record<
      string,
      { count: number; successRate: number; rewardMean: number }
    > | null;
    /** All-time occurrences per category and tag from `capability_state.json`. */
    categoryTotals: Record<string, Record<string, number>> | null;
  };
  /**
   * Environment Tuning's stage timeline and validation accuracy (null for
   * other methods). Runs recorded before stage events had only the stage per
   * step: their spans have no reasons.
   */
  curriculum: {
    stages: CurriculumStageSpan[];
    validation: {
      steps: number[];
      accuracy: Series;
      /** The stage each validated checkpoint was trained in. */
      stage: (string | null)[];
      /** Size of the validation split. */
      tasks: number | null;
    };
  } | null;
  /** Gap-monitor rollbacks: after `step`, weights restored to `toStep`, the learning rate lowered. */
  rollbacks: {
    step: number;
    toStep: number;
    windowGain: number;
    learningRate: number;
  }[];
  overlays: {
    /** Consecutive steps with the same overlay. */
    segments: {
      overlay: number;
      hash: string;
      fromStep: number;
      toStep: number;
    }[];
    overlays: OverlaySummary[];
  };
  rho: {
    steps: number[];
    /** A-Patch weight ρ per tag per step. */
    weights: Record<string, Series>;
    /** The dynamic weights in `capability_state.json` (after the last step). */
    latest: Record<string, number> | null;
  };
  episodes: {
    files: number;
    trainFiles: number;
    evalFiles: number;
    /** Training episodes re-verified for the per-category charts. */
    diagnosed: number;
    /** Training episodes that could not be re-verified, with the first reasons. */
    unavailable: number;
    unavailableReasons: string[];
  };
  /**
   * Connect the Dots (`seal train --method cod`): success and reward per pack
   * position per evaluation and per training step, and how the hint blocks of
   * the update-context episodes fared. Null for runs without pack runs.
   */
  packs: {
    /** One curve per evaluation file, by step. */
    evaluations: PackPositionCurve[];
    /**
     * A comparison of arms left in the run directory (`cod-arms.json`, from
     * `pnpm bench cod`): success by position with intervals for the warm
     * start, after CoD and after one-by-one GRPO. Null when absent.
     */
    arms: CodArms | null;
    /** One curve per training step. */
    training: PackPositionCurve[];
    /** Update-context episodes over all pack runs. */
    hints: {
      updates: number;
      /** Blocks that parsed (used as the next context at no cost). */
      parsed: number;
      /** Unusable blocks by reason (`missing-start`, `too-long`, …): penalised, parsed as "no hint available". */
      failures: Record<string, number>;
      /** Mean characters of the parsed blocks (null when none parsed). */
      meanLength: number | null;
    };
  } | null;
  /** What was skipped or missing while reading the run. */
  warnings: string[];
};
