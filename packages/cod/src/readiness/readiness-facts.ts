import { SealError } from '@seal/spec';
import {
  mergeDirectionFacts,
  observedDirectionFacts,
  readDirectionFacts,
} from '../frozen-lake/frozen-lake-expert';

/**
 * The kinds of fact the readiness check reads.
 *
 * FrozenLake-Obscure (`frozen-lake-obscure`, and `frozen-lake-literal`, whose
 * observations name the real move: `Direction k = up: you moved …`):
 * - `move`: direction k took the agent from (r,c) to (r′,c′)
 *   (`Direction k: you moved from (r,c) to (r′,c′)`);
 * - `position`: direction k was taken at (r,c) (a move from there, or
 *   `Direction k: your position (r,c) did not change`);
 * - `mapping`: direction k is the real move m, as the moves reveal it (three
 *   revealed give the fourth).
 *
 * BFCL aliases (`bfcl-aliases`):
 * - `tool`: a name in call position `name(`, or listed by the deployment
 *   (`The functions of this deployment are: a, b`);
 * - `argument`: a keyword name `name=`, a parameter of a compact tool doc
 *   (`cd(folder: str)`), or listed (`Its arguments here: a, b`);
 * - `value`: a quoted literal (`'x'`, `"x"`), or a number after `=`.
 */
export type ReadinessFactKind =
  'move' | 'position' | 'mapping' | 'tool' | 'argument' | 'value';

/** The environments whose facts the readiness check can read. */
export const readinessEnvironmentIds = [
  'frozen-lake-obscure',
  'frozen-lake-literal',
  'bfcl-aliases',
] as const;

/** See {@link readinessEnvironmentIds}. */
export type ReadinessEnvironmentId = (typeof readinessEnvironmentIds)[number];

/** One fact stated in a text: its kind, a normalised key, and the words that stated it. */
export type ReadinessClaim = {
  kind: ReadinessFactKind;
  /** Normalised: two statements of the same fact have the same key. */
  key: string;
  /** The stretch of text the claim was read from. */
  text: string;
};

/** The facts of a trajectory, as `kind:key` strings ({@link factId}). */
export type TrajectoryFacts = ReadonlySet<string>;

/** The identity of a claim or fact: `kind:key`. */
export function factId(claim: Pick<ReadinessClaim, 'kind' | 'key'>): string {
  return `${claim.kind}:${claim.key}`;
}

function checkEnvironment(environmentId: string): ReadinessEnvironmentId {
  if ((readinessEnvironmentIds as readonly string[]).includes(environmentId))
    return environmentId as ReadinessEnvironmentId;
  throw new SealError({
    code: 'INVALID_ARGUMENT',
    message: `the readiness check reads facts of ${readinessEnvironmentIds.join(' and ')}, not ${environmentId}`,
  });
}

// FrozenLake-Obscure

const frozenMovePattern =
  /Direction ([1-4])(?: = (?:up|down|left|right))?: you moved from \((\d+),(\d+)\) to \((\d+),(\d+)\)/g;
const frozenBumpPattern =
  /Direction ([1-4])(?: = (?:up|down|left|right))?: your position \((\d+),(\d+)\) did not change/g;
const positionPattern = /\(\s*(\d+)\s*,\s*(\d+)\s*\)/g;
const directionStart = /Direction\s*([1-4])\b/g;
const mappingPattern = /^Direction\s*[1-4]\s*=\s*(up|down|left|right)\b/;

function frozenLakeFacts(text: string): Set<string> {
  const facts = new Set<string>();
  for (const m of text.matchAll(frozenMovePattern)) {
    facts.add(`move:${m[1]}:${m[2]},${m[3]}:${m[4]},${m[5]}`);
    facts.add(`position:${m[1]}:${m[2]},${m[3]}`);
  }
  for (const m of text.matchAll(frozenBumpPattern))
    facts.add(`position:${m[1]}:${m[2]},${m[3]}`);
  for (const [number, move] of observedDirectionFacts(text))
    facts.add(`mapping:${number}:${move}`);
  return facts;
}

/**
 * FrozenLake claims: each line is cut at every `Direction k`, and each piece
 * states at most one fact: two positions make a `move` claim (the first two),
 * one a `position` claim, none and `= up|down|left|right` a `mapping` claim.
 */
function frozenLakeClaims(text: string): ReadinessClaim[] {
  const claims: ReadinessClaim[] = [];
  for (const line of text.split('\n')) {
    const starts = [...line.matchAll(directionStart)];
    starts.forEach((start, index) => {
      const piece = line.slice(start.index, starts[index + 1]?.index).trim();
      const number = start[1]!;
      const positions = [...piece.matchAll(positionPattern)].map(
        (p) => `${Number(p[1])},${Number(p[2])}`,
      );
      if (positions.length >= 2)
        claims.push({
          kind: 'move',
          key: `${number}:${positions[0]}:${positions[1]}`,
          text: piece,
        });
      else if (positions.length === 1)
        claims.push({
          kind: 'position',
          key: `${number}:${positions[0]}`,
          text: piece,
        });
      else {
        const mapping = mappingPattern.exec(piece);
        if (mapping !== null)
          claims.push({
            kind: 'mapping',
            key: `${number}:${mapping[1]}`,
            text: piece,
          });
      }
    });
  }
  return claims;
}

