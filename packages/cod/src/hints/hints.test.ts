import { describe, expect, it } from 'vitest';
import {
  fallbackHints,
  hintSectionHeader,
  hintsContext,
  initialHints,
  injectHintSection,
  stripHintSection,
} from './hint-section';
import {
  hintEndDelimiter,
  hintStartDelimiter,
  parseHintBlock,
} from './parse-hint-block';
import { applyHintUpdate } from './apply-hint-update';
import { hintReward, taskReward } from './rewards';
import { serializeTrajectory } from './serialize-trajectory';
import {
  buildUpdateContextMessages,
  updateContextSystemPrompt,
} from './update-context-prompt';

const block = (body: string) =>
  `${hintStartDelimiter}\n${body}\n${hintEndDelimiter}`;

describe('parseHintBlock', () => {
  it('should read the text between the delimiter lines after some reasoning', () => {
    const result = parseHintBlock({
      text: `Direction 2 moved me up.\n${block('- Direction 2 is up\n- Direction 4 is left')}`,
    });
    expect(result).toEqual({
      success: true,
      content: '- Direction 2 is up\n- Direction 4 is left',
      trailingText: false,
    });
  });

  it('should read the block after one reasoning line per move (the compact demonstrator reply)', () => {
    const reasoning =
      'Direction 2: (1,3) to (0,3) is up\nDirection 3: (0,3) hit the edge, unknown\nDirection 1: (0,3) to (0,2) is left\n';
    const result = parseHintBlock({
      text: `${reasoning}${block('- Direction 1 = left\n- Direction 2 = up')}`,
    });
    expect(result).toEqual({
      success: true,
      content: '- Direction 1 = left\n- Direction 2 = up',
      trailingText: false,
    });
    // The next context holds the block alone, never the reasoning.
    expect(
      applyHintUpdate({
        response: `${reasoning}${block('- Direction 2 = up')}`,
      }).hints,
    ).toBe('Hints: - Direction 2 = up');
  });

  it('should fail without delimiters', () => {
    expect(parseHintBlock({ text: '- Direction 2 is up' })).toEqual({
      success: false,
      reason: 'missing-start',
    });
    // A delimiter inside a line is not a delimiter line.
    expect(
      parseHintBlock({
        text: `see ${hintStartDelimiter} x ${hintEndDelimiter}`,
      }),
    ).toEqual({ success: false, reason: 'missing-start' });
  });

  it('should fail when the end line is missing (a response cut by the token limit)', () => {
    expect(
      parseHintBlock({ text: `${hintStartDelimiter}\n- Direction 2 is` }),
    ).toEqual({ success: false, reason: 'missing-end' });
  });

  it('should keep the block and report text after the end line', () => {
    const result = parseHintBlock({
      text: `${block('- go down first')}\nI hope this helps.`,
    });
    expect(result).toEqual({
      success: true,
      content: '- go down first',
      trailingText: true,
    });
  });

  it('should fail on an empty block', () => {
    expect(parseHintBlock({ text: block('  \n ') })).toEqual({
      success: false,
      reason: 'empty',
    });
    expect(
      parseHintBlock({ text: `${hintStartDelimiter}\n${hintEndDelimiter}` }),
    ).toEqual({ success: false, reason: 'empty' });
  });

  it('should treat a block over the length limit as empty and say how long it was', () => {
    expect(
      parseHintBlock({ text: block('x'.repeat(41)), maxLength: 40 }),
    ).toEqual({ success: false, reason: 'too-long', length: 41 });
    expect(
      parseHintBlock({ text: block('x'.repeat(40)), maxLength: 40 }).success,
    ).toBe(true);
  });

  it('should take the last complete block and tolerate spaces around delimiter lines', () => {
    const text = `${block('old')}\n  ${hintStartDelimiter}  \nnew\n${hintEndDelimiter} `;
    expect(parseHintBlock({ text })).toMatchObject({
      success: true,
      content: 'new',
    });
  });
});

describe('hintReward', () => {
  it('should penalise a failed parse and nothing else, never rewarding', () => {
    expect(
      hintReward({ parse: { success: false, reason: 'too-long', length: 9 } }),
    ).toBe(-0.1);
    expect(
      hintReward({
        parse: { success: true, content: 'x', trailingText: true },
      }),
    ).toBe(0);
    expect(
      hintReward({ parse: { success: false, reason: 'empty' }, penalty: 0.3 }),
    ).toBe(-0.3);
  });
});

