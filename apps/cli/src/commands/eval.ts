import { createHash } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { createBfclBackend } from '@seal/bfcl';
import {
  emptyOverlayHash,
  protocolNames,
  type PromptMode,
  type ProtocolName,
} from '@seal/env';
import {
  evaluateChatModel,
  openEvalResultsFile,
  toEvalResultRecord,
  type ChatEvalMode,
  type EvalResultRecord,
} from '@seal/rl';
import { SealError, promptModeSchema } from '@seal/spec';
import { createBfclVerifier } from '@seal/verifier';
import * as z from 'zod';
import {
  deviceFlagOption,
  deviceFlagSchema,
  precisionFlagOption,
  precisionFlagSchema,
} from '../device-flag';
import { parseFlags } from '../args';
import type { CommandContext } from '../command';
import {
  openPolicySource,
  resolvePolicyHints,
  type PolicySource,
} from './eval-policy-source';
import { reportEval } from './eval-report';
import { loadTaskSuite } from './eval-task-suite';
import { requestsPacks, runEvalPacks } from './eval-packs';
import { requestsEnv, runEvalEnv } from './eval-env';

const whole = (min: number) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .refine((value) => value >= min, `must be at least ${min}`)
    .optional();

const decimal = z
  .string()
  .regex(/^\d+(\.\d+)?$/, 'must be a number')
  .transform(Number)
  .optional();

const flagsSchema = z.object({
  model: z.string().min(1).optional(),
  endpoint: z.string().url().optional(),
  'api-key': z.string().optional(),
  mode: z.enum(['prompting', 'fc']).default('prompting'),
  protocol: z.enum(protocolNames).optional(),
  'prompt-mode': promptModeSchema.optional(),
  'task-source': z
    .enum(['embedded', 'generated', 'bfcl'])
    .default('embedded')
    .transform((value) => (value === 'generated' ? 'embedded' : value)),
  preset: z.enum(['default', 'smoke']).optional(),
  data: z.string().optional(),
  split: z.enum(['eval', 'train', 'all', 'test-id', 'test-ood']).optional(),
  suite: z.enum(['development', 'confirmation']).optional(),
  category: z.string().optional(),
  limit: whole(1),
  concurrency: whole(1),
  'max-batch': whole(1),
  'max-tokens': whole(1),
  temperature: decimal.refine(
    (value) => value === undefined || value <= 2,
    'must be at most 2',
  ),
  'top-p': decimal.refine(
    (value) => value === undefined || (value > 0 && value <= 1),
    'must be in (0, 1]',
  ),
  seed: whole(0),
  'max-model-calls': whole(1),
  'max-steps-per-turn': whole(1),
  retries: whole(0),
  timeout: whole(1),
  out: z.string().optional(),
  name: z.string().min(1).optional(),
  fresh: z.boolean().default(false),
  json: z.boolean().optional(),
  device: deviceFlagSchema,
  precision: precisionFlagSchema,
});

