import { PyRandom } from '@seal/python';
import { describe, expect, it } from 'vitest';
import { embeddedPresets } from './embedded-preset';
import { drawConsolidationExamples } from './warm-start';

const drills = Array.from({ length: 50 }, (_, i) => `drill-${i}`);
const demonstrations = Array.from({ length: 30 }, (_, i) => `demo-${i}`);
const toolList = Array.from({ length: 20 }, (_, i) => `pair-${i}`);
const stage = { steps: 25, batchSize: 4, drillShare: 0.5, seed: 7 };

describe('drawConsolidationExamples', () => {
  it('should draw as before the tool-list share when it is absent or 0', () => {
    // The stage's draws before the share existed, written out.
    const pick = new PyRandom(BigInt(stage.seed) + 99n);
    const before = [
      ...Array.from({ length: 50 }, () => pick.choice(drills)),
      ...Array.from({ length: 50 }, () => pick.choice(demonstrations)),
    ];
    expect(
      drawConsolidationExamples({ drills, demonstrations, toolList, stage }),
    ).toEqual(before);
    expect(
      drawConsolidationExamples({
        drills,
        demonstrations,
        toolList: [],
        stage: { ...stage, toolListShare: 0 },
      }),
    ).toEqual(before);
  });

  it('should draw a toolListShare of the examples from the pairs and split the rest by drillShare', () => {
    const examples = drawConsolidationExamples({
      drills,
      demonstrations,
      toolList,
      stage: { ...stage, toolListShare: 0.25 },
    });
    const count = (prefix: string) =>
      examples.filter((example) => example.startsWith(prefix)).length;
    expect(examples).toHaveLength(100);
    expect(count('pair-')).toBe(25);
    expect(count('drill-')).toBe(38);
    expect(count('demo-')).toBe(37);
    expect(
      drawConsolidationExamples({
        drills,
        demonstrations,
        toolList,
        stage: { ...stage, toolListShare: 0.25 },
      }),
    ).toEqual(examples);
  });

  it('should refuse a share outside [0, 1] and a share with no pairs to draw', () => {
    for (const toolListShare of [-0.1, 1.5, Number.NaN])
      expect(() =>
        drawConsolidationExamples({
          drills,
          demonstrations,
          toolList,
          stage: { ...stage, toolListShare },
        }),
      ).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() =>
      drawConsolidationExamples({
        drills,
        demonstrations,
        toolList: [],
        stage: { ...stage, toolListShare: 0.25 },
      }),
    ).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });

  it('should give the readslist preset a quarter of its consolidation from the pairs', () => {
    const readslist = embeddedPresets.readslist.warmup.consolidation!;
    const examples = drawConsolidationExamples({
      drills,
      demonstrations,
      toolList,
      stage: readslist,
    });
    const total = readslist.steps * readslist.batchSize;
    expect(examples).toHaveLength(total);
    expect(examples.filter((e) => e.startsWith('pair-'))).toHaveLength(
      total / 4,
    );
  });
});
