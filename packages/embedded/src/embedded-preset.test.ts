import { describe, expect, it } from 'vitest';
import {
  embeddedPresets,
  embeddedTrainConfig,
  warmStartKey,
} from './embedded-preset';

describe('the embedded RL presets', () => {
  it('learn one logit scale in the default and extended presets, and leave the study of record as it ran', () => {
    for (const name of ['default', 'extended'] as const) {
      const config = embeddedTrainConfig({
        preset: embeddedPresets[name],
        method: 'grpo',
      });
      expect(config.ppo?.outputNormUniform).toBe(true);
      expect(config.ppo?.outputNormLearningRateScale).toBe(100);
    }
    const study = embeddedTrainConfig({
      preset: embeddedPresets.study,
      method: 'grpo',
    });
    expect(study.ppo).not.toHaveProperty('outputNormUniform');
    expect(study.ppo).not.toHaveProperty('outputNormLearningRateScale');
    expect(embeddedPresets.study.rl).not.toHaveProperty('outputNormUniform');
    expect(embeddedPresets.study.rl).not.toHaveProperty('strictAbstention');
  });
});

describe('warmStartKey', () => {
  it('should keep the keys of the presets without a tool-list share (the shipped base, the consolidated base)', () => {
    // The shipped base's key is recorded in apps/cli/assets/base/warmstart.json.
    expect(warmStartKey(embeddedPresets.base)).toBe('7468839c5da292b2');
    expect(warmStartKey(embeddedPresets.default)).toBe('7468839c5da292b2');
    expect(warmStartKey(embeddedPresets.consolidated)).toBe('9780b2217565cb7a');
    const consolidation = embeddedPresets.consolidated.warmup.consolidation!;
    expect(
      warmStartKey({
        ...embeddedPresets.consolidated,
        warmup: {
          ...embeddedPresets.consolidated.warmup,
          consolidation: { ...consolidation, toolListShare: 0 },
        },
      }),
    ).toBe('9780b2217565cb7a');
  });

  it('should change the key with a tool-list share', () => {
    const { readslist, consolidated } = embeddedPresets;
    expect(readslist.warmup.consolidation?.toolListShare).toBe(0.25);
    // readslist is consolidated plus the share, and the default is untouched.
    const { toolListShare: _share, ...stage } = readslist.warmup.consolidation!;
    expect({
      ...readslist,
      name: consolidated.name,
      warmup: { ...readslist.warmup, consolidation: stage },
    }).toEqual(consolidated);
    expect(embeddedPresets.default.warmup.consolidation).toBeUndefined();
    expect(warmStartKey(readslist)).not.toBe(warmStartKey(consolidated));
    expect(
      warmStartKey({
        ...readslist,
        warmup: {
          ...readslist.warmup,
          consolidation: { ...stage, toolListShare: 0.5 },
        },
      }),
    ).not.toBe(warmStartKey(readslist));
  });

  it('should make recovers readslist plus recovery, with a key of its own, and leave the key alone when recovery is off', () => {
    const { readslist, recovers } = embeddedPresets;
    const { toolListRecovery, ...stage } = recovers.warmup.consolidation!;
    expect(toolListRecovery).toBe(true);
    expect({
      ...recovers,
      name: readslist.name,
      warmup: { ...recovers.warmup, consolidation: stage },
    }).toEqual(readslist);
    expect(warmStartKey(recovers)).not.toBe(warmStartKey(readslist));
    expect(
      warmStartKey({
        ...recovers,
        warmup: {
          ...recovers.warmup,
          consolidation: { ...stage, toolListRecovery: false },
        },
      }),
    ).toBe(warmStartKey(readslist));
  });
});
