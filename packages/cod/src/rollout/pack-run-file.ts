import {
  appendFileSync,
  existsSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import {
  packRunRecordSchema,
  parseJsonLines,
  SealError,
  safeParseJsonLines,
  type PackRunRecord,
} from '@seal/spec';

/** The pack runs already in a file, by pack, complete packs only. */
export type PackRunFileState = {
  /** Packs whose `groupSize` runs are all present, by pack id, runs in order. */
  completed: Map<string, PackRunRecord[]>;
  /** Records of incomplete packs (and a torn last line) that were left out. */
  dropped: number;
};

/**
 * Reads a pack-run JSON Lines file for resuming: only packs with all
 * `groupSize` runs count; a torn last line (a kill during a write) and the
 * runs of an incomplete pack are dropped. Any other line that does not parse
 * is corruption: `INVALID_DATA` with the line number.
 */
export function readPackRunFile({
  path,
  groupSize,
}: {
  path: string;
  groupSize: number;
}): PackRunFileState {
  const completed = new Map<string, PackRunRecord[]>();
  if (!existsSync(path)) return { completed, dropped: 0 };
  const text = readFileSync(path, 'utf8');
  // A file written whole ends with '\n'; what follows the last one is a line
  // a kill cut short, kept only if it is a whole record.
  const cut = text.lastIndexOf('\n') + 1;
  const records = parseJsonLines({
    text: text.slice(0, cut),
    source: path,
    schema: packRunRecordSchema,
  });
  let dropped = 0;
  const tail = text.slice(cut);
  if (tail.trim() !== '') {
    const last = safeParseJsonLines({
      text: tail,
      source: `${path} (last line)`,
      schema: packRunRecordSchema,
    });
    records.push(...last.values);
    dropped += last.warnings.length;
  }
  const byPack = new Map<string, PackRunRecord[]>();
  for (const record of records) {
    const runs = byPack.get(record.packId) ?? [];
    runs.push(record);
    byPack.set(record.packId, runs);
  }
  for (const [packId, runs] of byPack) {
    const indices = new Set(runs.map((run) => run.runIndex));
    const whole =
      indices.size === groupSize &&
      runs.length === groupSize &&
      [...indices].every((i) => i < groupSize);
    if (whole)
      completed.set(
        packId,
        [...runs].sort((a, b) => a.runIndex - b.runIndex),
      );
    else dropped += runs.length;
  }
  return { completed, dropped };
}

/**
 * Opens a pack-run file for appending after a resume: the file is rewritten
 * (atomically, temp file and rename) to hold only its complete packs, so a
 * pack cut by a kill is run again from its start and nothing is duplicated.
 */
export function openPackRunFile({
  path,
  groupSize,
}: {
  path: string;
  groupSize: number;
}): PackRunFileState & {
  /** Appends every run of one pack in one write. */
  appendPack(records: readonly PackRunRecord[]): void;
} {
  const state = readPackRunFile({ path, groupSize });
  if (state.dropped > 0) {
    const kept = [...state.completed.values()].flat();
    const temporary = `${path}.tmp`;
    writeFileSync(
      temporary,
      kept.map((record) => `${JSON.stringify(record)}\n`).join(''),
    );
    renameSync(temporary, path);
  }
  return {
    ...state,
    appendPack(records) {
      if (records.length !== groupSize) {
        throw new SealError({
          code: 'INVALID_ARGUMENT',
          message: `a pack is written whole: expected ${groupSize} runs, got ${records.length}`,
          details: { groupSize, runs: records.length },
        });
      }
      appendFileSync(
        path,
        records.map((record) => `${JSON.stringify(record)}\n`).join(''),
      );
      state.completed.set(records[0]!.packId, [...records]);
    },
  };
}
