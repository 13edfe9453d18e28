export {
  curriculumAdvanceReasonSchema,
  curriculumStageNameSchema,
  curriculumStateSchema,
  type CurriculumAdvanceReason,
  type CurriculumStageName,
  type CurriculumState,
} from './curriculum-state';
export {
  stageEventSchema,
  validationEventSchema,
  type StageEvent,
  type ValidationEvent,
} from './curriculum-events';
export { evalEventSchema, type EvalEvent } from './eval-event';
export {
  gapMonitorStateSchema,
  type GapMonitorState,
} from './gap-monitor-state';
export { overlayLineSchema, type OverlayLine } from './overlay-line';
export { rollbackEventSchema, type RollbackEvent } from './rollback-event';
export { runEventSchema, type RunEvent } from './run-event';
export {
  stepTimingSchema,
  trainSampleSchema,
  trainStepEventSchema,
  type StepTiming,
  type TrainSample,
  type TrainStepEvent,
} from './train-step-event';
export {
  latestCheckpointSchema,
  trainerStateSchema,
  type LatestCheckpoint,
  type TrainerState,
} from './trainer-state';
export {
  curriculumSettingsSchema,
  dynamicSamplingSettingsSchema,
  gapMonitorSettingsSchema,
  runConfigSchema,
  samplingSettingsSchema,
  trainMethodSchema,
  type CurriculumSettings,
  type CurriculumSettingsInput,
  type DynamicSamplingSettings,
  type DynamicSamplingSettingsInput,
  type GapMonitorSettings,
  type RunConfig,
  type RunConfigInput,
  type TrainMethod,
} from './run-config';
export { runDirectoryLayout, runStepName } from './run-directory-layout';
