import { PyDict, parsePyJson, pyJsonDumps, type PyRandom } from '@seal/python';
import { SealError } from '@seal/spec';
import {
  BfclRealm,
  BfclSession,
  type BfclClassName,
  type BfclRuntimeData,
} from '@seal/bfcl';
import type { Intent, Said } from './phrasing';

/** How hard a family is meant to be for a small model. */
export type FamilyDifficulty =
  /** One call per turn, every value copied from the requests. */
  | 'easy'
  /** A value copied from a tool result, or two calls in one turn. */
  | 'medium'
  /** Three or more turns, or several values carried across results and turns. */
  | 'hard';

/**
 * Where a family's tasks go: `in-distribution` families feed train, test-id,
 * warmup and (with held-out phrasings) test-ood; `out-of-distribution`
 * families are class compositions that only test-ood ever sees.
 */
export type FamilyPool = 'in-distribution' | 'out-of-distribution';

/** `base` keeps initial states small; `long` adds many distractor entries (long_context). */
export type StateScale = 'base' | 'long';

/**
 * The missing-parameter form of a turn (miss_param): the request without
 * one value, and the next user turn that gives it.
 */
export type MissingParameter = {
  /** The request with the value left out. */
  readonly request: Said;
  /** The follow-up that supplies the value. */
  readonly supply: Said;
  /** What is withheld (`file name`, `message`, ...), for the task's meta. */
  readonly slot: string;
  /** The withheld values as they appear in the full request. */
  readonly withheld: readonly string[];
};

/** One user turn of a draft with its ground truth, already executed. */
export type DraftTurn = {
  /** The request. */
  readonly request: Said;
  /** Ground-truth call strings. */
  readonly calls: readonly string[];
  /** Their results, in order (what the agent sees when it makes them). */
  readonly results: readonly string[];
  /** The turn's missing-parameter form, when it has one. */
  readonly missing?: MissingParameter;
};

/** What a family builds: the scenario and its turns, before any variant is applied. */
export type TaskDraft = {
  /** Involved classes, in order. */
  readonly classes: readonly BfclClassName[];
  /** `initial_config` (stateful classes only). */
  readonly initialConfig: PyDict;
  /** The turns. */
  readonly turns: readonly DraftTurn[];
};

/** What a family's `build` receives. */
export type FamilyContext = {
  /** Draws the task's core values (names, amounts, ids). */
  readonly random: PyRandom;
  /**
   * Draws distractor entries of the state. A separate stream, so the base
   * and long forms of one task seed share their core values.
   */
  readonly noise: PyRandom;
  /** How many distractor entries to add. */
  readonly scale: StateScale;
  /** Renders a request from an intent under the task's phrasing policy. */
  phrase(intent: Intent, slots: Readonly<Record<string, string>>): Said;
  /** Starts a draft over an initial state; the draft executes every turn as it is added. */
  begin(
    initialConfig: Partial<Record<BfclClassName, PyDict>>,
  ): TaskDraftBuilder;
};

/**
 * A task family: one kind of multi-turn job over one or two API classes,
 * with its own intents (phrasings) and a builder that draws values, the
 * initial state and the ground truth.
 */
export type TaskFamily = {
  /** Stable id, `<class prefix>.<name>` (`message.send`). */
  readonly id: string;
  /** Involved classes, in order (the order of the tool docs). */
  readonly classes: readonly BfclClassName[];
  /** See {@link FamilyDifficulty}. */
  readonly difficulty: FamilyDifficulty;
  /** See {@link FamilyPool}. */
  readonly pool: FamilyPool;
  /**
   * Whether the family has a long-context form: one of its ground-truth
   * reads returns a collection (a listing, the inbox, the follow list, ...)
   * that the long form fills with distractor entries, so the agent sees long
   * results. Families whose reads return single items have none.
   */
  readonly longContext: boolean;
  /** One sentence on what the user wants. */
  readonly summary: string;
  /** Every intent the family may phrase requests with. */
  readonly intents: readonly Intent[];
  /**
   * Values the agent must produce that the family's requests say in other
   * words (the code `EUR`, said "euros"): value → how a request says it.
   * Every other value is copied as it is said. Absent: none.
   */
  readonly spokenForms?: Readonly<Record<string, string>>;
  /** Builds one draft. Must be deterministic in the context's streams. */
  build(context: FamilyContext): TaskDraft;
};

/** The `details.reason` of a SealError thrown when a draft's ground truth fails. */
export const invalidGroundTruthReason = 'invalid-ground-truth';

/**
 * Accumulates a draft's turns and runs each turn's ground truth on one
 * session as it is added, so families can read results (ids, prices) for
 * later turns, and a call that raises or returns an error is caught at once.
 */
export class TaskDraftBuilder {
  private readonly session: BfclSession;
  private readonly turns: DraftTurn[] = [];
  private readonly classes: readonly BfclClassName[];
  private readonly initialConfig: PyDict;
  private readonly familyId: string;

  constructor({
    familyId,
    classes,
    initialConfig,
    runtime,
  }: {
    familyId: string;
    classes: readonly BfclClassName[];
    initialConfig: PyDict;
    runtime: BfclRuntimeData;
  }) {
    this.familyId = familyId;
    this.classes = classes;
    // Round-trip through the task's own serialisation, so the session sees
    // exactly what an episode will load.
    this.initialConfig = parsePyJson(
      pyJsonDumps(initialConfig, { ensureAscii: false }),
    ) as PyDict;
    this.session = new BfclSession({
      realm: new BfclRealm({ data: runtime }),
      initialConfig: this.initialConfig,
      involvedClasses: classes,
      longContext: false,
    });
  }

  /** Adds a turn, executes its calls and returns their result strings. */
  turn({
    request,
    calls,
    missing,
  }: {
    request: Said;
    calls: readonly string[];
    missing?: MissingParameter;
  }): string[] {
    const results = calls.map((call) => {
      const execution = this.session.execute(call);
      if (execution.status !== 'ok' || execution.error !== undefined) {
        throw new SealError({
          code: 'INTERNAL',
          message: `family ${this.familyId}: ground-truth call ${call} failed: ${execution.result}`,
          details: {
            reason: invalidGroundTruthReason,
            family: this.familyId,
            call,
            result: execution.result,
          },
        });
      }
      return execution.result;
    });
    this.turns.push({
      request,
      calls: [...calls],
      results,
      ...(missing ? { missing } : {}),
    });
    return results;
  }

  /** The finished draft. */
  finish(): TaskDraft {
    return {
      classes: this.classes,
      initialConfig: this.initialConfig,
      turns: [...this.turns],
    };
  }
}

/** Reads one field of a result that is a JSON object (`json.dumps` of a dict). */
export function resultField(result: string, key: string): unknown {
  const value = parsePyJson(result);
  if (!(value instanceof PyDict) || !value.has(key)) {
    throw new SealError({
      code: 'INTERNAL',
      message: `result has no field ${key}: ${result}`,
      details: { reason: invalidGroundTruthReason, key },
    });
  }
  return value.get(key);
}
