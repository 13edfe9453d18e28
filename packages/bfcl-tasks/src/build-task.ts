import { PyDict, PyRandom, parseCallString, pyJsonDumps } from '@seal/python';
import {
  SealError,
  type ChatMessage,
  type Task,
  type TaskCategory,
  type ToolDoc,
} from '@seal/spec';
import {
  bfclClassRegistry,
  toolDocFromSpec,
  type BfclClassName,
  type BfclRuntimeData,
} from '@seal/bfcl';
import {
  phrasingPolicyFor,
  supportsLongContext,
  type GeneratorSplit,
} from './generator-splits';
import {
  pickPhrasing,
  renderPhrasing,
  templateIdOf,
  type Intent,
  type PhrasingPolicy,
  type Said,
} from './phrasing';
import { deriveSeed, fnv1a64 } from './seeds';
import {
  TaskDraftBuilder,
  type DraftTurn,
  type FamilyContext,
  type StateScale,
  type TaskDraft,
  type TaskFamily,
} from './task-family';

/** The generator's name and version, stamped into every task's meta. */
export const taskGeneratorId = 'seal-bfcl-generator@1';

/** A runtime with no BFCL data: generated states are complete, so nothing is read from it. */
export function createGeneratorRuntime(): BfclRuntimeData {
  return { defaultStates: new PyDict(), longContext: new PyDict() };
}

/** How a task differs from its family's draft. */
export type TaskVariant =
  | { kind: 'base' }
  | { kind: 'long-context' }
  /** The request of `turn` omits `slot`; the next turn supplies it. */
  | {
      kind: 'missing-parameter';
      turn: number;
      slot: string;
      withheld: string[];
    }
  /** `tool` is withheld until the holdout turn `turn + 1`; `turn` must be declined. */
  | { kind: 'missing-function'; turn: number; tool: string };

/** Options of {@link buildTask}. */
export type BuildTaskOptions = {
  /** The family to draw from. */
  family: TaskFamily;
  /** The BFCL category (variant) to produce. */
  category: TaskCategory;
  /** The task seed; every random choice derives from it. */
  seed: number;
  /** The split the task is for (decides the phrasings). Default `train`. */
  split?: GeneratorSplit;
  /** The task id. Default `gen_<split>_<category>_<seed>`. */
  id?: string;
  /** Runtime data for executing the ground truth while drafting. Default: {@link createGeneratorRuntime}. */
  runtime?: BfclRuntimeData;
};

/** Tools longer than this (description characters) are not drawn as distractors. */
const maxDistractorDescription = 100;
/** Tools with more parameters than this are not drawn as distractors. */
const maxDistractorParameters = 3;
/** A task lists at least this many tools. */
const minTools = 4;
/** A task lists at most this many tools (unless it needs more). */
const maxTools = 8;

function draftOf({
  family,
  seed,
  scale,
  policy,
  runtime,
}: {
  family: TaskFamily;
  seed: number;
  scale: StateScale;
  policy: PhrasingPolicy;
  runtime: BfclRuntimeData;
}): TaskDraft {
  const phrasing = new PyRandom(deriveSeed(seed, 'phrasing'));
  const declared = new Set(family.intents);
  const context: FamilyContext = {
    random: new PyRandom(deriveSeed(seed, 'core')),
    noise: new PyRandom(deriveSeed(seed, 'noise')),
    scale,
    phrase(intent: Intent, slots: Readonly<Record<string, string>>): Said {
      if (!declared.has(intent))
        throw new Error(
          `family ${family.id} uses undeclared intent ${intent.id}`,
        );
      const index = pickPhrasing({ intent, policy, random: phrasing });
      return {
        text: renderPhrasing({ text: intent.phrasings[index]!, slots }),
        templateId: templateIdOf({ intent, index }),
      };
    },
    begin(initialConfig) {
      const config = new PyDict();
      for (const className of family.classes) {
        const state = initialConfig[className];
        if (state !== undefined) config.set(className, state);
      }
      return new TaskDraftBuilder({
        familyId: family.id,
        classes: family.classes,
        initialConfig: config,
        runtime,
      });
    },
  };
  return family.build(context);
}

