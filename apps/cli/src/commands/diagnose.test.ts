import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { bfclTasks, createBfclBackend, type BfclDataset } from '@seal/bfcl';
import {
  hasSharedBfclData,
  loadSharedBfclData,
  sharedBfclDataDir,
  sharedDataSkipMessage,
} from '@seal/bfcl/test';
import { createEpisode } from '@seal/env';
import type {
  DiagnosisSummary,
  EpisodeDiagnosis,
  EpisodeRecord,
  Task,
} from '@seal/spec';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { createOutput } from '../ui/output';
import { runDiagnose } from './diagnose';

const reply = 'I have finished this part of the task.';

/**
 * Fixture generator: runs `task` through `@seal/env` with the real BFCL
 * backend and a scripted model (BFCL's prompting format), one message list per
 * turn; by default the ground truth, with `override` replacing some turns.
 */
function scriptedRecord({
  task,
  dataset,
  override = {},
  episodeId,
}: {
  task: Task;
  dataset: BfclDataset;
  override?: Record<number, string[]>;
  episodeId: string;
}): EpisodeRecord {
  const episode = createEpisode({
    task,
    backend: createBfclBackend({ runtime: dataset.runtime }),
    protocol: 'bfcl-python',
    episodeId,
  });
  episode.reset();
  task.groundTruth.forEach((calls, turn) => {
    const messages =
      override[turn] ??
      (calls.length > 0 ? [`[${calls.join(', ')}]`, reply] : [reply]);
    for (const message of messages) if (!episode.done) episode.step(message);
  });
  return episode.record();
}

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'seal-cli-diagnose-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function run(argv: string[]): Promise<{ code: number; stdout: string }> {
  const stdout = new PassThrough();
  const chunks: Buffer[] = [];
  stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  const output = createOutput({
    json: argv.includes('--json'),
    stdout,
    stderr: new PassThrough(),
  });
  const code = await runDiagnose({ argv, output });
  return { code, stdout: Buffer.concat(chunks).toString('utf8') };
}

