import {
  PyDict,
  parsePyJson,
  pyRepr,
  toJsonValue,
  type PyValue,
} from '@seal/python';
import { SealError } from '@seal/spec';
import { BfclRealm } from '../api/bfcl-realm';
import type { BfclDataset } from '../data/load-bfcl-data';
import { BfclSession } from '../session/bfcl-session';
import { diffComparable } from '../state/comparable-state';

/** Where a replay first departs from the golden line. */
export type ReplayDifference = {
  /** `initial` state, a turn's `state`, a call's `result`, or the `call` string itself. */
  kind: 'initial-state' | 'state' | 'result' | 'call' | 'turn-count' | 'entry';
  turn?: number;
  callIndex?: number;
  call?: string;
  /** Dotted state path (`TradingBot.orders.12345.status`) for state differences. */
  path?: string;
  expected: string;
  actual: string;
};

/** The replay of one golden line. */
export type ReplayEntryResult = {
  id: string;
  match: boolean;
  difference?: ReplayDifference;
  /** Calls executed. */
  calls: number;
};

function show(value: PyValue | undefined): string {
  if (value === undefined) return '<absent>';
  const text = JSON.stringify(toJsonValue(value));
  return text.length > 160 ? `${text.slice(0, 157)}...` : text;
}

function stateDifference(
  expected: PyValue,
  actual: PyValue,
  kind: 'initial-state' | 'state',
  turn?: number,
): ReplayDifference | undefined {
  const difference = diffComparable(expected, actual);
  if (!difference) return undefined;
  return {
    kind,
    turn,
    path: difference.path,
    expected: show(difference.expected),
    actual: show(difference.actual),
  };
}

/**
 * Replays one golden line (see `../shared/bfcl-golden/README.md`): runs the
 * entry's ground truth on fresh instances in a fresh realm and compares the
 * initial state, every call's result string and every turn's state.
 */
export function replayGoldenLine({
  dataset,
  line,
  callsFrom = 'entry',
}: {
  dataset: BfclDataset;
  line: PyDict;
  /**
   * `entry`: run the entry's ground truth and check the line records the same
   * calls (golden replays). `line`: run the calls the line records, whatever
   * they are (differential tests on mutated call sequences).
   */
  callsFrom?: 'entry' | 'line';
}): ReplayEntryResult {
  const id = String(line.get('id'));
  const entry = dataset.byId.get(id);
  if (!entry) {
    return {
      id,
      match: false,
      calls: 0,
      difference: {
        kind: 'entry',
        expected: id,
        actual: 'no such entry in the data directory',
      },
    };
  }
  const session = new BfclSession({
    realm: new BfclRealm({ data: dataset.runtime }),
    initialConfig: entry.initialConfig,
    involvedClasses: entry.involvedClasses,
    longContext: line.get('long_context') === true,
  });
  let calls = 0;
  const fail = (difference: ReplayDifference): ReplayEntryResult => ({
    id,
    match: false,
    calls,
    difference,
  });

  const initial = stateDifference(
    line.get('initial_state')!,
    session.comparableState(),
    'initial-state',
  );
  if (initial) return fail(initial);

  const turns = (line.get('turns') ?? []) as PyValue[];
  if (callsFrom === 'entry' && turns.length !== entry.groundTruth.length) {
    return fail({
      kind: 'turn-count',
      expected: String(turns.length),
      actual: String(entry.groundTruth.length),
    });
  }
  for (const [turnIndex, turnValue] of turns.entries()) {
    const turn = turnValue as PyDict;
    const expectedCalls = (turn.get('calls') ?? []) as PyValue[];
    const groundTruth =
      callsFrom === 'entry'
        ? entry.groundTruth[turnIndex]!
        : expectedCalls.map((call) => String((call as PyDict).get('call')));
    if (expectedCalls.length !== groundTruth.length) {
      return fail({
        kind: 'call',
        turn: turnIndex,
        expected: `${expectedCalls.length} calls`,
        actual: `${groundTruth.length} calls`,
      });
    }
    for (const [callIndex, callValue] of expectedCalls.entries()) {
      const expected = callValue as PyDict;
      const callText = groundTruth[callIndex]!;
      if (expected.get('call') !== callText) {
        return fail({
          kind: 'call',
          turn: turnIndex,
          callIndex,
          expected: String(expected.get('call')),
          actual: callText,
        });
      }
      const execution = session.execute(callText);
      calls++;
      if (execution.result !== expected.get('result')) {
        return fail({
          kind: 'result',
          turn: turnIndex,
          callIndex,
          call: callText,
          expected: pyRepr(expected.get('result') ?? null),
          actual: pyRepr(execution.result),
        });
      }
    }
    const state = stateDifference(
      turn.get('state')!,
      session.comparableState(),
      'state',
      turnIndex,
    );
    if (state) return fail(state);
  }
  return { id, match: true, calls };
}

/** Parses a golden JSON Lines text; throws INVALID_DATA naming the line. */
export function parseGoldenLines({
  text,
  source,
}: {
  text: string;
  source: string;
}): PyDict[] {
  const lines: PyDict[] = [];
  text.split('\n').forEach((raw, index) => {
    if (raw.trim() === '') return;
    let value: PyValue;
    try {
      value = parsePyJson(raw);
    } catch (error) {
      throw new SealError({
        code: 'INVALID_DATA',
        message: `${source}:${index + 1}: invalid JSON (${(error as Error).message})`,
        cause: error,
        details: { source: `${source}:${index + 1}` },
      });
    }
    if (
      !(value instanceof PyDict) ||
      typeof value.get('id') !== 'string' ||
      !Array.isArray(value.get('turns'))
    ) {
      throw new SealError({
        code: 'INVALID_DATA',
        message: `${source}:${index + 1}: field 'id' or 'turns': not a golden replay line`,
        details: { source: `${source}:${index + 1}` },
      });
    }
    lines.push(value);
  });
  return lines;
}

/** One line describing a mismatch, for `seal bfcl replay`. */
export function describeDifference(result: ReplayEntryResult): string {
  const d = result.difference;
  if (!d) return `${result.id}: match`;
  const where = [
    d.turn === undefined ? undefined : `turn ${d.turn}`,
    d.callIndex === undefined
      ? undefined
      : `call ${d.callIndex}${d.call ? ` ${d.call}` : ''}`,
    d.path === undefined
      ? undefined
      : `state ${d.path === '' ? '<root>' : d.path}`,
  ]
    .filter((part) => part !== undefined)
    .join(', ');
  return `${result.id}: ${d.kind}${where ? ` (${where})` : ''}: expected ${d.expected} actual ${d.actual}`;
}