/** The fingerprint of a draft's values: its family and ground truth (the base-scale form). */
function fingerprintOf({
  family,
  draft,
}: {
  family: TaskFamily;
  draft: TaskDraft;
}): string {
  const calls = JSON.stringify(draft.turns.map((turn) => turn.calls));
  return fnv1a64(`${family.id}\n${calls}`).toString(16).padStart(16, '0');
}

/** Function names of a call string list, in order of first use. */
function functionNames(calls: readonly string[]): string[] {
  const names: string[] = [];
  for (const call of calls) {
    const parsed = parseCallString(call);
    if (!parsed.success)
      throw new Error(`unparseable ground-truth call ${call}`);
    if (!names.includes(parsed.value.name)) names.push(parsed.value.name);
  }
  return names;
}

/**
 * The task's tools: every function the ground truth uses, plus two to four
 * short distractors of the same classes, at least {@link minTools} and at
 * most {@link maxTools} in all, in
 * involved-class order and each class's declaration order.
 */
function selectTools({
  classes,
  needed,
  random,
}: {
  classes: readonly BfclClassName[];
  needed: readonly string[];
  random: PyRandom;
}): ToolDoc[] {
  const chosen = new Set(needed);
  const candidates = classes.flatMap((className) =>
    Object.entries(bfclClassRegistry[className].tools)
      .filter(
        ([name, spec]) =>
          !chosen.has(name) &&
          spec.description.length <= maxDistractorDescription &&
          Object.keys(spec.parameters.shape).length <= maxDistractorParameters,
      )
      .map(([name]) => name),
  );
  const wanted = Math.max(
    needed.length,
    Math.min(
      maxTools,
      Math.max(minTools, needed.length + Number(random.randint(2, 4))),
    ),
  );
  for (const name of random
    .shuffle(candidates)
    .slice(0, wanted - needed.length))
    chosen.add(name);
  return classes.flatMap((className) =>
    Object.entries(bfclClassRegistry[className].tools)
      .filter(([name]) => chosen.has(name))
      .map(([name, spec]) => toolDocFromSpec({ name, spec })),
  );
}

type Turn = {
  messages: ChatMessage[];
  calls: string[];
  templateId: string | null;
};

function userTurn(said: Said, calls: readonly string[]): Turn {
  return {
    messages: [{ role: 'user', content: said.text }],
    calls: [...calls],
    templateId: said.templateId,
  };
}

