import { open, readFile, truncate, type FileHandle } from 'node:fs/promises';
import {
  SealError,
  episodeDiagnosisSchema,
  episodeRecordSchema,
  failureTagSchema,
  parseJsonText,
  safeParseWithSchema,
  taskCategorySchema,
  verifierV1ResultSchema,
  type SafeParseResult,
} from '@seal/spec';
import * as z from 'zod';
import type { ChatEvaluatedEpisode } from './evaluate-chat-model';

/**
 * One line of an evaluation results file: a finished task with its episode,
 * BFCL's verdict and the diagnosis. Written once per task, as it finishes.
 */
export const evalResultRecordSchema = z.object({
  schemaVersion: z.literal(1),
  type: z.literal('eval-result'),
  /** The task (BFCL entry id or generated task id). */
  taskId: z.string().min(1),
  category: taskCategorySchema,
  /**
   * Identity of the evaluation's settings (model, task source, sampling,
   * protocol, limits): a file only resumes under the same hash.
   */
  configHash: z.string().min(1),
  /** Hash of the interface overlay in force: always the empty overlay's. */
  overlayHash: z.string().min(1),
  /** BFCL's official verdict. */
  valid: z.boolean(),
  /** SEAL's tag per ground-truth turn. */
  tags: z.array(failureTagSchema),
  /** Wall time of the episode in milliseconds. */
  durationMs: z.number().nonnegative(),
  /** When the task finished (ISO 8601). */
  finishedAt: z.string(),
  record: episodeRecordSchema,
  verification: verifierV1ResultSchema,
  diagnosis: episodeDiagnosisSchema,
});

/** See {@link evalResultRecordSchema}. */
export type EvalResultRecord = z.infer<typeof evalResultRecordSchema>;

/** Validates one results-file record; throws `INVALID_DATA` naming `source`. */
export function parseEvalResultRecord({
  value,
  source,
}: {
  value: unknown;
  source?: string;
}): EvalResultRecord {
  const result = safeParseEvalResultRecord({ value, source });
  if (!result.success) throw result.error;
  return result.value;
}

/** Like {@link parseEvalResultRecord}, returning `{ success, value | error }`. */
export function safeParseEvalResultRecord({
  value,
  source,
}: {
  value: unknown;
  source?: string;
}): SafeParseResult<EvalResultRecord> {
  return safeParseWithSchema({
    schema: evalResultRecordSchema,
    value,
    ...(source === undefined ? {} : { source }),
  });
}

/** A finished episode as a results-file record. */
export function toEvalResultRecord({
  episode,
  configHash,
  finishedAt = new Date(),
}: {
  episode: ChatEvaluatedEpisode;
  configHash: string;
  finishedAt?: Date;
}): EvalResultRecord {
  return {
    schemaVersion: 1,
    type: 'eval-result',
    taskId: episode.task.id,
    category: episode.task.category,
    configHash,
    overlayHash: episode.record.overlayHash,
    valid: episode.result.official.valid,
    tags: episode.result.turns.map((turn) => turn.tag),
    durationMs: Math.round(episode.durationMs),
    finishedAt: finishedAt.toISOString(),
    record: episode.record,
    verification: episode.result,
    diagnosis: episode.diagnosis,
  };
}

/** An open results file (see {@link openEvalResultsFile}). */
export type EvalResultsFile = {
  readonly path: string;
  /** Records already in the file, by task id (the first of duplicates wins). */
  readonly records: ReadonlyMap<string, EvalResultRecord>;
  /** What opening repaired: bytes of a cut last line removed, duplicate lines ignored. */
  readonly recovered: { truncatedBytes: number; duplicates: number };
  /** Appends one record as a line and flushes it to disk before resolving. */
  append(record: EvalResultRecord): Promise<void>;
  close(): Promise<void>;
};

/**
 * Opens (or creates) a JSON Lines results file for appending, after reading
 * what an earlier run left there, so an interrupted evaluation resumes
 * without losing or repeating a task: every complete line is a finished
 * task; a last line cut by a crash (no newline, not valid JSON) is removed
 * from the file; a repeated task id keeps its first record. Lines written
 * under another `configHash` refuse the file with `INVALID_ARGUMENT`; a
 * damaged line elsewhere gives `INVALID_DATA` with its line number.
 */
export async function openEvalResultsFile({
  path,
  configHash,
}: {
  path: string;
  configHash: string;
}): Promise<EvalResultsFile> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    bytes = Buffer.alloc(0);
  }
  const records = new Map<string, EvalResultRecord>();
  let duplicates = 0;
  let truncatedBytes = 0;
  let needsNewline = false;
  let start = 0;
  let lineNumber = 0;
  while (start < bytes.length) {
    lineNumber++;
    const end = bytes.indexOf(0x0a, start);
    const last = end === -1;
    const text = bytes
      .subarray(start, last ? bytes.length : end)
      .toString('utf8');
    const source = `${path}:${lineNumber}`;
    if (text.trim() !== '') {
      let value: unknown;
      let parsedJson = true;
      try {
        value = parseJsonText({ text, source });
      } catch {
        parsedJson = false;
      }
      const parsed = parsedJson
        ? safeParseEvalResultRecord({ value, source })
        : undefined;
      if (parsed === undefined || !parsed.success) {
        if (last) {
          // A line cut by a crash mid-write: drop it, the task runs again.
          truncatedBytes = bytes.length - start;
          await truncate(path, start);
          break;
        }
        throw (
          parsed?.error ??
          new SealError({
            code: 'INVALID_DATA',
            message: `${source}: invalid JSON in the results file`,
            details: { source },
          })
        );
      }
      const record = parsed.value;
      if (record.configHash !== configHash) {
        throw new SealError({
          code: 'INVALID_ARGUMENT',
          message: `${source}: the results file was written by an evaluation with other settings (config ${record.configHash}, now ${configHash}); pass another --out or --fresh`,
          details: { source, found: record.configHash, expected: configHash },
        });
      }
      if (records.has(record.taskId)) duplicates++;
      else records.set(record.taskId, record);
      if (last) needsNewline = true;
    }
    if (last) break;
    start = end + 1;
  }

  let handle: FileHandle | undefined;
  let queue: Promise<void> = Promise.resolve();
  const write = async (line: string): Promise<void> => {
    handle ??= await open(path, 'a');
    if (needsNewline) {
      await handle.write('\n');
      needsNewline = false;
    }
    await handle.write(line);
    await handle.datasync();
  };
  return {
    path,
    records,
    recovered: { truncatedBytes, duplicates },
    append(record) {
      const line = `${JSON.stringify(record)}\n`;
      const result = queue.then(() => write(line));
      queue = result.catch(() => undefined);
      return result;
    },
    async close() {
      await queue;
      await handle?.close();
      handle = undefined;
    },
  };
}
