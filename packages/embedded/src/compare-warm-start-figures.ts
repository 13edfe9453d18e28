import { wilsonInterval } from '@seal/rl';
import type { WarmStartFigures } from './measure-warm-start';

/** A count of successes out of a total. */
export type WarmStartProportion = { successes: number; total: number };

/** One figure of a warm start that lies outside the reference's 95% interval. */
export type WarmStartFigureDisagreement = {
  /** `first-turn exact calls`, `drill literals copied`, or a held-out category. */
  figure: string;
  reference: WarmStartProportion & { interval: [number, number] };
  measured: WarmStartProportion;
};

/**
 * Whether a rebuilt warm start measures as a reference one (`seal warmstart
 * --check`): each figure (first-turn and drill exact calls and literals
 * copied, held-out success per category of the reference) must lie in the
 * reference's Wilson 95% interval. Returns the figures that do not.
 */
export function compareWarmStartFigures({
  reference,
  measured,
}: {
  reference: WarmStartFigures;
  measured: WarmStartFigures;
}): WarmStartFigureDisagreement[] {
  const a = reference;
  const b = measured;
  const pairs: [string, number, number, number, number][] = [
    [
      'first-turn exact calls',
      a.firstTurn.exact,
      a.firstTurn.drills,
      b.firstTurn.exact,
      b.firstTurn.drills,
    ],
    [
      'first-turn literals copied',
      a.firstTurn.literalsCopied,
      a.firstTurn.literals,
      b.firstTurn.literalsCopied,
      b.firstTurn.literals,
    ],
    [
      'drill exact calls',
      a.copy.exact,
      a.copy.drills,
      b.copy.exact,
      b.copy.drills,
    ],
    [
      'drill literals copied',
      a.copy.literalsCopied,
      a.copy.literals,
      b.copy.literalsCopied,
      b.copy.literals,
    ],
    ...Object.keys(a.heldOut).map(
      (category): [string, number, number, number, number] => [
        category,
        a.heldOut[category]!.correct,
        a.heldOut[category]!.total,
        b.heldOut[category]?.correct ?? 0,
        b.heldOut[category]?.total ?? 0,
      ],
    ),
  ];
  const disagreements: WarmStartFigureDisagreement[] = [];
  for (const [figure, sa, na, sb, nb] of pairs) {
    const [low, high] = wilsonInterval({ successes: sa, total: na });
    const other = sb / Math.max(1, nb);
    if (other < low || other > high)
      disagreements.push({
        figure,
        reference: { successes: sa, total: na, interval: [low, high] },
        measured: { successes: sb, total: nb },
      });
  }
  return disagreements;
}
