import {
  genericTagsV2,
  type GroundTruthCallV2,
  type GroundTruthChecksV2,
  type ToolOutcomeV2,
  type TraceStepV2,
  type TurnVerdictV2,
} from '@seal/spec';
import { jsonEqual } from './json-equal';

/** What the ground-truth replay did in one turn. */
export type GroundTruthTurnV2 = {
  /** The ground-truth calls of the turn. */
  calls: readonly GroundTruthCallV2[];
  /** Their outcomes, in order (as many as ran). */
  outcomes: readonly ToolOutcomeV2[];
  /** Set when the replay failed in this turn (a call did not succeed, or the session threw). */
  error?: string;
  /** The ground-truth session's snapshot after the turn, if it has one. */
  snapshot?: unknown;
  /** Whether `snapshot` was taken. */
  hasSnapshot: boolean;
};

/** Options for {@link tagTurnV2}. */
export type TagTurnV2Options = {
  turn: number;
  groundTruth: GroundTruthTurnV2;
  /** The policy's steps in the turn. */
  steps: readonly TraceStepV2[];
  /** The policy session's snapshot after the turn (absent when it has none). */
  policySnapshot?: { value: unknown } | { error: string };
  checks: GroundTruthChecksV2;
};

// Informational tags: reported, but a turn carrying only these passes.
const fineTags = new Set(['recovery_failure']);
const priority = new Map<string, number>(
  genericTagsV2.map((tag, index) => [tag, index]),
);

function verdict({
  turn,
  tags,
  detail,
  scorable = true,
}: {
  turn: number;
  tags: string[];
  detail?: string;
  scorable?: boolean;
}): TurnVerdictV2 {
  const failing = tags.filter(
    (tag) => tag !== 'correct_abstention' && !fineTags.has(tag),
  );
  const pass = failing.length === 0;
  const ordered = [...tags].sort(
    (left, right) =>
      (priority.get(left) ?? priority.size) -
      (priority.get(right) ?? priority.size),
  );
  const primary = pass
    ? tags.includes('correct_abstention')
      ? 'correct_abstention'
      : 'pass'
    : ordered[0]!;
  return {
    turn,
    pass,
    tag: primary,
    tags: [primary, ...ordered.filter((tag) => tag !== primary)],
    scorable,
    ...(detail === undefined ? {} : { detail }),
  };
}

function describe(call: { name: string; arguments: unknown }): string {
  return `${call.name}(${JSON.stringify(call.arguments)})`;
}

/**
 * The verdict of one turn against its ground-truth replay, with SEAL's tag
 * names where they mean the same thing. In order: a failed replay is
 * `gt_error`; an empty ground-truth turn is `correct_abstention` or
 * `spurious_tool_call` (or `invalid_call`); no call where calls were
 * expected is `invalid_call` or `empty_turn_model_response`; then the
 * `calls` check (`wrong_tool`, `missing_call`, `argument_mismatch`,
 * `extra_call`), the `state` check (`state_mismatch`) and the `results`
 * check (`response_mismatch`). `recovery_failure` (a failed call with no
 * successful call after it) is reported beside them and fails a turn only
 * together with another tag.
 */
export function tagTurnV2({
  turn,
  groundTruth,
  steps,
  policySnapshot,
  checks,
}: TagTurnV2Options): TurnVerdictV2 {
  if (groundTruth.error !== undefined) {
    return verdict({
      turn,
      tags: ['gt_error'],
      detail: groundTruth.error,
      scorable: false,
    });
  }
  const calls = steps.flatMap((step) => (step.type === 'call' ? [step] : []));
  const invalid = steps.filter((step) => step.type === 'invalid');
  if (groundTruth.calls.length === 0) {
    if (calls.length > 0)
      return verdict({
        turn,
        tags: ['spurious_tool_call'],
        detail: `no call expected; called ${calls.map((step) => step.call.name).join(', ')}`,
      });
    if (invalid.length > 0)
      return verdict({
        turn,
        tags: ['invalid_call'],
        detail: invalid[0]!.error,
      });
    return verdict({ turn, tags: ['correct_abstention'] });
  }
  if (calls.length === 0) {
    if (invalid.length > 0)
      return verdict({
        turn,
        tags: ['invalid_call'],
        detail: invalid[0]!.error,
      });
    return verdict({
      turn,
      tags: ['empty_turn_model_response'],
      detail: `expected ${groundTruth.calls.map(describe).join(', ')}; no call made`,
    });
  }

  const tags: string[] = [];
  const details: string[] = [];
  const lastFailed = calls.findLastIndex((step) => !step.outcome.ok);
  if (
    lastFailed >= 0 &&
    !calls.slice(lastFailed + 1).some((step) => step.outcome.ok)
  ) {
    tags.push('recovery_failure');
    details.push(
      `${calls[lastFailed]!.call.name} failed (${calls[lastFailed]!.outcome.kind}) and no call succeeded after it`,
    );
  }

  if (checks.calls) {
    const unmatched = calls.map((step) => step.call);
    const used = unmatched.map(() => false);
    const missing: GroundTruthCallV2[] = [];
    for (const expected of groundTruth.calls) {
      const index = unmatched.findIndex(
        (call, position) =>
          !used[position] &&
          call.name === expected.name &&
          jsonEqual(call.arguments, expected.arguments),
      );
      if (index >= 0) used[index] = true;
      else missing.push(expected);
    }
    const expectedNames = new Set(groundTruth.calls.map((call) => call.name));
    for (const expected of missing) {
      const sameName = unmatched.findIndex(
        (call, position) => !used[position] && call.name === expected.name,
      );
      if (sameName >= 0) {
        used[sameName] = true;
        tags.push('argument_mismatch');
        details.push(
          `expected ${describe(expected)}, got ${describe(unmatched[sameName]!)}`,
        );
        continue;
      }
      const other = unmatched.findIndex(
        (call, position) => !used[position] && !expectedNames.has(call.name),
      );
      if (other >= 0) {
        used[other] = true;
        tags.push('wrong_tool');
        details.push(
          `expected ${describe(expected)}, got ${describe(unmatched[other]!)}`,
        );
        continue;
      }
      tags.push('missing_call');
      details.push(`missing ${describe(expected)}`);
    }
    for (const [position, step] of calls.entries()) {
      if (!used[position] && step.outcome.ok) {
        tags.push('extra_call');
        details.push(`extra ${describe(step.call)}`);
      }
    }
  }

  if (checks.state && groundTruth.hasSnapshot && policySnapshot !== undefined) {
    if ('error' in policySnapshot) {
      tags.push('state_mismatch');
      details.push(`policy snapshot failed: ${policySnapshot.error}`);
    } else if (!jsonEqual(policySnapshot.value, groundTruth.snapshot)) {
      tags.push('state_mismatch');
      details.push('state differs from the ground truth after the turn');
    }
  }

  if (checks.results) {
    const results = calls
      .filter((step) => step.outcome.ok)
      .map((step) => step.outcome.content);
    const absent: string[] = [];
    for (const outcome of groundTruth.outcomes) {
      const index = results.indexOf(outcome.content);
      if (index >= 0) results.splice(index, 1);
      else absent.push(outcome.content);
    }
    if (absent.length > 0) {
      tags.push('response_mismatch');
      details.push(
        `ground-truth results missing: ${absent.map((text) => JSON.stringify(text.slice(0, 80))).join(', ')}`,
      );
    }
  }

  const unique = [...new Set(tags)];
  return verdict({
    turn,
    tags: unique,
    ...(details.length === 0 ? {} : { detail: details.join('; ') }),
  });
}
