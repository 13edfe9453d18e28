import { stripHintSection, type PromptFormat } from './hint-section';

/** One model action and the observation it answered. */
export type TrajectoryStep = {
  /** What the model saw before acting (user and tool messages since its last action). */
  observation: string;
  /** The model's response. */
  action: string;
};

/** A finished solve episode, as the update-context episode reads it. */
export type SolveTrajectory = {
  /** The system prompt the solve episode ran with (its hint section is removed when serialised). */
  systemPrompt: string;
  /** The steps in order. */
  steps: readonly TrajectoryStep[];
  /** What the environment said after the last action, when anything (e.g. the move into a hole). */
  finalObservation?: string;
  /** The task reward r_i. */
  reward: number;
  /** A short outcome string, e.g. `Success! Reached the goal`. */
  feedback: string;
};

/** Limits of {@link serializeTrajectory}. */
export type SerializeTrajectoryOptions = {
  /**
   * At most this many characters of steps; when longer, middle steps are
   * replaced by one line saying how many were left out (the first and the
   * last steps matter most for the lesson). Default: no limit.
   */
  maxStepCharacters?: number;
  /**
   * `compact` heads the task's prompt with `Task:` instead of `System prompt
   * of the task:`, and shows an action that ends with an `<answer>…</answer>`
   * tag as that tag alone (the reasoning before it is left out, like the
   * paper's keep-only-`<answer>` context compression): the embedded models'
   * budget. Default `paper` (actions as written).
   */
  format?: PromptFormat;
};

const finalAnswerTag = /<answer>(?:(?!<answer>)[\s\S])*<\/answer>\s*$/;

/** The action as the update reads it: in `compact`, a reply's final `<answer>…</answer>` tag alone when it ends with one. */
function shownAction(action: string, format: PromptFormat | undefined): string {
  if (format !== 'compact') return action;
  const tag = finalAnswerTag.exec(action);
  return tag === null ? action : action.slice(tag.index);
}

function renderStep(
  step: TrajectoryStep,
  index: number,
  format: PromptFormat | undefined,
): string {
  return `Step ${index + 1}:\nObservation: ${step.observation}\nAction: ${shownAction(step.action, format)}`;
}

/**
 * Serialises a solve trajectory for the update-context prompt (spec B2): the
 * task's system prompt with the hint section removed, one
 * `Step k: / Observation: / Action:` block per model call (in `compact`, an
 * action's reasoning before its final `<answer>` tag is left out), the final
 * observation, then `Reward: x.xxx` and `Environment feedback: …`.
 */
export function serializeTrajectory({
  trajectory,
  options = {},
}: {
  trajectory: SolveTrajectory;
  options?: SerializeTrajectoryOptions;
}): string {
  let blocks = trajectory.steps.map((step, index) =>
    renderStep(step, index, options.format),
  );
  const limit = options.maxStepCharacters;
  if (limit !== undefined) {
    const size = (list: readonly string[]) =>
      list.reduce((total, block) => total + block.length + 2, 0);
    if (size(blocks) > limit) {
      // Keep steps from both ends, alternating, while they fit.
      const head: string[] = [];
      const tail: string[] = [];
      let used = 0;
      let lo = 0;
      let hi = blocks.length - 1;
      let fromHead = true;
      while (lo <= hi) {
        const candidate = fromHead ? blocks[lo]! : blocks[hi]!;
        if (used + candidate.length + 2 > limit) break;
        used += candidate.length + 2;
        if (fromHead) head.push(blocks[lo++]!);
        else tail.unshift(blocks[hi--]!);
        fromHead = !fromHead;
      }
      const omitted = blocks.length - head.length - tail.length;
      blocks = [
        ...head,
        `[... ${omitted} step${omitted === 1 ? '' : 's'} omitted ...]`,
        ...tail,
      ];
    }
  }
  const heading =
    options.format === 'compact' ? 'Task:' : 'System prompt of the task:';
  const parts = [
    `${heading}\n${stripHintSection(trajectory.systemPrompt)}`,
    ...blocks,
  ];
  if (
    trajectory.finalObservation !== undefined &&
    trajectory.finalObservation.length > 0
  ) {
    parts.push(`Final observation: ${trajectory.finalObservation}`);
  }
  parts.push(
    `Reward: ${trajectory.reward.toFixed(3)}\nEnvironment feedback: ${trajectory.feedback}`,
  );
  return parts.join('\n\n');
}
