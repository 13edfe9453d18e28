import { createBfclBackend } from '@seal/bfcl';
import {
  createGeneratorRuntime,
  generatedCategories,
  generateTasks,
  taskFamilies,
  type TaskFamily,
} from '@seal/bfcl-tasks';
import { createOrtPolicy } from '@seal/engine-ort';
import { createEpisode } from '@seal/env';
import {
  evolveSealOverlay,
  sealSettingsForModules,
  type SealOverlayModule,
} from '@seal/evolve';
import {
  evaluateCopying,
  evaluatePolicy,
  runRollouts,
  type CopyEvaluation,
} from '@seal/rl';
import { SealError, overlayModuleNames } from '@seal/spec';
import { createBfclVerifier } from '@seal/verifier';
import { embeddedEpisode, type EmbeddedPreset } from './embedded-preset';

/** The figures of a warm start (what `--check` compares). */
export type WarmStartFigures = {
  /** Held-out turn drills asked alone, as the copy drills are trained. */
  copy: CopyEvaluation;
  /** The first turn of held-out base tasks asked in the episode's own context (system prompt with the tools). */
  firstTurn: CopyEvaluation;
  /** Greedy success on held-out test-id tasks per category. */
  heldOut: Record<string, { correct: number; total: number }>;
  /**
   * Greedy success on the same held-out tasks under each SEAL training
   * overlay (`none`: the training interface with every module off), with the
   * paired count of tasks won and lost against `none`.
   */
  overlays?: Record<
    string,
    { correct: number; total: number; won: number; lost: number }
  >;
};

/**
 * Measures a warm start on held-out drills and tasks of the preset's suite,
 * or of the named task families (any difficulty).
 */
export async function measureWarmStart({
  directory,
  preset,
  families: familyIds,
}: {
  directory: string;
  preset: EmbeddedPreset;
  families?: readonly string[];
}): Promise<WarmStartFigures> {
  const runtime = createGeneratorRuntime();
  const backend = createBfclBackend({ runtime });
  const verifier = createBfclVerifier({ runtime });
  const chosen =
    familyIds === undefined
      ? taskFamilies.filter((family) =>
          preset.difficulties.includes(family.difficulty),
        )
      : familiesNamed(familyIds);
  // Families without a long-context form make none.
  const variants = chosen.some((family) => family.longContext)
    ? generatedCategories
    : generatedCategories.filter(
        (category) => category !== 'multi_turn_long_context',
      );
  // Held out: the test-id split (never seen by the tokenizer or the warm start).
  // Named families: 16 tasks per family and category (one family's test-id
  // value space holds about that many of each).
  const tasks = generateTasks({
    seed: preset.seed,
    split: 'test-id',
    count:
      familyIds === undefined
        ? 128
        : Math.min(128, 16 * chosen.length * variants.length),
    families: chosen.map((family) => family.id),
    ...(familyIds === undefined ? {} : { variants: [...variants] }),
  });
  const policy = await createOrtPolicy({ model: { directory } });
  try {
    const base = tasks.filter((task) => task.category === 'multi_turn_base');
    const copy = await evaluateCopying({
      policy,
      tasks: base,
      maxTokens: preset.rl.maxTokens,
    });
    const firstTurn = await evaluateCopying({
      policy,
      tasks: base,
      maxTokens: preset.rl.maxTokens,
      context: (task, turn) =>
        turn === 0
          ? createEpisode({ task, backend, ...embeddedEpisode })
              .reset()
              .map((m) => ({ role: m.role, content: m.content }))
          : undefined,
    });
    const evaluation = await evaluatePolicy({
      policy,
      tasks,
      backend,
      verifier,
      ...embeddedEpisode,
      maxTokens: preset.rl.maxTokens,
      limits: { maxModelCalls: preset.rl.maxModelCalls },
    });
    const heldOut: WarmStartFigures['heldOut'] = {};
    for (const episode of evaluation.episodes) {
      const entry = (heldOut[episode.task.category] ??= {
        correct: 0,
        total: 0,
      });
      entry.total++;
      if (episode.result.official.valid) entry.correct++;
    }
    // The same tasks under each overlay module alone (φ_cap with guidelines
    // chosen as if every failure tag were frequent), in the training interface.
    const tools = tasks.flatMap((task) => task.tools);
    const statistics = Object.fromEntries(
      ['spurious_tool_call', 'empty_turn_model_response', 'state_mismatch'].map(
        (tag) => [tag, { count: 20, rewardSum: 0 }],
      ),
    );
    const outcomes: Record<string, Map<string, boolean>> = {};
    for (const name of ['none', ...overlayModuleNames] as const) {
      const modules: SealOverlayModule[] = name === 'none' ? [] : [name];
      const { overlay } = evolveSealOverlay({
        tools,
        statistics,
        settings: sealSettingsForModules({
          modules,
          protocol: embeddedEpisode.protocol,
        }),
      });
      const rollouts = await runRollouts({
        policy,
        tasks,
        groupSize: 1,
        sampling: { maxTokens: preset.rl.maxTokens, temperature: 0, seed: 0 },
        createEpisode: ({ task }) =>
          createEpisode({
            task,
            backend,
            ...embeddedEpisode,
            mode: 'train',
            overlay,
            limits: { maxModelCalls: preset.rl.maxModelCalls },
            episodeId: `overlay-${name}:${task.id}`,
          }),
      });
      outcomes[name] = new Map(
        rollouts.map((rollout) => [
          rollout.task.id,
          verifier.verifySync({ task: rollout.task, record: rollout.record })
            .official.valid,
        ]),
      );
    }
    const overlays: NonNullable<WarmStartFigures['overlays']> = {};
    for (const [name, results] of Object.entries(outcomes)) {
      const plain = outcomes['none']!;
      const ids = [...results.keys()];
      overlays[name] = {
        correct: ids.filter((id) => results.get(id)).length,
        total: ids.length,
        won: ids.filter((id) => results.get(id) && !plain.get(id)).length,
        lost: ids.filter((id) => !results.get(id) && plain.get(id)).length,
      };
    }
    return { copy, firstTurn, heldOut, overlays };
  } finally {
    await policy.close();
  }
}

/** The task families of `ids`; INVALID_ARGUMENT naming any unknown one. */
function familiesNamed(ids: readonly string[]): TaskFamily[] {
  const unknown = ids.filter(
    (id) => !taskFamilies.some((family) => family.id === id),
  );
  if (unknown.length > 0) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `--families: unknown task famil${unknown.length === 1 ? 'y' : 'ies'} ${unknown.join(', ')} (known: ${taskFamilies.map((family) => family.id).join(', ')})`,
    });
  }
  return taskFamilies.filter((family) => ids.includes(family.id));
}
