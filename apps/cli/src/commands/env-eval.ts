import { writeFile } from 'node:fs/promises';
import { createOpenAiChatModel } from '@seal/openai';
import type { VerifierV2Result } from '@seal/spec';
import { runEpisodeV2 } from '@seal/tools';
import { aggregateScoresV2, verifyEpisodeV2 } from '@seal/verifier';
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
  endpoint: z.url({
    error:
      'is required (an OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1)',
  }),
  model: z.string({
    error: 'is required (the model name the endpoint serves)',
  }),
  'api-key': z.string().optional(),
  'max-steps': z.coerce.number().int().min(1).max(100).default(10),
  'max-tokens': z.coerce.number().int().min(1).default(1024),
  temperature: z.coerce.number().min(0).max(2).default(0),
  seed: z.coerce.number().int().nonnegative().optional(),
  concurrency: z.coerce.number().int().min(1).max(64).default(2),
  system: z.string().optional(),
  out: z.string().optional(),
  'snapshot-call': z.string().optional(),
  'timeout-ms': z.coerce.number().int().positive().optional(),
  'mcp-cwd': z.string().optional(),
  json: z.boolean().optional(),
});

export const envEvalHelp = `usage: seal env eval --env SPEC --tasks FILE --endpoint URL --model NAME
                     [--api-key KEY] [--max-steps N] [--max-tokens N]
                     [--temperature T] [--seed N] [--concurrency N]
                     [--system TEXT] [--out FILE] [--snapshot-call TOOL]
                     [--timeout-ms MS] [--mcp-cwd DIR] [--json]

Evaluates a model behind an OpenAI-compatible endpoint on a bring-your-own
environment (SPEC and FILE as for \`seal env check\`). Tools reach the model
as OpenAI function definitions whose parameters are their JSON Schemas,
unchanged; each episode runs on its own session, and the generic verifier
tags every turn against a replay of the ground truth (or the environment's
checker). Prints success by category and the tags, and, last:
  env eval: S/N episodes succeed; P/T turns pass
--out FILE writes one verdict (VerifierV2Result) a line. The API key
defaults to $OPENAI_API_KEY.`;

/** `seal env eval`. */
export async function runEnvEval({
  argv,
  output,
}: CommandContext): Promise<number> {
  const { flags } = parseFlags({
    argv,
    options: {
      env: { type: 'string' },
      tasks: { type: 'string' },
      endpoint: { type: 'string' },
      model: { type: 'string' },
      'api-key': { type: 'string' },
      'max-steps': { type: 'string' },
      'max-tokens': { type: 'string' },
      temperature: { type: 'string' },
      seed: { type: 'string' },
      concurrency: { type: 'string' },
      system: { type: 'string' },
      out: { type: 'string' },
      'snapshot-call': { type: 'string' },
      'timeout-ms': { type: 'string' },
      'mcp-cwd': { type: 'string' },
      json: { type: 'boolean' },
    },
    schema: flagsSchema,
  });
  const tasks = await readTasksV2(flags.tasks);
  const environment = await loadEnvironmentFromFlags(flags);
  const apiKey = flags['api-key'] ?? process.env['OPENAI_API_KEY'];
  const model = createOpenAiChatModel({
    baseUrl: flags.endpoint,
    model: flags.model,
    ...(apiKey === undefined || apiKey === '' ? {} : { apiKey }),
  });
  const progress = output.progress('eval', tasks.length);
  const results: VerifierV2Result[] = new Array<VerifierV2Result>(tasks.length);
  let next = 0;
  async function worker(): Promise<void> {
    while (next < tasks.length) {
      const index = next;
      next += 1;
      const task = tasks[index]!;
      const { finished } = await runEpisodeV2({
        environment,
        task,
        model,
        maxStepsPerTurn: flags['max-steps'],
        maxTokens: flags['max-tokens'],
        temperature: flags.temperature,
        ...(flags.seed === undefined ? {} : { seed: flags.seed }),
        ...(flags.system === undefined ? {} : { system: flags.system }),
        finish: ({ trace, session }) =>
          verifyEpisodeV2({ environment, task, trace, session }),
      });
      results[index] = finished!;
      progress.tick();
    }
  }
  await Promise.all(
    Array.from({ length: Math.min(flags.concurrency, tasks.length) }, worker),
  );
  progress.done();
  await environment.close?.();
  if (flags.out !== undefined) {
    await writeFile(
      flags.out,
      results.map((result) => JSON.stringify(result)).join('\n') + '\n',
    );
  }
  const scores = aggregateScoresV2(results);
  for (const [category, score] of Object.entries(scores.byCategory))
    output.line(
      `${category}: ${score.successes}/${score.episodes} episodes succeed, ${(score.turnPassRate * 100).toFixed(1)}% of turns pass`,
    );
  output.line(
    `tags: ${Object.entries(scores.tags)
      .sort(([, left], [, right]) => right - left)
      .map(([tag, count]) => `${tag} ${count}`)
      .join(', ')}`,
  );
  const turns = results.flatMap((result) => result.turns);
  output.line(
    `env eval: ${scores.overall.successes}/${scores.overall.episodes} episodes succeed; ${turns.filter((turn) => turn.pass).length}/${turns.length} turns pass`,
  );
  output.result({ environmentId: environment.environmentId, scores, results });
  return exitCodes.success;
}
