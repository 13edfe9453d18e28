import { writeFile } from 'node:fs/promises';
import { protocolNames, toOpenAiTool, type ProtocolName } from '@seal/env';
import { deriveSeed, type LoopVerdictV2 } from '@seal/rl';
import {
  SealError,
  promptModeSchema,
  type ChatModelV1,
  type EpisodeRecord,
  type Task,
} from '@seal/spec';
import { aggregateScoresV2 } from '@seal/verifier';
import * as z from 'zod';
import { parseFlags } from '../args';
import type { CommandContext } from '../command';
import {
  deviceFlagOption,
  deviceFlagSchema,
  precisionFlagOption,
  precisionFlagSchema,
} from '../device-flag';
import { exitCodes } from '../exit-codes';
import { openPolicySource, resolvePolicyHints } from './eval-policy-source';
import {
  envFlagOptions,
  envFlagSchemas,
  prepareEnvTraining,
  type EnvTraining,
} from './train-env';

const flagsSchema = z.object({
  ...envFlagSchemas,
  env: z.string().min(1),
  tasks: z.string({ error: 'is required (a JSONL file, one task a line)' }),
  model: z.string().min(1).optional(),
  endpoint: z.string().url().optional(),
  'api-key': z.string().optional(),
  mode: z.enum(['prompting', 'fc']).default('prompting'),
  protocol: z.enum(protocolNames).optional(),
  'prompt-mode': promptModeSchema.optional(),
  'max-tokens': z.coerce.number().int().min(1).optional(),
  'max-model-calls': z.coerce.number().int().min(1).optional(),
  temperature: z.coerce.number().min(0).max(2).default(0),
  seed: z.coerce.number().int().nonnegative().default(0),
  concurrency: z.coerce.number().int().min(1).max(64).default(4),
  'max-batch': z.coerce.number().int().min(1).optional(),
  retries: z.coerce.number().int().min(0).optional(),
  timeout: z.coerce.number().int().min(1).optional(),
  name: z.string().min(1).optional(),
  out: z.string().optional(),
  json: z.boolean().optional(),
  device: deviceFlagSchema,
  precision: precisionFlagSchema,
});

export const evalEnvHelp = `usage: seal eval --env SPEC --tasks FILE (--model DIR | --endpoint URL [--model NAME])
                 [--mode prompting|fc] [--protocol P] [--prompt-mode full|compact]
                 [--max-tokens N] [--max-model-calls N] [--temperature T] [--seed N]
                 [--concurrency N] [--out FILE] [--snapshot-call TOOL] [--timeout-ms MS]
                 [--mcp-cwd DIR] [--json]

Evaluates a policy on a bring-your-own environment (SPEC and FILE as for
seal env check) the way seal train --env evaluates: every task once, on the
untouched interface, each episode on its own session; calls parsed by the
model's protocol (prompting; the defaults come from the model's training
run, as for BFCL) or read from tool_calls (--mode fc: the tools' JSON
Schemas as OpenAI function definitions); the generic verifier tags every
turn. Prints success by category and the tags, and, last:
  eval --env: S/N episodes succeed; P/T turns pass
--out FILE writes one verdict (VerifierV2Result) a line.`;

/** Whether `seal eval` was asked for a bring-your-own environment. */
export function requestsEnv(argv: readonly string[]): boolean {
  return argv.some((arg) => arg === '--env' || arg.startsWith('--env='));
}

/** One evaluated episode of {@link runEvalEnv}. */
type Evaluated = { task: Task; record: EpisodeRecord; verdict: LoopVerdictV2 };