export const evalHelp = `usage: seal eval --model DIR [flags]
       seal eval --endpoint URL [--model NAME] [--api-key KEY] [flags]
       seal eval --packs N --model DIR [--pack-size 8] [--ralph]   (Connect the Dots: success per pack position)
       seal eval --env SPEC --tasks FILE (--model DIR | --endpoint URL)   (your own environment; seal eval --env --help)

Evaluates a policy on BFCL v3 multi-turn with BFCL's official accounting, on
the untouched interface (evaluation refuses any interface overlay). The policy
is a local model directory (a checkpoint or warm start saved by seal train),
run in process, or any OpenAI-compatible chat endpoint (vLLM, SGLang,
seal serve-policy, hosted APIs). Every model call sends the whole
conversation, as BFCL's runner does; the in-process model goes through the
same OpenAI wire format as the endpoint, so both give the same episodes.

Each finished task is appended to <out>/results.jsonl at once; rerunning
with the same --out skips the tasks already there (a line cut by a crash is
dropped and its task runs again). Then it prints the score table and the
per-turn failure tags, and writes <out>/scores.json, <out>/scores.csv
(BFCL's data_multi_turn.csv layout) and <out>/score/<name>/BFCL_v3_<category>_score.json
(BFCL's score files: a header row, then one row per failed entry).

Policy
  --model DIR|NAME       model directory; with --endpoint, the served model name
                         (default: the first one /v1/models lists)
  --endpoint URL         OpenAI-compatible endpoint (http://host:8000 or …/v1)
  --api-key KEY          bearer token (default: $OPENAI_API_KEY)
  --mode M               prompting (default: tools in the system prompt, calls
                         parsed from the text) or fc (tools sent as \`tools\`,
                         calls read from \`tool_calls\`)
  --protocol P           prompting protocol: bfcl-python, qwen-xml, envtuning
  --prompt-mode M        full (BFCL's prompt) or compact (small models)
                         Defaults of --protocol, --prompt-mode, --max-tokens and
                         --max-model-calls come from the model's training run
                         (or serve-policy's /v1/models); else bfcl-python,
                         full (BFCL's prompt), 512 and 20.
Tasks
  --task-source S        embedded (default: the generated test-id and test-ood
                         suites of seal train) or bfcl (needs --data or $SEAL_BFCL_DATA)
  --preset P             embedded suite: default or smoke (default: the model's)
  --split S              bfcl: eval (default), train, all; embedded: test-id,
                         test-ood, all (default)
  --suite S              embedded: development (default: the preset's suite) or
                         confirmation (the same sizes and families drawn at the
                         generator seed reserved for final figures, none of the
                         development suite's tasks; never choose a setting on it)
  --category LIST        e.g. base,miss_param (default: all four)
  --limit N              the first N tasks of each category
Run
  --concurrency N        episodes at once (default 8)
  --max-batch N          in process: greedy requests decoded together (default 8;
                         1 makes every reply bit-identical to a lone request)
  --max-tokens N         tokens per reply
  --temperature T        default 0 (greedy); --top-p P; --seed N (default 0)
  --max-model-calls N    model calls per episode (SEAL's budget); BFCL's own runner
                         instead force-quits a turn after 20 steps:
                         --max-steps-per-turn 20 --max-model-calls 1000
  --retries N            endpoint retries on 429/5xx/network errors (default 5),
                         with exponential backoff; --timeout S per request (default 300)
  --out DIR              results directory (default runs/eval/<name>-<source>)
  --name NAME            model name in the score files
  --fresh                discard the results already in --out
  --json                 print the report as JSON
  --device D             in process: where the model runs: cpu (default, or
                         $SEAL_DEVICE), webgpu, cuda, or auto (the best
                         available); a device that does not work here stops
                         the command with what is missing (exit 4)
  --precision P          in process: the decoder's matrix products in fp32
                         (default), fp16 or bf16 (emulated on the CPU)

Exit codes: 0 done, 2 bad flags, 3 bad data or model, 4 backend unavailable,
5 endpoint unreachable after retries, 130 interrupted (rerun to resume).`;

function hashJson(value: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(value))
    .digest('hex')
    .slice(0, 16);
}

/** Options of {@link runEval}: the command context, plus a signal for embedding and tests. */
export type RunEvalOptions = CommandContext & { signal?: AbortSignal };

