import {
  appendFileSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBfclBackend } from '@seal/bfcl';
import { createGeneratorRuntime, generateTasks } from '@seal/bfcl-tasks';
import { createBfclVerifier } from '@seal/verifier';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { evaluateChatModel } from './evaluate-chat-model';
import {
  openEvalResultsFile,
  toEvalResultRecord,
  type EvalResultRecord,
} from './eval-results-file';

function tempFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'seal-eval-results-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'results.jsonl');
}

function lines(path: string): string[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '');
}

let records: EvalResultRecord[] = [];

beforeAll(async () => {
  const runtime = createGeneratorRuntime();
  const tasks = generateTasks({ seed: 2, split: 'test-id', count: 4 });
  const episodes = await evaluateChatModel({
    model: {
      specificationVersion: 'v1',
      modelId: 'replier',
      complete: async () => ({
        message: { role: 'assistant', content: 'I cannot help.' },
        finishReason: 'stop',
        usage: { promptTokens: 1, completionTokens: 1 },
      }),
    },
    tasks,
    backend: createBfclBackend({ runtime }),
    verifier: createBfclVerifier({ runtime }),
  });
  records = episodes.map((episode) =>
    toEvalResultRecord({ episode, configHash: 'cfg-a' }),
  );
});

describe('openEvalResultsFile', () => {
  it('should append records as flushed lines and read them back by task id', async () => {
    const path = tempFile();
    const file = await openEvalResultsFile({ path, configHash: 'cfg-a' });
    expect(file.records.size).toBe(0);
    for (const record of records.slice(0, 2)) await file.append(record);
    // Flushed before close: a crash now loses nothing.
    expect(lines(path)).toHaveLength(2);
    await file.close();
    const reopened = await openEvalResultsFile({ path, configHash: 'cfg-a' });
    expect([...reopened.records.keys()]).toEqual(
      records.slice(0, 2).map((r) => r.taskId),
    );
    expect(reopened.records.get(records[0]!.taskId)).toEqual(records[0]);
    await reopened.close();
  });

  it('should drop a last line cut by a crash, and resume without loss or duplicates', async () => {
    const path = tempFile();
    const whole = records
      .slice(0, 2)
      .map((r) => JSON.stringify(r))
      .join('\n');
    const cut = JSON.stringify(records[2]).slice(0, 123);
    writeFileSync(path, `${whole}\n${cut}`);
    const file = await openEvalResultsFile({ path, configHash: 'cfg-a' });
    expect(file.recovered.truncatedBytes).toBe(Buffer.byteLength(cut));
    expect(file.records.size).toBe(2);
    expect(readFileSync(path, 'utf8')).toBe(`${whole}\n`);
    // The resumed run writes the tasks that were not done.
    for (const record of records.slice(2)) await file.append(record);
    await file.close();
    const ids = lines(path).map(
      (line) => (JSON.parse(line) as EvalResultRecord).taskId,
    );
    expect(ids).toEqual(records.map((r) => r.taskId));
  });

  it('should keep a complete last line that lacks its newline', async () => {
    const path = tempFile();
    writeFileSync(path, JSON.stringify(records[0]));
    const file = await openEvalResultsFile({ path, configHash: 'cfg-a' });
    expect(file.recovered.truncatedBytes).toBe(0);
    await file.append(records[1]!);
    await file.close();
    expect(
      lines(path).map((line) => (JSON.parse(line) as EvalResultRecord).taskId),
    ).toEqual([records[0]!.taskId, records[1]!.taskId]);
  });

  it('should count a repeated task once (the first record wins)', async () => {
    const path = tempFile();
    const later = { ...records[0]!, durationMs: 999_999 };
    writeFileSync(
      path,
      `${JSON.stringify(records[0])}\n${JSON.stringify(later)}\n`,
    );
    const file = await openEvalResultsFile({ path, configHash: 'cfg-a' });
    expect(file.recovered.duplicates).toBe(1);
    expect(file.records.get(records[0]!.taskId)!.durationMs).toBe(
      records[0]!.durationMs,
    );
    await file.close();
  });

  it('should refuse a file written with other settings', async () => {
    const path = tempFile();
    writeFileSync(path, `${JSON.stringify(records[0])}\n`);
    await expect(
      openEvalResultsFile({ path, configHash: 'cfg-b' }),
    ).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
  });

  it('should refuse a damaged line before the last one', async () => {
    const path = tempFile();
    writeFileSync(path, `${JSON.stringify(records[0])}\n{"broken": \n`);
    appendFileSync(path, `${JSON.stringify(records[1])}\n`);
    await expect(
      openEvalResultsFile({ path, configHash: 'cfg-a' }),
    ).rejects.toMatchObject({
      code: 'INVALID_DATA',
    });
  });
});
