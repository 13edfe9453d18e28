import { wilsonInterval } from '@seal/rl';
import { describe, expect, it } from 'vitest';
import { compareWarmStartFigures } from './compare-warm-start-figures';
import type { WarmStartFigures } from './measure-warm-start';

const reference: WarmStartFigures = {
  copy: { drills: 200, exact: 150, literals: 400, literalsCopied: 360 },
  firstTurn: { drills: 100, exact: 60, literals: 220, literalsCopied: 180 },
  heldOut: {
    multi_turn_base: { correct: 20, total: 50 },
    multi_turn_miss_param: { correct: 10, total: 50 },
  },
};

describe('compareWarmStartFigures', () => {
  it('should agree with itself and with figures inside every 95% interval', () => {
    expect(compareWarmStartFigures({ reference, measured: reference })).toEqual(
      [],
    );
    // 145/200 = 72.5% lies inside Wilson's interval around 150/200 = 75%.
    expect(
      compareWarmStartFigures({
        reference,
        measured: { ...reference, copy: { ...reference.copy, exact: 145 } },
      }),
    ).toEqual([]);
  });

  it('should name each figure outside the interval, and a category the measurement lacks', () => {
    const disagreements = compareWarmStartFigures({
      reference,
      measured: {
        ...reference,
        firstTurn: { ...reference.firstTurn, exact: 30 },
        heldOut: { multi_turn_base: { correct: 20, total: 50 } },
      },
    });
    expect(disagreements).toEqual([
      {
        figure: 'first-turn exact calls',
        reference: {
          successes: 60,
          total: 100,
          interval: wilsonInterval({ successes: 60, total: 100 }),
        },
        measured: { successes: 30, total: 100 },
      },
      {
        figure: 'multi_turn_miss_param',
        reference: {
          successes: 10,
          total: 50,
          interval: wilsonInterval({ successes: 10, total: 50 }),
        },
        measured: { successes: 0, total: 0 },
      },
    ]);
  });
});
