import type { ChatMessage } from '@seal/spec';
import { hintEndDelimiter, hintStartDelimiter } from './parse-hint-block';
import type { PromptFormat } from './hint-section';
import {
  serializeTrajectory,
  type SerializeTrajectoryOptions,
  type SolveTrajectory,
} from './serialize-trajectory';

/**
 * The system prompt of an update-context episode (spec B2, our wording): the
 * model learns across the tasks of one environment and rewrites its notes
 * after each attempt.
 */
export const updateContextSystemPrompt = [
  'You learn across a sequence of tasks in the same environment. After each task you rewrite your notes (hints) for the next task.',
  'You get your previous hints and the trajectory of the task you just attempted. Then:',
  '- keep the guidance that still holds and drop what the trajectory showed to be wrong;',
  '- add new lessons: facts the trajectory revealed about the hidden rules of the environment, and techniques that worked; mark uncertain hints as uncertain;',
  '- keep the hints short and general: they must help on a different task of this environment, not only on this one;',
  '- write Markdown bullets; use no heading above ###.',
  'Think briefly first. Then write the hints between these two lines, and nothing after the second line:',
  hintStartDelimiter,
  hintEndDelimiter,
].join('\n');

/**
 * The update-context instructions in the `compact` format: the same duties
 * (keep, drop, add revealed facts, stay general, bullets, the delimiters) in
 * a few words, for the embedded models' 1,024-token context.
 */
export const compactUpdateContextSystemPrompt = [
  'Rewrite your hints for the next task in this environment: keep what held, drop what was wrong, add facts the trajectory revealed. Short general bullets between these lines, nothing after:',
  hintStartDelimiter,
  hintEndDelimiter,
].join('\n');

/**
 * The messages of one update-context call: the instructions, then the
 * previous hints (`Hints: null` before the first update) and the serialised
 * trajectory of the task just solved.
 */
export function buildUpdateContextMessages({
  previousHints,
  trajectory,
  serializeOptions,
  format = 'paper',
}: {
  previousHints: string;
  trajectory: SolveTrajectory;
  serializeOptions?: SerializeTrajectoryOptions;
  /** `paper` (default) or `compact` (short instructions and headings; same content). */
  format?: PromptFormat;
}): ChatMessage[] {
  const serialized = serializeTrajectory({
    trajectory,
    options: { ...serializeOptions, format },
  });
  const body =
    format === 'compact'
      ? [`Previous hints:\n${previousHints}`, serialized].join('\n\n')
      : [
          `Previous hints:\n${previousHints}`,
          `Trajectory of the task just attempted:\n${serialized}`,
          'Write the updated hints.',
        ].join('\n\n');
  return [
    {
      role: 'system',
      content:
        format === 'compact'
          ? compactUpdateContextSystemPrompt
          : updateContextSystemPrompt,
    },
    { role: 'user', content: body },
  ];
}