// BFCL aliases

const callNamePattern = /\b([A-Za-z_][A-Za-z0-9_]*)\(/g;
const keywordPattern = /\b([A-Za-z_][A-Za-z0-9_]*)\s*=(?!=)/g;
const quotedPattern = /'([^'\n]*)'|"([^"\n]*)"/g;
const keywordNumberPattern = /=\s*(-?\d+(?:\.\d+)?)\b/g;
const functionListPattern =
  /The functions of this deployment are: ([A-Za-z0-9_, ]*)/g;
const argumentListPattern = /Its arguments here: ([A-Za-z0-9_, ]*)/g;
/** A parameter of a compact tool doc line: `cd(folder: str, depth?: int = 1): …`. */
const documentedParameterPattern = /[(,]\s*([A-Za-z_][A-Za-z0-9_]*)\??: /g;

function bfclClaims(text: string): ReadinessClaim[] {
  const claims: ReadinessClaim[] = [];
  for (const m of text.matchAll(callNamePattern))
    claims.push({ kind: 'tool', key: m[1]!, text: m[0] });
  for (const m of text.matchAll(keywordPattern))
    claims.push({ kind: 'argument', key: m[1]!, text: m[0] });
  for (const m of text.matchAll(quotedPattern)) {
    const value = m[1] ?? m[2] ?? '';
    if (value.trim().length > 0)
      claims.push({ kind: 'value', key: value, text: m[0] });
  }
  for (const m of text.matchAll(keywordNumberPattern))
    claims.push({ kind: 'value', key: String(Number(m[1])), text: m[0] });
  return claims;
}

function bfclFacts(text: string): Set<string> {
  const facts = new Set(bfclClaims(text).map(factId));
  const listed = (pattern: RegExp, kind: ReadinessFactKind) => {
    for (const m of text.matchAll(pattern))
      for (const name of m[1]!.split(','))
        if (name.trim().length > 0) facts.add(`${kind}:${name.trim()}`);
  };
  listed(functionListPattern, 'tool');
  listed(argumentListPattern, 'argument');
  for (const m of text.matchAll(documentedParameterPattern))
    facts.add(`argument:${m[1]}`);
  // A quoted number is the same value as the bare number.
  for (const fact of [...facts]) {
    if (!fact.startsWith('value:')) continue;
    const value = fact.slice('value:'.length);
    if (/^-?\d+(?:\.\d+)?$/.test(value)) facts.add(`value:${Number(value)}`);
  }
  return facts;
}

/**
 * The facts of a trajectory as the update-context episode was shown it (the
 * serialised trajectory, {@link serializeTrajectory}), for the environment's
 * definition of a fact ({@link ReadinessFactKind}). An unknown environment
 * is `INVALID_ARGUMENT`.
 */
export function extractTrajectoryFacts({
  environmentId,
  text,
}: {
  environmentId: string;
  text: string;
}): TrajectoryFacts {
  return checkEnvironment(environmentId) !== 'bfcl-aliases'
    ? frozenLakeFacts(text)
    : bfclFacts(text);
}

/**
 * The facts a text written by the policy states (its update-context lines),
 * in order, for the environment's definition of a fact. Text that states no
 * fact (headings, delimiters, `No direction known yet`) gives no claim.
 */
export function extractClaims({
  environmentId,
  text,
}: {
  environmentId: string;
  text: string;
}): ReadinessClaim[] {
  return checkEnvironment(environmentId) !== 'bfcl-aliases'
    ? frozenLakeClaims(text)
    : bfclClaims(text).map((claim) =>
        claim.kind === 'value' && /^-?\d+(?:\.\d+)?$/.test(claim.key)
          ? { ...claim, key: String(Number(claim.key)) }
          : claim,
      );
}

/**
 * Facts the policy could state only by combining its previous hints with the
 * trajectory, not by reading the trajectory alone: in FrozenLake-Obscure, a
 * direction's move completed from the mapping the notes state and the moves
 * reveal (two noted and one seen give the fourth). None in BFCL aliases.
 * The readiness check leaves claims of these out, like carried ones.
 */
export function derivedFacts({
  environmentId,
  previousHints,
  shown,
}: {
  environmentId: string;
  previousHints: string;
  shown: string;
}): TrajectoryFacts {
  if (checkEnvironment(environmentId) === 'bfcl-aliases') return new Set();
  const own = frozenLakeFacts(shown);
  const derived = new Set<string>();
  const merged = mergeDirectionFacts(
    readDirectionFacts(previousHints),
    observedDirectionFacts(shown),
  );
  for (const [number, move] of merged) {
    const id = `mapping:${number}:${move}`;
    if (!own.has(id)) derived.add(id);
  }
  return derived;
}
