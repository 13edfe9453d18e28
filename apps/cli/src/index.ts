export { commands, resolveCommand, runCli, usage } from './cli';
export { exitCodeFor, exitCodes } from './exit-codes';
export type { Command, CommandContext } from './command';
export {
  dynamicSamplingConfig,
  parseOverlays,
  parseTaskMix,
  turnAdvantageWeightOf,
} from './commands/train';
export { prepareEmbedded, shippedBaseDirectory } from './shipped-base';
