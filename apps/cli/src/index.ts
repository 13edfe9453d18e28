export { commands, resolveCommand, runCli, usage } from './cli';
export { exitCodeFor, exitCodes } from './exit-codes';
export type { Command, CommandContext } from './command';
export { parseOverlays } from './commands/train';
export {
  embeddedEpisode,
  embeddedPresets,
  embeddedTasks,
  embeddedTrainConfig,
  prepareEmbedded,
  shippedBaseDirectory,
  warmStartKey,
  type WarmStartManifest,
  type EmbeddedAssets,
  type EmbeddedPreset,
} from './embedded/embedded-recipe';