describe.skipIf(!hasSharedBfclData)('seal diagnose (shared BFCL data)', () => {
  let dataset: BfclDataset;
  let tasks: Task[];
  let lines: string[];
  beforeAll(async () => {
    dataset = await loadSharedBfclData();
    tasks = bfclTasks({
      dataset,
      ids: ['multi_turn_base_1', 'multi_turn_miss_func_1'],
    });
    const [base, missFunc] = tasks as [Task, Task];
    lines = [
      scriptedRecord({ task: base, dataset, episodeId: 'gt' }),
      // Turn 2 drops the grep: response_mismatch.
      scriptedRecord({
        task: base,
        dataset,
        episodeId: 'dropped',
        override: { 2: ["[cd(folder='archive')]", reply] },
      }),
      // Turn 3 first misnames an argument, then retries: pass + argument_mismatch.
      scriptedRecord({
        task: base,
        dataset,
        episodeId: 'retried',
        override: {
          3: [
            "[tail(file='log.txt', lines=20)]",
            "[tail(file_name='log.txt', lines=20)]",
            reply,
          ],
        },
      }),
      scriptedRecord({ task: missFunc, dataset, episodeId: 'abstained' }),
    ].map((record) => JSON.stringify(record));
  });

  it('should print per-turn tags and the summary tables', async () => {
    const file = join(await tempDir(), 'episodes.jsonl');
    await writeFile(file, `${lines.join('\n')}\n`);
    const { code, stdout } = await run([file, '--data', sharedBfclDataDir]);
    expect(code).toBe(0);
    expect(stdout).toContain(
      'dropped  multi_turn_base_1  reward 0  dominant response_mismatch',
    );
    expect(stdout).toMatch(/turn 2 {2}response_mismatch/);
    expect(stdout).toMatch(/turn 3 {2}pass +\+argument_mismatch/);
    expect(stdout).toContain(
      'By tag (once per turn, each with its episode reward)',
    );
    expect(stdout).toContain('By category and tag');
    expect(stdout).toMatch(/multi_turn_base +3 +0\.667/);
    expect(stdout).toMatch(/multi_turn_miss_func +1 +1/);
  });

  it('should print the structured result with --json', async () => {
    const file = join(await tempDir(), 'episodes.jsonl');
    await writeFile(file, lines.join('\n'));
    const { stdout } = await run([file, '--data', sharedBfclDataDir, '--json']);
    const result = JSON.parse(stdout) as {
      episodes: { source: string; diagnosis: EpisodeDiagnosis }[];
      summary: DiagnosisSummary;
    };
    expect(result.episodes.map(({ source }) => source)).toEqual(
      [1, 2, 3, 4].map((line) => `${file}:${line}`),
    );
    expect(
      result.episodes.map(({ diagnosis }) => diagnosis.dominantTag),
    ).toEqual(['pass', 'response_mismatch', 'pass', 'correct_abstention']);
    expect(result.summary).toMatchObject({ episodes: 4, accuracy: 0.75 });
    expect(result.summary.tags['response_mismatch']).toMatchObject({
      count: 1,
      rewardMean: 0,
    });
    expect(result.summary.fineTags['argument_mismatch']).toMatchObject({
      count: 1,
      rewardMean: 1,
    });
    expect(result.summary.categories['multi_turn_miss_func']).toMatchObject({
      count: 1,
      successRate: 1,
    });
  });

  it('should read tasks from a Task JSON Lines file and write the capability state', async () => {
    const dir = await tempDir();
    const file = join(dir, 'episodes.jsonl');
    const tasksFile = join(dir, 'tasks.jsonl');
    const stateFile = join(dir, 'state', 'capability_state.json');
    await writeFile(file, lines.slice(0, 2).join('\n'));
    await writeFile(tasksFile, `${JSON.stringify(tasks[0])}\n`);
    const { stdout } = await run([
      file,
      '--data',
      sharedBfclDataDir,
      '--tasks',
      tasksFile,
      '--state',
      stateFile,
      '--json',
    ]);
    expect(
      (JSON.parse(stdout) as { summary: DiagnosisSummary }).summary.episodes,
    ).toBe(2);
    const state = JSON.parse(await readFile(stateFile, 'utf8')) as {
      schemaVersion: number;
      observeCount: number;
    };
    expect(state).toMatchObject({ schemaVersion: 1, observeCount: 2 });
  });

  it('should name the file and line of a malformed record', async () => {
    const file = join(await tempDir(), 'episodes.jsonl');
    const broken = {
      ...(JSON.parse(lines[0]!) as EpisodeRecord),
      turns: 'none',
    };
    await writeFile(file, [lines[0], JSON.stringify(broken)].join('\n'));
    await expect(
      run([file, '--data', sharedBfclDataDir]),
    ).rejects.toMatchObject({
      code: 'INVALID_DATA',
      details: { source: `${file}:2` },
    });
    await writeFile(file, `${lines[0]}\n{not json`);
    await expect(
      run([file, '--data', sharedBfclDataDir]),
    ).rejects.toMatchObject({
      code: 'INVALID_DATA',
      details: { source: `${file}:2` },
    });
  });

  it('should report a task that is not in the task source', async () => {
    const dir = await tempDir();
    const file = join(dir, 'episodes.jsonl');
    const tasksFile = join(dir, 'tasks.jsonl');
    await writeFile(file, lines[3]!);
    await writeFile(tasksFile, JSON.stringify(tasks[0]));
    await expect(
      run([file, '--data', sharedBfclDataDir, '--tasks', tasksFile]),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
      details: { source: `${file}:1`, taskId: 'multi_turn_miss_func_1' },
    });
  });
});

describe('seal diagnose arguments', () => {
  it('should require an episode file', async () => {
    await expect(run(['--data', 'x'])).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
  });

  it('should report a missing episode file', async () => {
    await expect(
      run([join(tmpdir(), 'no-such-episodes.jsonl'), '--data', 'x']),
    ).rejects.toMatchObject({
      code: 'FILE_NOT_FOUND',
    });
  });
});

describe.skipIf(hasSharedBfclData)(
  'seal diagnose without the shared BFCL data',
  () => {
    it.skip(sharedDataSkipMessage, () => {});
  },
);
