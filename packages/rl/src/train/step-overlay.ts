import type { CapabilityState } from '@seal/diagnose';
import { emptyOverlayHash } from '@seal/env';
import {
  envTuningOverlay,
  envTuningStages,
  evolveSealOverlay,
  sealSettingsForModules,
  type SealInterfaceSettings,
} from '@seal/evolve';
import {
  emptyOverlay,
  type InterfaceOverlay,
  type Task,
  type ToolDoc,
  type TrainerState,
} from '@seal/spec';
import type { MethodComponents, TrainConfig } from '../config/train-config';

/**
 * The training interface of a step: Environment Tuning's overlay for the
 * current stage, SEAL's evolved overlay Ω_t = Evolve(Ω_{t-1}, C_t) from the
 * capability state's window statistics, or the untouched interface for
 * methods without environment-side adaptation.
 */
export function stepOverlay({
  components,
  state,
  tools,
  capability,
  config,
  interfaceSettings,
}: {
  components: MethodComponents;
  state: TrainerState;
  /** Every tool of the training tasks ({@link unionTools}). */
  tools: ToolDoc[];
  capability: CapabilityState;
  config: TrainConfig;
  interfaceSettings: SealInterfaceSettings | undefined;
}): { overlay: InterfaceOverlay; hash: string; stage?: string } {
  if (components.envTuning) {
    const stage = envTuningStages[state.curriculum.stage]!;
    return { ...envTuningOverlay({ stage }), stage: stage.name };
  }
  if (!components.interface) {
    return { overlay: emptyOverlay, hash: emptyOverlayHash };
  }
  const { overlay, hash } = evolveSealOverlay({
    tools,
    statistics: tagStatistics(capability.activeTagStats()),
    settings:
      interfaceSettings ??
      (config.overlays
        ? sealSettingsForModules({
            modules: config.overlays,
            protocol: config.episode.protocol,
          })
        : undefined),
  });
  return { overlay, hash };
}

/** Every tool of `tasks`, the first doc of each name. */
export function unionTools(tasks: readonly Task[]): ToolDoc[] {
  const byName = new Map<string, ToolDoc>();
  for (const task of tasks) {
    for (const doc of task.tools)
      if (!byName.has(doc.name)) byName.set(doc.name, doc);
  }
  return [...byName.values()];
}

/** The count and reward sum of each tag (the capability state's window statistics). */
export function tagStatistics(
  stats: Record<string, { count: number; rewardSum: number }>,
): Record<string, { count: number; rewardSum: number }> {
  return Object.fromEntries(
    Object.entries(stats).map(([tag, s]) => [
      tag,
      { count: s.count, rewardSum: s.rewardSum },
    ]),
  );
}
