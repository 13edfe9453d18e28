import { defaultGuidelines, evolveSealOverlay } from '@seal/evolve';
import type { PyRandom } from '@seal/python';
import type { InterfaceOverlay, ToolDoc } from '@seal/spec';

/**
 * A random SEAL training interface for one demonstration: φ_schema cues with
 * a random choice of the required, type and enum cues and of the note, and
 * in about half of the draws one to three φ_cap guideline lines. A warm start
 * that sees such overlays in part of its demonstrations (and none in the
 * rest) keeps working under any overlay the run evolves, and can learn what
 * a cue says instead of treating it as noise. Deterministic in `random`.
 */
export function randomSealOverlay({
  tools,
  random,
}: {
  tools: readonly ToolDoc[];
  random: PyRandom;
}): InterfaceOverlay {
  const tags = Object.keys(defaultGuidelines);
  const guidelineCount =
    random.random() < 0.5 ? Number(random.randint(1, 3)) : 0;
  const chosen = random.shuffle([...tags]).slice(0, guidelineCount);
  const { overlay } = evolveSealOverlay({
    tools,
    // Statistics that select exactly the chosen tags: each a failure with mean reward 0.
    statistics: Object.fromEntries(
      chosen.map((tag) => [tag, { count: 10, rewardSum: 0 }]),
    ),
    settings: {
      schema: {
        required: random.random() < 0.8,
        type: random.random() < 0.5,
        enum: random.random() < 0.8,
        ...(random.random() < 0.5 ? { note: null } : {}),
      },
      errorHints: false,
      guidelines:
        chosen.length > 0
          ? { maxLines: 3, prevalenceThreshold: 0, minTagCount: 1 }
          : false,
    },
  });
  return overlay;
}