/** `seal eval`. */
export async function runEval({
  argv,
  output,
  signal,
}: RunEvalOptions): Promise<number> {
  // Connect the Dots pack evaluation (@seal/cod).
  if (requestsPacks(argv)) return runEvalPacks({ argv, output });
  // A bring-your-own environment (--env SPEC --tasks FILE).
  if (requestsEnv(argv)) return runEvalEnv({ argv, output });
  const { flags } = parseFlags({
    argv,
    options: {
      model: { type: 'string' },
      endpoint: { type: 'string' },
      'api-key': { type: 'string' },
      mode: { type: 'string' },
      protocol: { type: 'string' },
      'prompt-mode': { type: 'string' },
      'task-source': { type: 'string' },
      preset: { type: 'string' },
      data: { type: 'string' },
      split: { type: 'string' },
      suite: { type: 'string' },
      category: { type: 'string' },
      limit: { type: 'string' },
      concurrency: { type: 'string' },
      'max-batch': { type: 'string' },
      'max-tokens': { type: 'string' },
      temperature: { type: 'string' },
      'top-p': { type: 'string' },
      seed: { type: 'string' },
      'max-model-calls': { type: 'string' },
      'max-steps-per-turn': { type: 'string' },
      retries: { type: 'string' },
      timeout: { type: 'string' },
      out: { type: 'string' },
      name: { type: 'string' },
      fresh: { type: 'boolean' },
      json: { type: 'boolean' },
      ...deviceFlagOption,
      ...precisionFlagOption,
    },
    schema: flagsSchema,
  });
  const started = Date.now();
  const local = flags.endpoint === undefined;
  if (local && flags.model === undefined) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `pass --model DIR (a local model) or --endpoint URL\n\n${evalHelp}`,
    });
  }
  const resolved = await resolvePolicyHints(flags);
  const { hints } = resolved;
  const mode: ChatEvalMode = flags.mode;
  const protocol: ProtocolName =
    flags.protocol ?? hints.protocol ?? 'bfcl-python';
  if (mode === 'prompting' && protocol === 'openai-tools') {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: '--protocol openai-tools is function calling: use --mode fc',
    });
  }
  // BFCL's full prompt unless told otherwise: the compact one is for the
  // project's own small models, whose hints (warm start or training run) say so.
  const promptMode: PromptMode =
    flags['prompt-mode'] ?? hints.promptMode ?? 'full';
  const promptModeDefaulted =
    flags['prompt-mode'] === undefined && hints.promptMode === undefined;
  const maxTokens = flags['max-tokens'] ?? hints.maxTokens ?? 512;
  const temperature = flags.temperature ?? 0;
  const topP = flags['top-p'];
  const seed = flags.seed ?? 0;
  const limits = {
    maxModelCalls: flags['max-model-calls'] ?? hints.maxModelCalls ?? 20,
    ...(flags['max-steps-per-turn'] === undefined
      ? {}
      : { maxStepsPerTurn: flags['max-steps-per-turn'] }),
  };
  const suite = await loadTaskSuite({ flags, hints });
  if (suite.tasks.length === 0) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: 'no task matches --split/--category/--limit',
    });
  }

  const source: PolicySource = await openPolicySource({
    flags,
    resolved,
    output,
    protocol,
    promptMode,
  });
  try {
    const config = {
      policy: source.identity,
      tasks: suite.identity,
      mode,
      protocol,
      promptMode,
      sampling: {
        maxTokens,
        temperature,
        ...(topP === undefined ? {} : { topP }),
        seed,
      },
      limits,
      overlayHash: emptyOverlayHash,
    };
    const configHash = hashJson({ v: 1, ...config });
    const sourceLabel =
      flags['task-source'] === 'bfcl'
        ? 'bfcl'
        : `embedded-${(suite.identity['preset'] as string) ?? ''}`;
    const outDirectory = resolve(
      flags.out ??
        join(
          'runs',
          'eval',
          `${source.label}-${sourceLabel}`.replace(/[^\w.-]+/g, '_'),
        ),
    );
    await mkdir(outDirectory, { recursive: true });
    const resultsPath = join(outDirectory, 'results.jsonl');
    if (flags.fresh) await rm(resultsPath, { force: true });
    const results = await openEvalResultsFile({
      path: resultsPath,
      configHash,
    });
    const todo = suite.tasks.filter((task) => !results.records.has(task.id));
    const resumed = suite.tasks.length - todo.length;
    output.line(
      `seal eval: ${source.name} · ${mode} (${mode === 'fc' ? 'openai-tools' : protocol}, ${promptMode} prompt) · ${suite.description}`,
    );
    if (promptModeDefaulted && mode === 'prompting') {
      output.line(
        `  full prompt: BFCL's, as the model ${local ? 'directory' : 'card'} carries no training hints (pass --prompt-mode compact for the project's small models)`,
      );
    }
    output.line(
      `  ${suite.tasks.length} tasks${resumed > 0 ? ` (${resumed} already in ${resultsPath}, ${todo.length} to run)` : ''} · max ${maxTokens} tokens per reply, ${limits.maxModelCalls} calls per episode · temperature ${temperature} · seed ${seed}`,
    );
    if (results.recovered.truncatedBytes > 0) {
      output.line(
        `  dropped a cut last line (${results.recovered.truncatedBytes} bytes) from ${resultsPath}; its task runs again`,
      );
    }
    const fresh: EvalResultRecord[] = [];
    let passed = 0;
    const bar = output.progress('eval', todo.length);
    try {
      await evaluateChatModel({
        model: source.model,
        tasks: todo,
        backend: createBfclBackend({ runtime: suite.runtime }),
        verifier: createBfclVerifier({ runtime: suite.runtime }),
        mode,
        protocol,
        promptMode,
        maxTokens,
        temperature,
        ...(topP === undefined ? {} : { topP }),
        seed,
        limits,
        concurrency: flags.concurrency ?? 8,
        ...(signal === undefined ? {} : { signal }),
        onEpisode: async (episode) => {
          const record = toEvalResultRecord({ episode, configHash });
          await results.append(record);
          fresh.push(record);
          if (record.valid) passed++;
          bar.tick(1, `${passed}/${fresh.length} passed`);
        },
      });
    } finally {
      bar.done();
      await results.close();
    }
    const byId = new Map<string, EvalResultRecord>(results.records);
    for (const record of fresh) byId.set(record.taskId, record);
    return reportEval({
      output,
      source,
      suite,
      byId,
      config,
      configHash,
      outDirectory,
      resumed,
      ran: fresh.length,
      started,
    });
  } finally {
    await source.close();
  }
}
