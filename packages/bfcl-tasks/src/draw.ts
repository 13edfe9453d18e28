import { pyRepr, type PyRandom } from '@seal/python';
import type { FamilyContext } from './task-family';
import { firstNames, handleSuffixes, passwordWords } from './word-lists';

/** One item, uniformly. */
export function pick<T>(random: PyRandom, items: readonly T[]): T {
  return random.choice(items);
}

/** `count` distinct items not rejected by `exclude`, in random order; throws if too few. */
export function pickSome<T>(
  random: PyRandom,
  items: readonly T[],
  count: number,
  exclude: (item: T) => boolean = () => false,
): T[] {
  const pool = random.shuffle(items.filter((item) => !exclude(item)));
  if (pool.length < count)
    throw new Error(`word list too short: need ${count}, have ${pool.length}`);
  return pool.slice(0, count);
}

/** An integer in `[low, high]`. */
export function between(random: PyRandom, low: number, high: number): number {
  return Number(random.randint(low, high));
}

/** True with probability `p`. */
export function chance(random: PyRandom, p: number): boolean {
  return random.random() < p;
}

/** A float with two decimals in `[low, high]` (a Python float). */
export function money(random: PyRandom, low: number, high: number): number {
  return between(random, low * 100, high * 100) / 100;
}

/**
 * How many distractor entries to add, drawn from the noise stream: a few in
 * the base form, many in the long form.
 */
export function distractors(
  context: FamilyContext,
  { base, long }: { base: [number, number]; long: [number, number] },
): number {
  const [low, high] = context.scale === 'long' ? long : base;
  return between(context.noise, low, high);
}

/** Inserts `item` at a random position of `items` (noise stream), returning a new list. */
export function insertAtRandom<T>(
  random: PyRandom,
  items: readonly T[],
  item: T,
): T[] {
  const index = between(random, 0, items.length);
  return [...items.slice(0, index), item, ...items.slice(index)];
}

/** A number as Python prints it (`12`, `12.5`, `3.0`). */
export function numberText(value: bigint | number): string {
  return pyRepr(value);
}

/** A list of strings as prose: `a, b and c`. */
export function listText(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]!}`;
}

/** An account handle such as `maya_art`. */
export function handle(
  random: PyRandom,
  exclude: ReadonlySet<string> = new Set(),
): string {
  for (;;) {
    const name = `${pick(random, firstNames).toLowerCase()}${pick(random, handleSuffixes)}`;
    if (!exclude.has(name)) return name;
  }
}

/** A password such as `river42`. */
export function password(random: PyRandom): string {
  return `${pick(random, passwordWords)}${between(random, 10, 99)}`;
}

/** A date in 2024 or 2025 as `YYYY-MM-DD`. */
export function isoDate(random: PyRandom): string {
  const year = between(random, 2024, 2025);
  const month = between(random, 1, 12);
  const day = between(random, 1, 28);
  return `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}
