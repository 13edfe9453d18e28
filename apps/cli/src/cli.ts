import { SealError } from '@seal/spec';
import type { Command } from './command';
import { bfclCheckHelp, runBfclCheck } from './commands/bfcl-check';
import { bfclReplayHelp, runBfclReplay } from './commands/bfcl-replay';
import { codReadinessHelp, runCodReadiness } from './commands/cod-readiness';
import { runTrain, trainHelp } from './commands/train';
import { compareHelp, runCompare } from './commands/compare';
import { diagnoseHelp, runDiagnose } from './commands/diagnose';
import { envCheckHelp, runEnvCheck } from './commands/env-check';
import { envEvalHelp, runEnvEval } from './commands/env-eval';
import { runServe, serveHelp } from './commands/serve';
import { evalHelp, runEval } from './commands/eval';
import { runServePolicy, servePolicyHelp } from './commands/serve-policy';
import { runServeTrainer, serveTrainerHelp } from './commands/serve-trainer';
import { reportHelp, runReport } from './commands/report';
import { runView, viewHelp } from './commands/view';
import { runWarmstart, warmstartHelp } from './commands/warmstart';
import { createOutput } from './ui/output';
import { exitCodes } from './exit-codes';

/** Every command by its words (`bfcl replay` → `bfcl replay`). */
export const commands: Record<string, Command> = {
  'bfcl check': {
    summary: "verify trajectories and compare with BFCL's own checker verdicts",
    help: bfclCheckHelp,
    run: runBfclCheck,
  },
  train: {
    summary:
      'run the co-evolution loop (the embedded default, or BFCL with a given model)',
    help: trainHelp,
    run: runTrain,
  },
  warmstart: {
    summary:
      "train an embedded preset's warm start (the shipped base model) from scratch and measure it",
    help: warmstartHelp,
    run: runWarmstart,
  },
  'bfcl replay': {
    summary:
      'replay BFCL ground truth against golden result strings and states',
    help: bfclReplayHelp,
    run: runBfclReplay,
  },
  'cod readiness': {
    summary:
      "before Connect the Dots training: how often the policy's hints restate facts of the trajectory it saw, against chance (ready at 80%)",
    help: codReadinessHelp,
    run: runCodReadiness,
  },
  'env check': {
    summary:
      'replay the ground truth of your own environment (module or MCP server) and check that sabotaged replays are tagged',
    help: envCheckHelp,
    run: runEnvCheck,
  },
  'env eval': {
    summary:
      'evaluate a model behind an OpenAI-compatible endpoint on your own environment, with per-turn tags',
    help: envEvalHelp,
    run: runEnvEval,
  },
  diagnose: {
    summary:
      'verify episode records and print per-turn failure tags with a summary',
    help: diagnoseHelp,
    run: runDiagnose,
  },
  serve: {
    summary:
      "serve BFCL episodes over SEAL's environment-service HTTP API (default port 8082)",
    help: serveHelp,
    run: runServe,
  },
  eval: {
    summary:
      'evaluate a policy (model directory or OpenAI-compatible endpoint) on BFCL v3 multi-turn',
    help: evalHelp,
    run: runEval,
  },
  'serve-policy': {
    summary:
      'serve a model directory behind an OpenAI-compatible API (default port 8000)',
    help: servePolicyHelp,
    run: runServePolicy,
  },
  'serve-trainer': {
    summary:
      'serve the engine as a Tinker-compatible training service (default port 8088)',
    help: serveTrainerHelp,
    run: runServeTrainer,
  },
  report: {
    summary:
      'write a self-contained report.html for a run directory (curves, categories, tags, overlays, ρ)',
    help: reportHelp,
    run: runReport,
  },
  compare: {
    summary:
      'paired gains of training runs over their warm start or over control runs, pooled with bootstrap CIs',
    help: compareHelp,
    run: runCompare,
  },
  view: {
    summary:
      'browse the trajectories of a run directory in a web page (default port 8090)',
    help: viewHelp,
    run: runView,
  },
};

/** The top-level usage text. */
export function usage(): string {
  const width = Math.max(...Object.keys(commands).map((name) => name.length));
  const lines = Object.entries(commands).map(
    ([name, command]) => `  ${name.padEnd(width)}  ${command.summary}`,
  );
  return `usage: seal <command> [flags]\n\ncommands:\n${lines.join('\n')}\n\nRun "seal <command> --help" for a command's flags.`;
}

/** Finds the command named by the leading words of `argv`. */
export function resolveCommand(
  argv: string[],
): { command: Command; rest: string[] } | undefined {
  for (let words = Math.min(3, argv.length); words >= 1; words--) {
    const name = argv.slice(0, words).join(' ');
    const command = commands[name];
    if (command) return { command, rest: argv.slice(words) };
  }
  return undefined;
}

/** Runs the CLI; returns the exit code. Errors are thrown to the caller's boundary. */
export async function runCli(argv: string[]): Promise<number> {
  if (
    argv.length === 0 ||
    argv[0] === '--help' ||
    argv[0] === '-h' ||
    argv[0] === 'help'
  ) {
    process.stdout.write(`${usage()}\n`);
    return argv.length === 0 ? exitCodes.usage : exitCodes.success;
  }
  const resolved = resolveCommand(argv);
  if (!resolved) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `unknown command: ${argv
        .filter((a) => !a.startsWith('-'))
        .slice(0, 2)
        .join(' ')}\n\n${usage()}`,
    });
  }
  const { command, rest } = resolved;
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`${command.help}\n`);
    return exitCodes.success;
  }
  const output = createOutput({ json: rest.includes('--json') });
  return command.run({ argv: rest, output });
}