function applyVariant({
  draft,
  category,
  random,
  familyId,
}: {
  draft: TaskDraft;
  category: TaskCategory;
  random: PyRandom;
  familyId: string;
}): { turns: Turn[]; variant: TaskVariant; holdouts: Task['holdouts'] } {
  const plain = (turn: DraftTurn): Turn => userTurn(turn.request, turn.calls);
  if (category === 'multi_turn_base')
    return {
      turns: draft.turns.map(plain),
      variant: { kind: 'base' },
      holdouts: [],
    };
  if (category === 'multi_turn_long_context') {
    return {
      turns: draft.turns.map(plain),
      variant: { kind: 'long-context' },
      holdouts: [],
    };
  }
  if (category === 'multi_turn_miss_param') {
    const candidates = draft.turns.flatMap((turn, index) =>
      turn.missing ? [index] : [],
    );
    if (candidates.length === 0) {
      throw new SealError({
        code: 'INVALID_ARGUMENT',
        message: `family ${familyId} has no turn with a missing-parameter form`,
        details: { family: familyId, category },
      });
    }
    const index = random.choice(candidates);
    const target = draft.turns[index]!;
    const missing = target.missing!;
    const turns: Turn[] = [
      ...draft.turns.slice(0, index).map(plain),
      userTurn(missing.request, []),
      userTurn(missing.supply, target.calls),
      ...draft.turns.slice(index + 1).map(plain),
    ];
    return {
      turns,
      variant: {
        kind: 'missing-parameter',
        turn: index,
        slot: missing.slot,
        withheld: [...missing.withheld],
      },
      holdouts: [],
    };
  }
  const firstUse: { tool: string; turn: number }[] = [];
  draft.turns.forEach((turn, index) => {
    for (const name of functionNames(turn.calls)) {
      if (!firstUse.some((use) => use.tool === name))
        firstUse.push({ tool: name, turn: index });
    }
  });
  const { tool, turn: index } = random.choice(firstUse);
  const target = draft.turns[index]!;
  const turns: Turn[] = [
    ...draft.turns.slice(0, index).map(plain),
    userTurn(target.request, []),
    { messages: [], calls: [...target.calls], templateId: null },
    ...draft.turns.slice(index + 1).map(plain),
  ];
  return {
    turns,
    variant: { kind: 'missing-function', turn: index, tool },
    holdouts: [{ turn: index + 1, toolNames: [tool] }],
  };
}

/**
 * Builds one task of a family: draws the draft (executing its ground truth),
 * applies the category's variant, picks the tools and fills the meta. The
 * same options always give the same task, byte for byte.
 */
export function buildTask({
  family,
  category,
  seed,
  split = 'train',
  id,
  runtime,
}: BuildTaskOptions): Task {
  if (category === 'multi_turn_long_context' && !supportsLongContext(family)) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `family ${family.id} has no long-context form (its classes have a fixed-size state)`,
      details: { family: family.id, category },
    });
  }
  if (!Number.isSafeInteger(seed) || seed < 0) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `task seed must be a non-negative safe integer, got ${seed}`,
      details: { seed },
    });
  }
  const data = runtime ?? createGeneratorRuntime();
  const policy = phrasingPolicyFor({ split, family });
  const scale: StateScale =
    category === 'multi_turn_long_context' ? 'long' : 'base';
  const draft = draftOf({ family, seed, scale, policy, runtime: data });
  const baseDraft =
    scale === 'base'
      ? draft
      : draftOf({ family, seed, scale: 'base', policy, runtime: data });
  const fingerprint = fingerprintOf({ family, draft: baseDraft });
  const { turns, variant, holdouts } = applyVariant({
    draft,
    category,
    random: new PyRandom(deriveSeed(seed, 'variant')),
    familyId: family.id,
  });
  const needed = functionNames(turns.flatMap((turn) => turn.calls));
  const tools = selectTools({
    classes: family.classes,
    needed,
    random: new PyRandom(deriveSeed(seed, 'tools')),
  });
  const ood =
    split !== 'test-ood'
      ? null
      : family.pool === 'out-of-distribution'
        ? 'composition'
        : 'template';
  return {
    schemaVersion: 1,
    id: id ?? `gen_${split}_${category}_${seed}`,
    category,
    source: 'generated',
    turns: turns.map((turn) => turn.messages),
    tools,
    holdouts,
    backend: {
      kind: 'bfcl',
      involvedClasses: [...family.classes],
      initialConfig: pyJsonDumps(draft.initialConfig, { ensureAscii: false }),
      // Long context here means a larger generated state, never BFCL's
      // padding constants (see docs/architecture/task-generator.md).
      longContext: false,
    },
    groundTruth: turns.map((turn) => turn.calls),
    meta: {
      generator: taskGeneratorId,
      family: family.id,
      difficulty: family.difficulty,
      pool: family.pool,
      classes: [...family.classes],
      composition: family.classes.join('+'),
      split,
      seed,
      templates: turns.map((turn) => turn.templateId),
      variant,
      ood,
      fingerprint,
    },
  };
}
