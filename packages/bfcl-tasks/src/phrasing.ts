import type { PyRandom } from '@seal/python';

/**
 * One kind of user request ("send a message") with its phrasings. Each
 * phrasing is a template with `{slot}` placeholders. The last phrasing is
 * held out: it only appears in the out-of-distribution test split.
 */
export type Intent = {
  /** Stable id, `<family or class>.<what>` (kebab-case words, dots between). */
  readonly id: string;
  /** Templates, at least three; the last one is held out. */
  readonly phrasings: readonly string[];
};

/** A rendered request and the template it came from (`<intent id>#<index>`). */
export type Said = {
  /** The user message. */
  readonly text: string;
  /** `<intent id>#<phrasing index>`. */
  readonly templateId: string;
};

/**
 * Which phrasings a task may use: `in-distribution` (all but the held-out
 * one: train, test-id, warmup), `held-out` (only the held-out one: test-ood
 * tasks of in-distribution families) or `any` (test-ood tasks of
 * out-of-distribution families, whose intents train never sees).
 */
export type PhrasingPolicy = 'in-distribution' | 'held-out' | 'any';

/** Defines an intent; throws when it has fewer than three phrasings. */
export function defineIntent(id: string, phrasings: readonly string[]): Intent {
  if (phrasings.length < 3)
    throw new Error(`intent ${id}: needs at least three phrasings`);
  return { id, phrasings };
}

/** The template id of one phrasing. */
export function templateIdOf({
  intent,
  index,
}: {
  intent: Intent;
  index: number;
}): string {
  return `${intent.id}#${index}`;
}

/** The template id of an intent's held-out phrasing. */
export function heldOutTemplateId(intent: Intent): string {
  return templateIdOf({ intent, index: intent.phrasings.length - 1 });
}

/** Fills `{slot}` placeholders; throws on a slot without a value. */
export function renderPhrasing({
  text,
  slots,
}: {
  text: string;
  slots: Readonly<Record<string, string>>;
}): string {
  return text.replace(/\{([a-zA-Z0-9_]+)\}/g, (_match, name: string) => {
    const value = slots[name];
    if (value === undefined)
      throw new Error(`phrasing "${text}": no value for slot {${name}}`);
    return value;
  });
}

/** Picks a phrasing index under a policy, drawing from `random`. */
export function pickPhrasing({
  intent,
  policy,
  random,
}: {
  intent: Intent;
  policy: PhrasingPolicy;
  random: PyRandom;
}): number {
  const last = intent.phrasings.length - 1;
  if (policy === 'held-out') return last;
  const choices = policy === 'any' ? last + 1 : last;
  return Number(random.randint(0, choices - 1));
}

/**
 * A regular expression that matches every rendering of a phrasing (slots
 * become `.+?`); used to check that held-out phrasings never leak.
 */
export function phrasingPattern(text: string): RegExp {
  const parts = text.split(/\{[a-zA-Z0-9_]+\}/);
  const body = parts
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.+?');
  return new RegExp(`^${body}$`);
}
