/**
 * `pnpm bench verify [--data DIR] [--repeat N]`: verification throughput in
 * episodes per second, on two sets:
 * - the 800 BFCL v3 multi-turn ground truths, each as a trajectory (one step
 *   per turn holding that turn's calls);
 * - the 300 mutated trajectories of `shared/bfcl-checker/verdicts.jsonl`.
 * Variants, alternated in one run and timed as the median of N runs:
 * - bare replay: the same model and ground-truth calls executed on two fresh
 *   sessions in one realm, no checks (the execution verification cannot skip);
 * - verify: `verifyTrajectory`, BFCL's official verdict plus SEAL's per-turn
 *   scorer, progress metrics and rewards in one pass;
 * - (ground truths only) record → verify: the verifier's record path (schema
 *   validation included), on EpisodeRecords made beforehand by scripted
 *   `@seal/env` episodes (BFCL's prompting format) replaying the ground truth;
 * - (ground truths only) record → verify → diagnose → capability state: the
 *   verifier's record path (schema validation included), `diagnoseEpisode` and
 *   `CapabilityState.observeDiagnosis`, on EpisodeRecords made beforehand by
 *   scripted `@seal/env` episodes (BFCL's prompting format) replaying the
 *   ground truth.
 * The ratios to the bare replay are the price of the checks.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  BfclRealm,
  BfclSession,
  bfclSessionSpec,
  bfclTasks,
  createBfclBackend,
  loadBfclData,
  resolveBfclDataDir,
  type BfclRuntimeData,
} from '@seal/bfcl';
import { sharedBfclDataDir, sharedDir } from '@seal/bfcl/test';
import { CapabilityState, diagnoseEpisode } from '@seal/diagnose';
import { createEpisode } from '@seal/env';
import { parseJsonLines, type EpisodeRecord, type Task } from '@seal/spec';
import { createBfclVerifier, verifyTrajectory } from '@seal/verifier';
import * as z from 'zod';
import { benchFlags } from './_args';

const flags = benchFlags(['data', 'repeat']);
const flag = flags.value;
const dir = resolveBfclDataDir({
  flag: flag('data') ?? process.env['SEAL_BFCL_DATA'] ?? sharedBfclDataDir,
});
const repeat = Number(flag('repeat') ?? 5);
const dataset = await loadBfclData({ dir });
const runtime = dataset.runtime;
const tasks = bfclTasks({ dataset });
const taskById = new Map(tasks.map((task) => [task.id, task]));

type Case = { task: Task; trajectory: string[][][] };

const groundTruthCases: Case[] = tasks.map((task) => ({
  task,
  trajectory: task.groundTruth.map((calls) =>
    calls.length > 0 ? [calls] : [],
  ),
}));

const verdictsPath = join(sharedDir, 'bfcl-checker', 'verdicts.jsonl');
/** The fields of a BFCL checker verdict this benchmark reads. */
const checkerVerdictSchema = z.object({
  id: z.string(),
  model_result_decoded: z.array(z.array(z.array(z.string()))),
});
const checkerCases: Case[] = parseJsonLines({
  text: readFileSync(verdictsPath, 'utf8'),
  source: verdictsPath,
  schema: checkerVerdictSchema,
}).map((parsed) => {
  const task = taskById.get(parsed.id);
  if (!task) throw new Error(`${verdictsPath}: no BFCL entry ${parsed.id}`);
  return { task, trajectory: parsed.model_result_decoded };
});

/** Scripted episodes replaying the ground truth, recorded outside the timing. */
function scriptedRecord(task: Task): EpisodeRecord {
  const episode = createEpisode({
    task,
    backend: createBfclBackend({ runtime }),
    protocol: 'bfcl-python',
  });
  episode.reset();
  for (const calls of task.groundTruth) {
    for (const message of calls.length > 0
      ? [`[${calls.join(', ')}]`, 'Done.']
      : ['Done.']) {
      if (!episode.done) episode.step(message);
    }
  }
  return episode.record();
}
const records = tasks.map((task) => ({ task, record: scriptedRecord(task) }));

