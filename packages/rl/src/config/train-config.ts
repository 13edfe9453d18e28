import {
  curriculumSettingsSchema,
  runConfigSchema,
  trainMethodSchema,
  type CurriculumSettings,
  type CurriculumSettingsInput,
  type RunConfig,
  type RunConfigInput,
  type TrainMethod,
} from '@seal/spec';

/*
 * The run's `config.json` is a record on disk: its schema lives in
 * `@seal/spec` (`runConfigSchema`). The training loop knows it by its
 * historical names.
 */

/** The resolved configuration of a training run (`@seal/spec`'s {@link runConfigSchema}). */
export const trainConfigSchema = runConfigSchema;
/** The written form of {@link trainConfigSchema}. */
export type TrainConfigInput = RunConfigInput;
/** The resolved form. */
export type TrainConfig = RunConfig;

export {
  curriculumSettingsSchema,
  trainMethodSchema,
  type CurriculumSettings,
  type CurriculumSettingsInput,
  type TrainMethod,
};

/** What a method turns on: SEAL's two sides and its closed loop, or Environment Tuning. */
export type MethodComponents = {
  /** Environment-side adaptation (φ_schema in SEAL's headline runs). */
  interface: boolean;
  /** Diagnosis-guided advantage reweighting (A-Patch). */
  reweight: boolean;
  /** The closed-loop (EMA) update of ρ; fixed ρ when false. */
  closedLoop: boolean;
  /** Environment Tuning's curriculum, rewards and actionable feedback. */
  envTuning: boolean;
  /** The training reward. */
  reward: 'binary' | 'progress-or-format';
};

/** The components of each method (SEAL Table 3's rows and Environment Tuning). */
export function methodComponents(method: TrainMethod): MethodComponents {
  switch (method) {
    case 'seal':
      return {
        interface: true,
        reweight: true,
        closedLoop: true,
        envTuning: false,
        reward: 'binary',
      };
    case 'grpo':
      return {
        interface: false,
        reweight: false,
        closedLoop: false,
        envTuning: false,
        reward: 'binary',
      };
    case 'no-env':
      return {
        interface: false,
        reweight: true,
        closedLoop: true,
        envTuning: false,
        reward: 'binary',
      };
    case 'no-reweight':
      return {
        interface: true,
        reweight: false,
        closedLoop: false,
        envTuning: false,
        reward: 'binary',
      };
    case 'no-loop':
      return {
        interface: true,
        reweight: true,
        closedLoop: false,
        envTuning: false,
        reward: 'binary',
      };
    case 'envtuning':
      return {
        interface: false,
        reweight: false,
        closedLoop: false,
        envTuning: true,
        reward: 'progress-or-format',
      };
  }
}
