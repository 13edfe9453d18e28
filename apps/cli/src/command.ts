import type { Output } from './ui/output';

/** What every command receives. */
export type CommandContext = {
  /** The arguments after the command name. */
  argv: string[];
  output: Output;
};

/** A command: returns its exit code; errors propagate to the one boundary in `bin.ts`. */
export type Command = {
  summary: string;
  help: string;
  run: (context: CommandContext) => Promise<number>;
};
