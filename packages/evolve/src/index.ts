export {
  defaultSchemaNote,
  enumValues,
  schemaCues,
  type SchemaCueSettings,
} from './schema-cues';
export {
  parseErrorHintLines,
  toolErrorHintRules,
  type ErrorHintSettings,
} from './error-hints';
export {
  defaultGuidelines,
  guidelineHeader,
  guidelineNote,
  selectGuidelines,
  type GuidelineSettings,
  type SelectedGuideline,
  type TagStatistics,
} from './guidelines';
export {
  evolveSealOverlay,
  sealHeadlineSettings,
  sealOverlayModules,
  sealSettingsForModules,
  type SealOverlayModule,
  type EvolvedOverlay,
  type SealInterfaceSettings,
} from './seal-interface';
export {
  actionableErrorRewrites,
  missingCapabilityWarning,
} from './envtuning/actionable-errors';
export {
  advanceCurriculum,
  envTuningStages,
  hasPlateaued,
  initialCurriculumState,
  stageEndReason,
  type CurriculumStage,
  type CurriculumTransition,
  type PlateauSettings,
} from './envtuning/curriculum';
export { envTuningOverlay } from './envtuning/envtuning-interface';