/** FNV-1a over a task id: its part of the request seeds. */
function hashId(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** One episode of `task` with a chat model on the environment's session, verified. */
async function evaluateTask({
  env,
  task,
  model,
  mode,
  protocol,
  promptMode,
  maxTokens,
  maxModelCalls,
  temperature,
  seed,
}: {
  env: EnvTraining;
  task: Task;
  model: ChatModelV1;
  mode: 'prompting' | 'fc';
  protocol: ProtocolName;
  promptMode: 'full' | 'compact';
  maxTokens: number;
  maxModelCalls: number;
  temperature: number;
  seed: number;
}): Promise<Evaluated> {
  const episode = env.training.createEpisode({
    task,
    protocol: mode === 'fc' ? 'openai-tools' : protocol,
    promptMode,
    mode: 'eval',
    limits: { maxModelCalls },
    episodeId: `eval:${task.id}`,
    stamps: { verifierVersion: env.training.verifierId, seed },
  });
  await episode.reset();
  const taskSeed = hashId(task.id);
  while (!episode.done) {
    let reply;
    try {
      reply = await model.complete({
        messages: episode.messages(),
        ...(mode === 'fc' ? { tools: episode.tools().map(toOpenAiTool) } : {}),
        maxTokens,
        temperature,
        seed: deriveSeed(seed, taskSeed, episode.modelCalls),
      });
    } catch (error) {
      if (
        SealError.isInstance(error) &&
        error.code === 'CONTEXT_LENGTH_EXCEEDED'
      ) {
        episode.abort('context-limit');
        break;
      }
      await episode.close();
      throw error;
    }
    await episode.step(
      mode === 'fc'
        ? { ...reply.message, role: 'assistant' }
        : reply.message.content,
      {
        promptTokens: reply.usage.promptTokens,
        completionTokens: reply.usage.completionTokens,
      },
    );
  }
  const record = episode.record();
  const verdict = (await env.training.verify({
    task,
    record,
  })) as LoopVerdictV2;
  return { task, record, verdict };
}

/** `seal eval --env SPEC --tasks FILE`. */
export async function runEvalEnv({
  argv,
  output,
}: CommandContext): Promise<number> {
  const { flags } = parseFlags({
    argv,
    options: {
      ...envFlagOptions,
      model: { type: 'string' },
      endpoint: { type: 'string' },
      'api-key': { type: 'string' },
      mode: { type: 'string' },
      protocol: { type: 'string' },
      'prompt-mode': { type: 'string' },
      'max-tokens': { type: 'string' },
      'max-model-calls': { type: 'string' },
      temperature: { type: 'string' },
      seed: { type: 'string' },
      concurrency: { type: 'string' },
      'max-batch': { type: 'string' },
      retries: { type: 'string' },
      timeout: { type: 'string' },
      name: { type: 'string' },
      out: { type: 'string' },
      json: { type: 'boolean' },
      ...deviceFlagOption,
      ...precisionFlagOption,
    },
    schema: flagsSchema,
  });
  if (flags.endpoint === undefined && flags.model === undefined)
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `pass --model DIR (a local model) or --endpoint URL\n\n${evalEnvHelp}`,
    });
  const resolved = await resolvePolicyHints(flags);
  const { hints } = resolved;
  const protocol: ProtocolName =
    flags.protocol ?? hints.protocol ?? 'bfcl-python';
  const promptMode = flags['prompt-mode'] ?? hints.promptMode ?? 'full';
  const maxTokens = flags['max-tokens'] ?? hints.maxTokens ?? 512;
  const maxModelCalls = flags['max-model-calls'] ?? hints.maxModelCalls ?? 20;
  // The environment and tasks before the model: their errors come first.
  const env = await prepareEnvTraining({
    flags,
    defaultEvalCount: 0,
    seed: flags.seed,
    evalOnly: true,
  });
  try {
    const tasks = env.evalSets[0]!.tasks;
    const source = await openPolicySource({
      flags,
      resolved,
      output,
      protocol,
      promptMode,
    });
    try {
      output.line(
        `seal eval --env: ${source.name} · ${flags.mode} (${flags.mode === 'fc' ? 'openai-tools' : protocol}, ${promptMode} prompt) · environment ${env.environment.environmentId}, ${tasks.length} tasks`,
      );
      const bar = output.progress('eval', tasks.length);
      const results = new Array<Evaluated>(tasks.length);
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < tasks.length) {
          const index = next++;
          results[index] = await evaluateTask({
            env,
            task: tasks[index]!,
            model: source.model,
            mode: flags.mode,
            protocol,
            promptMode,
            maxTokens,
            maxModelCalls,
            temperature: flags.temperature,
            seed: flags.seed,
          });
          bar.tick(1);
        }
      };
      try {
        await Promise.all(
          Array.from(
            { length: Math.min(flags.concurrency, tasks.length) },
            worker,
          ),
        );
      } finally {
        bar.done();
      }
      const verdicts = results.map((result) => result.verdict.generic);
      if (flags.out !== undefined)
        await writeFile(
          flags.out,
          verdicts.map((verdict) => JSON.stringify(verdict)).join('\n') + '\n',
        );
      const scores = aggregateScoresV2(verdicts);
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
      const turns = verdicts.flatMap((verdict) => verdict.turns);
      output.line(
        `eval --env: ${scores.overall.successes}/${scores.overall.episodes} episodes succeed; ${turns.filter((turn) => turn.pass).length}/${turns.length} turns pass`,
      );
      output.result({
        environmentId: env.environment.environmentId,
        scores,
        results: verdicts,
      });
      return exitCodes.success;
    } finally {
      await source.close();
    }
  } finally {
    await env.close();
  }
}
