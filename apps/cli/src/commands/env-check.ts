import { aggregateScoresV2, checkEnvironmentV2 } from '@seal/verifier';
import type { TaskCheckV2 } from '@seal/verifier';
import * as z from 'zod';
import { parseFlags } from '../args';
import type { CommandContext } from '../command';
import { exitCodes } from '../exit-codes';
import { loadEnvironmentFromFlags, readTasksV2 } from './env-source';

const flagsSchema = z.object({
  env: z.string({
    error:
      'is required (a module path, or "mcp:[NAME=value ...] command args")',
  }),
  tasks: z.string({ error: 'is required (a JSONL file, one task a line)' }),
  seed: z.coerce.number().int().nonnegative().default(0),
  concurrency: z.coerce.number().int().min(1).max(64).default(2),
  'snapshot-call': z.string().optional(),
  'timeout-ms': z.coerce.number().int().positive().optional(),
  'mcp-cwd': z.string().optional(),
  json: z.boolean().optional(),
});

export const envCheckHelp = `usage: seal env check --env SPEC --tasks FILE [--seed N] [--concurrency N]
                      [--snapshot-call TOOL] [--timeout-ms MS]
                      [--mcp-cwd DIR] [--json]

Checks a bring-your-own environment against its tasks. SPEC is a module
path exporting an environment (\`export const environment = fromAiSdkTools(...)\`
from @seal/tools; .ts loads directly) or an MCP server command line:
  mcp:MEMORY_FILE_PATH={session_dir}/memory.jsonl node server.js
where leading NAME=value words are environment variables and {session_dir}
is a fresh directory per session, removed when it ends.

FILE is JSONL, one task a line: { "id", "turns": [[{role, content}]],
"groundTruth": [[{name, arguments}]], "category"?, "holdouts"?, "checks"? }.

For every task, the ground truth is replayed as the policy (every turn must
pass), and a sabotaged replay drops one ground-truth call (chosen with
--seed) and must fail with a tag on that turn. Tasks without groundTruth run
the environment's checker on a no-call episode. Prints, last:
  env check: M/N ground-truth replays pass; K/K sabotaged replays tagged
and exits 1 when either count falls short.

  --snapshot-call TOOL  (MCP) a read-only tool called with {} whose result is
                        the session's state for the state check
  --timeout-ms MS       (MCP) the per-call deadline (default 30000)
  --mcp-cwd DIR         (MCP) the server's working directory; may be
                        {session_dir} (e.g. so \`npx -y\` runs outside a
                        workspace); default the current directory`;

function describeFailure(check: TaskCheckV2): string[] {
  const lines: string[] = [];
  if (!check.replayPassed) {
    for (const turn of check.replay.turns) {
      if (turn.pass || turn.tag === 'correct_abstention') continue;
      lines.push(
        `FAIL ${check.taskId}: ground-truth replay, turn ${turn.turn}: ${turn.tag}${turn.detail === undefined ? '' : ` (${turn.detail})`}`,
      );
    }
  }
  if (check.sabotage !== undefined && !check.sabotage.tagged) {
    const turn = check.sabotage.result.turns[check.sabotage.turn];
    lines.push(
      `FAIL ${check.taskId}: sabotaged replay (dropped ${check.sabotage.dropped.name} in turn ${check.sabotage.turn}) not tagged: ${turn?.tag ?? 'no verdict'}${turn?.detail === undefined ? '' : ` (${turn.detail})`}`,
    );
  }
  return lines;
}

/** `seal env check`. */
export async function runEnvCheck({
  argv,
  output,
}: CommandContext): Promise<number> {
  const { flags } = parseFlags({
    argv,
    options: {
      env: { type: 'string' },
      tasks: { type: 'string' },
      seed: { type: 'string' },
      concurrency: { type: 'string' },
      'snapshot-call': { type: 'string' },
      'timeout-ms': { type: 'string' },
      'mcp-cwd': { type: 'string' },
      json: { type: 'boolean' },
    },
    schema: flagsSchema,
  });
  const tasks = await readTasksV2(flags.tasks);
  const environment = await loadEnvironmentFromFlags(flags);
  // One session up front: a server that does not start fails once, clearly.
  const probe = await environment.openSession({
    task: tasks[0]!,
    role: 'policy',
  });
  let toolCount: number;
  try {
    toolCount = (await probe.listTools()).length;
  } finally {
    await probe.close();
  }
  output.line(
    `environment ${environment.environmentId}: ${toolCount} tools; ${tasks.length} tasks`,
  );
  const progress = output.progress('check', tasks.length);
  const report = await checkEnvironmentV2({
    environment,
    tasks,
    seed: flags.seed,
    concurrency: flags.concurrency,
    onTask: () => progress.tick(),
  });
  progress.done();
  await environment.close?.();
  for (const check of report.tasks)
    for (const line of describeFailure(check)) output.line(line);
  const scores = aggregateScoresV2(report.tasks.map((check) => check.replay));
  const categories = Object.entries(scores.byCategory)
    .map(
      ([category, score]) => `${category} ${score.successes}/${score.episodes}`,
    )
    .join(', ');
  output.line(`replays by category: ${categories}`);
  const sabotageTags = new Map<string, number>();
  for (const check of report.tasks) {
    const turn = check.sabotage?.result.turns[check.sabotage.turn];
    if (turn !== undefined)
      sabotageTags.set(turn.tag, (sabotageTags.get(turn.tag) ?? 0) + 1);
  }
  if (sabotageTags.size > 0)
    output.line(
      `sabotaged turns tagged: ${[...sabotageTags].map(([tag, count]) => `${tag} ${count}`).join(', ')}`,
    );
  output.line(
    `env check: ${report.replays.passed}/${report.replays.total} ground-truth replays pass; ${report.sabotaged.tagged}/${report.sabotaged.total} sabotaged replays tagged`,
  );
  output.result({
    environmentId: environment.environmentId,
    replays: report.replays,
    sabotaged: report.sabotaged,
    scores,
    tasks: report.tasks.map((check) => ({
      taskId: check.taskId,
      replayPassed: check.replayPassed,
      replayTags: check.replay.turns.map((turn) => turn.tag),
      ...(check.sabotage === undefined
        ? {}
        : {
            sabotage: {
              turn: check.sabotage.turn,
              dropped: check.sabotage.dropped,
              tagged: check.sabotage.tagged,
              tags: check.sabotage.result.turns.map((turn) => turn.tag),
            },
          }),
    })),
  });
  const passed =
    report.replays.passed === report.replays.total &&
    report.sabotaged.tagged === report.sabotaged.total;
  return passed ? exitCodes.success : exitCodes.checkFailed;
}
