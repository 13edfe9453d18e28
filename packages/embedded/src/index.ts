export {
  embeddedEpisode,
  embeddedPresetNames,
  embeddedPresets,
  embeddedTasks,
  embeddedTrainConfig,
  warmStartKey,
  type EmbeddedPreset,
} from './embedded-preset';
export {
  parsePolicyHints,
  policyHintsSchema,
  readPolicyHints,
  type PolicyHints,
} from './policy-hints';
export {
  copyDirectory,
  prepareEmbedded,
  readWarmStartManifest,
  type EmbeddedAssets,
  type EmbeddedProgress,
  type WarmStartManifest,
} from './warm-start';
export { measureWarmStart, type WarmStartFigures } from './measure-warm-start';
export {
  compareWarmStartFigures,
  type WarmStartFigureDisagreement,
  type WarmStartProportion,
} from './compare-warm-start-figures';
export {
  buildCodEmbeddedTokenizer,
  codEmbeddedConversations,
  codEmbeddedCorpus,
  codEmbeddedModel,
  codEmbeddedPretokenizerPattern,
  codEmbeddedRecipe,
  codEmbeddedSampling,
  codLiteralDrills,
  codLiteralFactTokens,
  codLiteralModel,
  codLiteralRecipe,
  codLiteralSampling,
  prepareCodEmbeddedModel,
  type CodEmbeddedManifest,
  type CodEmbeddedSetting,
} from './cod/cod-embedded-model';
export { prepareCodSmokeModel } from './cod/cod-smoke-model';
export {
  codEnvironments,
  createCodPackSource,
  type CodEnvironmentName,
  type CodPackSource,
} from './cod/cod-packs';
export { codPresets, type CodPresetName } from './cod/cod-presets';
