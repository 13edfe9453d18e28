import { describe, expect, it } from 'vitest';
import { embeddedPresets, embeddedTrainConfig } from './embedded-preset';

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
