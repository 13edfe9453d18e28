export { commands, resolveCommand, runCli, usage } from './cli';
export { exitCodeFor, exitCodes } from './exit-codes';
export type { Command, CommandContext } from './command';
export {
  embeddedEpisode,
  embeddedPresets,
  embeddedTasks,
  embeddedTrainConfig,
  prepareEmbedded,
  warmStartKey,
  type EmbeddedAssets,
  type EmbeddedPreset,
} from './embedded/embedded-recipe';