describe('taskReward', () => {
  it('should subtract the step fraction only on success', () => {
    expect(taskReward({ outcome: 1, stepsUsed: 2, maxSteps: 8 })).toBeCloseTo(
      0.975,
      12,
    );
    expect(taskReward({ outcome: 0, stepsUsed: 8, maxSteps: 8 })).toBe(0);
    expect(
      taskReward({
        outcome: 0.5,
        stepsUsed: 8,
        maxSteps: 8,
        settings: { lengthPenaltyCoef: 0.6 },
      }),
    ).toBe(0);
  });

  it('should add the response-length ramp when configured', () => {
    const settings = {
      responseLength: { zeroPenaltyTokens: 100, fullPenaltyTokens: 200 },
    };
    expect(
      taskReward({
        outcome: 1,
        stepsUsed: 0,
        maxSteps: 4,
        meanResponseTokens: 150,
        settings,
      }),
    ).toBeCloseTo(0.95, 12);
  });

  it('should refuse an outcome outside [0, 1] by code', () => {
    expect(() => taskReward({ outcome: 2, stepsUsed: 1, maxSteps: 4 })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
  });
});

describe('injectHintSection / stripHintSection', () => {
  const systemPrompt =
    'You walk on a frozen lake.\nReply with <answer>Direction k</answer>.';

  it('should put the hints in a section at the end of the system prompt', () => {
    const prompt = injectHintSection({
      systemPrompt,
      hints: initialHints,
      responseLimit: 'Answer in at most 30 tokens.',
    });
    expect(prompt.startsWith(`${systemPrompt}\n\n${hintSectionHeader}\n`)).toBe(
      true,
    );
    expect(prompt).toContain('Hints: null');
    expect(prompt.endsWith('Answer in at most 30 tokens.')).toBe(true);
  });

  it('should strip the section back to the original prompt, even when the hints repeat the header', () => {
    const hints = hintsContext(`${hintSectionHeader}\n- Direction 1 is down`);
    expect(stripHintSection(injectHintSection({ systemPrompt, hints }))).toBe(
      systemPrompt,
    );
    expect(stripHintSection(systemPrompt)).toBe(systemPrompt);
  });

  it('should refuse to inject into a prompt that already has a section', () => {
    const once = injectHintSection({ systemPrompt, hints: fallbackHints });
    expect(() =>
      injectHintSection({ systemPrompt: once, hints: fallbackHints }),
    ).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });
});

describe('serializeTrajectory', () => {
  const trajectory = {
    systemPrompt: injectHintSection({
      systemPrompt: 'Rules of the lake.',
      hints: 'Hints: - Direction 3 is right',
    }),
    steps: [
      {
        observation: 'You are at (0,0).',
        action: '<answer>Direction 3</answer>',
      },
      {
        observation: 'You moved from (0,0) to (0,1).',
        action: '<answer>Direction 1</answer>',
      },
    ],
    finalObservation: 'You moved from (0,1) to (1,1) and fell into a hole.',
    reward: 0,
    feedback: 'Failed: fell into a hole at (1,1)',
  };

  it('should write the stripped prompt, Step/Observation/Action blocks, reward and feedback', () => {
    expect(serializeTrajectory({ trajectory })).toBe(
      [
        'System prompt of the task:\nRules of the lake.',
        'Step 1:\nObservation: You are at (0,0).\nAction: <answer>Direction 3</answer>',
        'Step 2:\nObservation: You moved from (0,0) to (0,1).\nAction: <answer>Direction 1</answer>',
        'Final observation: You moved from (0,1) to (1,1) and fell into a hole.',
        'Reward: 0.000\nEnvironment feedback: Failed: fell into a hole at (1,1)',
      ].join('\n\n'),
    );
  });

  it('should leave out middle steps past the character limit and say so', () => {
    const long = {
      ...trajectory,
      steps: Array.from({ length: 10 }, (_, i) => ({
        observation: `o${i}`,
        action: `a${i}`,
      })),
    };
    const text = serializeTrajectory({
      trajectory: long,
      options: { maxStepCharacters: 120 },
    });
    expect(text).toContain('Step 1:\n');
    expect(text).toContain('Step 10:\n');
    expect(text).toMatch(/\[\.\.\. \d+ steps omitted \.\.\.\]/);
    expect(text).not.toContain('Step 5:\n');
  });
});

describe('buildUpdateContextMessages', () => {
  it('should give the instructions, the previous hints and the trajectory without the hint section', () => {
    const messages = buildUpdateContextMessages({
      previousHints: 'Hints: - Direction 3 is right',
      trajectory: {
        systemPrompt: injectHintSection({
          systemPrompt: 'Rules.',
          hints: 'Hints: - Direction 3 is right',
        }),
        steps: [{ observation: 'start', action: 'Direction 3' }],
        reward: 0.9,
        feedback: 'Success! Reached the goal',
      },
    });
    expect(messages[0]).toEqual({
      role: 'system',
      content: updateContextSystemPrompt,
    });
    expect(updateContextSystemPrompt).toContain(
      `${hintStartDelimiter}\n${hintEndDelimiter}`,
    );
    const user = messages[1]!.content;
    expect(
      user.startsWith('Previous hints:\nHints: - Direction 3 is right\n\n'),
    ).toBe(true);
    expect(user).toContain(
      'Reward: 0.900\nEnvironment feedback: Success! Reached the goal',
    );
    // The solve prompt's hint section is not repeated inside the trajectory.
    expect(user.split('Direction 3 is right').length - 1).toBe(1);
    expect(user).not.toContain(hintSectionHeader);
  });
});

describe('applyHintUpdate', () => {
  it('should turn a good block into the next context at no cost', () => {
    expect(
      applyHintUpdate({ response: block('- Direction 2 is up') }),
    ).toMatchObject({ hints: 'Hints: - Direction 2 is up', reward: 0 });
  });

  it('should fall back to "no hint available" with the penalty on a bad block', () => {
    for (const response of [
      'no delimiters here',
      block(''),
      block('y'.repeat(30)),
    ]) {
      const update = applyHintUpdate({ response, maxLength: 20 });
      expect(update.hints).toBe('Hints: no hint available.');
      expect(update.reward).toBe(-0.1);
      expect(update.parse.success).toBe(false);
    }
  });
});

describe('compact prompt format', () => {
  const trajectory = {
    systemPrompt: injectHintSection({
      systemPrompt: 'Rules.',
      hints: 'Hints: - Direction 3 = right',
      format: 'compact',
    }),
    steps: [
      { observation: 'Map:\nSG', action: '<answer>Direction 3</answer>' },
    ],
    finalObservation:
      'Direction 3: you moved from (0,0) to (0,1). You reached the goal.',
    reward: 0.9,
    feedback: 'Success! Reached the goal',
  };
  it('should keep the strippable section with a short intro', () => {
    expect(trajectory.systemPrompt).toBe(
      'Rules.\n\n### Hints that might help\nYour notes from earlier tasks here (maybe wrong):\nHints: - Direction 3 = right',
    );
    expect(stripHintSection(trajectory.systemPrompt)).toBe('Rules.');
  });
  it('should give the same parts as the paper format in fewer words', () => {
    const [system, user] = buildUpdateContextMessages({
      previousHints: 'Hints: - Direction 3 = right',
      trajectory,
      format: 'compact',
    });
    expect(system!.content).toContain(
      `${hintStartDelimiter}\n${hintEndDelimiter}`,
    );
    expect(system!.content.length).toBeLessThan(
      updateContextSystemPrompt.length / 2,
    );
    expect(user!.content).toBe(
      [
        'Previous hints:\nHints: - Direction 3 = right',
        'Task:\nRules.',
        'Step 1:\nObservation: Map:\nSG\nAction: <answer>Direction 3</answer>',
        'Final observation: Direction 3: you moved from (0,0) to (0,1). You reached the goal.',
        'Reward: 0.900\nEnvironment feedback: Success! Reached the goal',
      ].join('\n\n'),
    );
    const paper = buildUpdateContextMessages({
      previousHints: 'Hints: null',
      trajectory,
    });
    expect(paper[1]!.content).toContain('System prompt of the task:\nRules.');
  });
  it("should show a reasoned action as its final answer tag alone, and the paper format's actions as written", () => {
    const steps = [
      {
        observation: 'Map:\nSFG',
        action:
          'No known way: try unknown Direction 1\n<answer>Direction 1</answer>',
      },
      {
        observation: 'Direction 1: you moved from (0,0) to (0,1).',
        action: '<answer>Direction 1</answer>',
      },
      {
        observation: 'x',
        action:
          'I think <answer>Direction 2</answer> or <answer>Direction 3</answer>',
      },
      { observation: 'y', action: 'no tag, Direction 4' },
    ];
    const compact = serializeTrajectory({
      trajectory: { ...trajectory, steps },
      options: { format: 'compact' },
    });
    expect(compact).toContain(
      'Step 1:\nObservation: Map:\nSFG\nAction: <answer>Direction 1</answer>\n\nStep 2:',
    );
    expect(compact).toContain(
      'Step 2:\nObservation: Direction 1: you moved from (0,0) to (0,1).\nAction: <answer>Direction 1</answer>',
    );
    expect(compact).toContain(
      'Step 3:\nObservation: x\nAction: <answer>Direction 3</answer>',
    );
    expect(compact).toContain(
      'Step 4:\nObservation: y\nAction: no tag, Direction 4',
    );
    expect(compact).not.toContain('try unknown');
    expect(
      serializeTrajectory({ trajectory: { ...trajectory, steps } }),
    ).toContain(
      'Action: No known way: try unknown Direction 1\n<answer>Direction 1</answer>',
    );
  });
});