function bareReplay(cases: readonly Case[], data: BfclRuntimeData): number {
  let calls = 0;
  for (const { task, trajectory } of cases) {
    const spec = bfclSessionSpec(task);
    const realm = new BfclRealm({ data });
    const model = new BfclSession({ realm, ...spec });
    const truth = new BfclSession({ realm, ...spec });
    task.groundTruth.forEach((gtCalls, turn) => {
      for (const step of trajectory[turn] ?? []) {
        for (const call of step) {
          model.execute(call);
          calls++;
        }
      }
      for (const call of gtCalls) {
        truth.execute(call);
        calls++;
      }
    });
  }
  return calls;
}

function verifyAll(cases: readonly Case[]): number {
  let valid = 0;
  for (const { task, trajectory } of cases) {
    if (verifyTrajectory({ task, trajectory, runtime }).official.valid) valid++;
  }
  return valid;
}

const verifier = createBfclVerifier({ runtime });
function diagnoseAll(): number {
  const state = new CapabilityState();
  let valid = 0;
  for (const { task, record } of records) {
    const verification = verifier.verifySync({ task, record });
    const diagnosis = diagnoseEpisode({ record, verification });
    state.observeDiagnosis({ diagnosis });
    if (diagnosis.success) valid++;
  }
  return valid;
}

function verifyRecords(): number {
  let valid = 0;
  for (const { task, record } of records) {
    if (verifier.verifySync({ task, record }).official.valid) valid++;
  }
  return valid;
}

const variants = [
  {
    set: 'ground truth',
    label: 'bare replay',
    run: () => bareReplay(groundTruthCases, runtime),
    episodes: groundTruthCases.length,
  },
  {
    set: 'ground truth',
    label: 'verify (official + per-turn)',
    run: () => verifyAll(groundTruthCases),
    episodes: groundTruthCases.length,
  },
  {
    set: 'ground truth',
    label: 'record → verify',
    run: verifyRecords,
    episodes: records.length,
  },
  {
    set: 'ground truth',
    label: 'record → verify → diagnose → state',
    run: diagnoseAll,
    episodes: records.length,
  },
  {
    set: 'checker cases',
    label: 'bare replay',
    run: () => bareReplay(checkerCases, runtime),
    episodes: checkerCases.length,
  },
  {
    set: 'checker cases',
    label: 'verify (official + per-turn)',
    run: () => verifyAll(checkerCases),
    episodes: checkerCases.length,
  },
] as const;

// Warm up the JIT, then alternate the variants so drift hits all alike.
const outcomes = variants.map((variant) => variant.run());
const times = variants.map(() => [] as number[]);
for (let i = 0; i < repeat; i++) {
  variants.forEach((variant, index) => {
    const start = performance.now();
    variant.run();
    times[index]!.push(performance.now() - start);
  });
}
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const medians = times.map(median);

console.log(
  `Verification throughput: ${groundTruthCases.length} ground truths, ${checkerCases.length} checker cases, median of ${repeat} runs\n`,
);
console.log(
  '| set | variant | total ms | episodes/s | µs per episode | × bare replay |',
);
console.log('| --- | --- | ---: | ---: | ---: | ---: |');
variants.forEach((variant, index) => {
  const ms = medians[index]!;
  const bare =
    medians[
      variants.findIndex(
        (v) => v.set === variant.set && v.label === 'bare replay',
      )
    ]!;
  console.log(
    `| ${variant.set} | ${variant.label} | ${ms.toFixed(0)} | ${((variant.episodes / ms) * 1000).toFixed(0)} | ${(
      (ms * 1000) /
      variant.episodes
    ).toFixed(0)} | ${(ms / bare).toFixed(2)} |`,
  );
});
const outcome = (set: string, label: string) =>
  outcomes[variants.findIndex((v) => v.set === set && v.label === label)];
console.log(
  `\ncalls executed per bare replay: ground truth ${outcome('ground truth', 'bare replay')}, ` +
    `checker cases ${outcome('checker cases', 'bare replay')}; valid: ground truth ` +
    `${outcome('ground truth', 'verify (official + per-turn)')}/${groundTruthCases.length}, ` +
    `scripted records ${outcome('ground truth', 'record → verify')}/${records.length}, ` +
    `checker cases ${outcome('checker cases', 'verify (official + per-turn)')}/${checkerCases.length}`,
);
