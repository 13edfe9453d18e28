import { hashOverlay } from '@seal/env';
import { interfaceOverlaySchema, type InterfaceOverlay } from '@seal/spec';
import { actionableErrorRewrites } from './actionable-errors';
import type { CurriculumStage } from './curriculum';

/**
 * The Environment Tuning interface of a stage: actionable error rewrites when
 * the stage is augmented, nothing otherwise (stage 4 trains on the standard
 * environment, as evaluation will see it).
 */
export function envTuningOverlay({ stage }: { stage: CurriculumStage }): {
  overlay: InterfaceOverlay;
  hash: string;
} {
  const overlay = interfaceOverlaySchema.parse({
    schemaVersion: 1,
    errorRewrites: stage.augmented ? actionableErrorRewrites() : [],
  });
  return { overlay, hash: hashOverlay(overlay) };
}
