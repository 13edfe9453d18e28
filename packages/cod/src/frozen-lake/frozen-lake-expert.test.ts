import { MockPolicyV1 } from '@seal/engine-ort/test';
import type {
  PolicyV1GenerateOptions,
  PolicyV1GenerateResult,
} from '@seal/spec';
import { describe, expect, it } from 'vitest';
import { hintSectionHeader, initialHints } from '../hints/hint-section';
import { hintStartDelimiter } from '../hints/parse-hint-block';
import { parseHintBlock } from '../hints/parse-hint-block';
import { buildPacks } from '../packs/build-packs';
import { runPackRuns } from '../rollout/run-pack-runs';
import {
  demonstrationTokens,
  playFrozenLakeExpertPack,
} from './frozen-lake-demonstrations';
import {
  createFrozenLakeEnvironment,
  frozenLakeMapping,
} from './frozen-lake-environment';
import {
  describeObservedMoves,
  formatDirectionHints,
  formatExpertChoice,
  frozenLakeExpertChoice,
  frozenLakeExpertMove,
  mergeDirectionFacts,
  observedDirectionFacts,
  readDirectionFacts,
} from './frozen-lake-expert';
import { generateFrozenLakeTasks } from './frozen-lake-tasks';

const tasks = generateFrozenLakeTasks({ seed: 9, count: 48 });
const packs = buildPacks({
  tasks,
  taskId: (t) => t.taskId,
  tasksetId: (t) => t.tasksetId,
  packSize: 4,
  seed: 9,
});

describe('direction facts', () => {
  it('should read statements and moves, and complete the fourth direction of a permutation', () => {
    expect([
      ...readDirectionFacts(
        'Hints: - Direction 2 = up\n- Direction 4 = left\nnoise: Direction 9 = up',
      ),
    ]).toEqual([
      [2, 'up'],
      [4, 'left'],
    ]);
    const observed = observedDirectionFacts(
      'Direction 1: you moved from (1,1) to (2,1).\nDirection 3: your position (2,1) did not change (maybe the edge).\nDirection 3: you moved from (2,1) to (2,2).',
    );
    expect([...observed]).toEqual([
      [1, 'down'],
      [3, 'right'],
    ]);
    expect(
      mergeDirectionFacts(
        readDirectionFacts('- Direction 2 = up'),
        observed,
      ).get(4),
    ).toBe('left');
  });

  it('should let what was observed win over a contradicting note', () => {
    const merged = mergeDirectionFacts(
      readDirectionFacts('- Direction 1 = up\n- Direction 2 = down'),
      observedDirectionFacts('Direction 2: you moved from (1,1) to (0,1).'),
    );
    expect([...merged]).toEqual([[2, 'up']]);
    expect(formatDirectionHints(merged)).toBe('- Direction 2 = up');
    expect(formatDirectionHints(new Map())).toBe('- No direction known yet.');
  });
});

describe('frozenLakeExpertMove', () => {
  const rows = ['SFF', 'HHF', 'GFF'];
  it('should take a known direction that starts a shortest safe path', () => {
    const facts = readDirectionFacts(
      '- Direction 3 = right\n- Direction 1 = down',
    );
    // Down from (0,0) is a hole; right leads round the holes.
    expect(
      frozenLakeExpertMove({ rows, position: [0, 0], goal: [2, 0], facts }),
    ).toBe(3);
  });
  it('should explore the lowest unknown direction that has not bumped into the edge here', () => {
    expect(
      frozenLakeExpertMove({
        rows,
        position: [0, 0],
        goal: [2, 0],
        facts: new Map(),
      }),
    ).toBe(1);
    expect(
      frozenLakeExpertMove({
        rows,
        position: [0, 0],
        goal: [2, 0],
        facts: new Map(),
        bumped: new Set([1, 2]),
      }),
    ).toBe(3);
  });
});

describe('frozenLakeExpertChoice / formatExpertChoice', () => {
  const rows = ['SFF', 'HHF', 'GFF'];
  it('should say which real move leads toward the goal and its direction number', () => {
    const choice = frozenLakeExpertChoice({
      rows,
      position: [0, 0],
      goal: [2, 0],
      facts: readDirectionFacts('- Direction 3 = right'),
    });
    expect(choice).toEqual({
      direction: 3,
      reason: 'toward-goal',
      move: 'right',
    });
    expect(formatExpertChoice(choice)).toBe(
      'Toward the goal: right, Direction 3',
    );
  });
  it('should say when it explores, steps onto safe ice or knows nothing safe', () => {
    const explore = frozenLakeExpertChoice({
      rows,
      position: [0, 0],
      goal: [2, 0],
      facts: new Map(),
    });
    expect(formatExpertChoice(explore)).toBe(
      'No known way: try unknown Direction 1',
    );
    // Only down (a hole) and up (the edge) known, the rest bumped: nothing safe.
    const facts = readDirectionFacts(
      '- Direction 1 = down\n- Direction 2 = up',
    );
    const nothing = frozenLakeExpertChoice({
      rows,
      position: [0, 0],
      goal: [2, 0],
      facts,
      bumped: new Set([3, 4]),
    });
    expect(formatExpertChoice(nothing)).toBe('Nothing safe known: Direction 1');
    // At (0,1), left is known and safe, but does not lead toward the goal (right does, unknown and bumped).
    const safe = frozenLakeExpertChoice({
      rows,
      position: [0, 1],
      goal: [2, 0],
      facts: readDirectionFacts('- Direction 2 = left'),
      bumped: new Set([1, 3, 4]),
    });
    expect(formatExpertChoice(safe)).toBe(
      'No known way: safe left, Direction 2',
    );
    expect(
      frozenLakeExpertMove({
        rows,
        position: [0, 1],
        goal: [2, 0],
        facts: readDirectionFacts('- Direction 2 = left'),
        bumped: new Set([1, 3, 4]),
      }),
    ).toBe(2);
  });
});

describe('describeObservedMoves', () => {
  it('should write one line per reported move, and an unknown for a move into the edge', () => {
    const observations = [
      'Direction 2: you moved from (1,3) to (0,3).',
      'Direction 2: your position (0,3) did not change (maybe the edge).',
      'Direction 4: you moved from (0,3) to (0,2). It is a hole.',
    ].join('\n');
    expect(describeObservedMoves(observations)).toEqual([
      'Direction 2: (1,3) to (0,3) is up',
      'Direction 2: (0,3) hit the edge, unknown',
      'Direction 4: (0,3) to (0,2) is left',
    ]);
    expect(
      describeObservedMoves(
        'Map:\nSG\nYou are at (0,0). The goal is at (0,1).',
      ),
    ).toEqual([]);
  });
});

describe('playFrozenLakeExpertPack', () => {
  it('should be deterministic, solve with Hints: null first and write hints that state the revealed mapping', async () => {
    const pack = packs[0]!;
    const conversations = await playFrozenLakeExpertPack({ pack });
    expect(await playFrozenLakeExpertPack({ pack })).toEqual(conversations);
    expect(conversations.map((c) => `${c.kind}${c.position}`)).toEqual([
      'solve0',
      'update0',
      'solve1',
      'update1',
      'solve2',
      'update2',
      'solve3',
    ]);
    expect(conversations[0]!.hints).toBe(initialHints);
    const mapping = frozenLakeMapping(pack.packSeed);
    for (const update of conversations.filter((c) => c.kind === 'update')) {
      const parse = parseHintBlock({ text: update.messages.at(-1)!.content });
      expect(parse.success).toBe(true);
      // Every stated direction is the pack's true one.
      for (const [k, move] of readDirectionFacts(
        parse.success ? parse.content : '',
      ))
        expect(mapping[k - 1]).toBe(move);
      expect(update.messages[1]!.content).not.toContain(hintSectionHeader);
    }
  });

  it('should solve more often later in the pack, where the hints name the directions', async () => {
    const firsts: boolean[] = [];
    const fourths: boolean[] = [];
    for (const pack of packs) {
      const solves = (await playFrozenLakeExpertPack({ pack })).filter(
        (c) => c.kind === 'solve',
      );
      firsts.push(solves[0]!.success!);
      fourths.push(solves[3]!.success!);
    }
    const rate = (list: boolean[]) => list.filter(Boolean).length / list.length;
    expect(rate(fourths)).toBeGreaterThan(rate(firsts) + 0.2);
  });

  it('should reason before each trained answer and each hint block in the compact format, from what the trajectory shows', async () => {
    const conversations = await playFrozenLakeExpertPack({
      pack: packs[3]!,
      settings: { randomMoveRate: 0.25, seed: 4 },
    });
    for (const solve of conversations.filter((c) => c.kind === 'solve')) {
      const actions = solve.messages
        .filter((m) => m.role === 'assistant')
        .map((m) => m.content);
      actions.forEach((action, i) => {
        // Trained moves: one reasoning line, then the answer; random (untrained) moves answer bare.
        expect(action).toMatch(
          solve.trained[i]
            ? /^(Toward the goal|No known way|Nothing safe known)[^\n]*Direction [1-4]\n<answer>Direction [1-4]<\/answer>$/
            : /^<answer>Direction [1-4]<\/answer>$/,
        );
      });
    }
    expect(
      conversations.some(
        (c) => c.kind === 'solve' && c.trained.includes(false),
      ),
    ).toBe(true);
    for (const update of conversations.filter((c) => c.kind === 'update')) {
      const reply = update.messages.at(-1)!.content;
      const reasoning = reply
        .slice(0, reply.indexOf(hintStartDelimiter))
        .split('\n')
        .filter((line) => line.length > 0);
      // One line per move, read off the serialised trajectory the update prompt shows.
      expect(reasoning.length).toBeGreaterThan(0);
      expect(reasoning).toEqual(
        describeObservedMoves(update.messages[1]!.content),
      );
      expect(update.messages[1]!.content).not.toMatch(
        /Toward the goal|No known way|Nothing safe known/,
      );
      expect(parseHintBlock({ text: reply }).success).toBe(true);
    }
  });

  it('should keep the paper format replies bare', async () => {
    const conversations = await playFrozenLakeExpertPack({
      pack: packs[3]!,
      settings: { format: 'paper' },
    });
    for (const conversation of conversations) {
      for (const message of conversation.messages.filter(
        (m) => m.role === 'assistant',
      )) {
        expect(message.content).toMatch(
          conversation.kind === 'solve'
            ? /^<answer>Direction [1-4]<\/answer>$/
            : new RegExp(`^${hintStartDelimiter}\n`),
        );
      }
    }
  });

  it('should not train the random moves of a noisy pack', async () => {
    const conversations = await playFrozenLakeExpertPack({
      pack: packs[1]!,
      settings: { randomMoveRate: 1, seed: 3 },
    });
    expect(
      conversations
        .filter((c) => c.kind === 'solve')
        .every((c) => c.trained.every((flag) => !flag)),
    ).toBe(true);
    expect(
      conversations
        .filter((c) => c.kind === 'update')
        .every((c) => c.trained.every(Boolean)),
    ).toBe(true);
  });
});

describe('demonstrationTokens', () => {
  const packs8 = buildPacks({
    tasks,
    taskId: (t) => t.taskId,
    tasksetId: (t) => t.tasksetId,
    packSize: 8,
    seed: 9,
  });
  it.each([
    { name: 'a pack of 4', pack: packs[2]!, settings: {} },
    {
      name: 'a noisy pack of 8',
      pack: packs8[1]!,
      settings: { randomMoveRate: 0.25, seed: 2 },
    },
  ])(
    'should build exactly the token contexts the pack loop builds when the policy acts as demonstrated ($name)',
    async ({ pack, settings }) => {
      const conversations = await playFrozenLakeExpertPack({
        pack,
        settings: { format: 'compact', ...settings },
      });
      // The noisy pack has bare random moves among the reasoned ones.
      expect(conversations.some((c) => c.trained.includes(false))).toBe(
        'randomMoveRate' in settings,
      );
      const policy: MockPolicyV1 = new MockPolicyV1({
        maxSequenceLength: 100_000,
        generate: (
          request: PolicyV1GenerateOptions,
        ): PolicyV1GenerateResult => ({
          generations: (request.prompts ?? []).map((prompt) => {
            // Continue the demonstration whose tokens extend this prompt, up to its next stop token.
            const demo = demonstrations.find(
              (d) =>
                d.tokenIds.length > prompt.length &&
                prompt.every((id, i) => d.tokenIds[i] === id),
            )!;
            const rest = demo.tokenIds.slice(prompt.length);
            const tokenIds = rest.slice(
              0,
              rest.findIndex((id) =>
                policy.tokenizer.stopTokenIds.includes(id),
              ) + 1,
            );
            const text = policy.tokenizer.decode(tokenIds.slice(0, -1));
            return {
              tokenIds,
              text,
              logprobs: tokenIds.map(() => -0.1),
              modelLogprobs: tokenIds.map(() => -0.1),
              finishReason: 'stop' as const,
              promptTokenIds: prompt,
            };
          }),
          usage: { promptTokens: 0, completionTokens: 0 },
        }),
      });
      const demonstrations = conversations.map((conversation) =>
        demonstrationTokens({ tokenizer: policy.tokenizer, conversation }),
      );
      const [result] = await runPackRuns({
        policy,
        environment: createFrozenLakeEnvironment({ format: 'compact' }),
        pack,
        groupSize: 1,
        sampling: {
          maxTokens: 64,
          updateMaxTokens: 400,
          temperature: 1,
          seed: 1,
        },
        hints: { format: 'compact' },
        mode: 'eval',
      });
      const solves = demonstrations.filter((d) => d.kind === 'solve');
      const updates = demonstrations.filter((d) => d.kind === 'update');
      expect(solves).toHaveLength(pack.tasks.length);
      expect(result!.solveTokens.map((t) => t.tokenIds)).toEqual(
        solves.map((d) => d.tokenIds),
      );
      expect(result!.updateTokens.map((t) => t.tokenIds)).toEqual(
        updates.map((d) => d.tokenIds),
      );
      expect(result!.record.solves.map((s) => s.success)).toEqual(
        conversations.filter((c) => c.kind === 'solve').map((c) => c.success),
      );
      expect(result!.record.updates.every((u) => u.parsed)).toBe(true);
      // The loop read the reasoned replies: the answers after a reasoning line, the hint blocks after the move lines.
      expect(result!.record.updates.map((u) => u.response)).toEqual(
        conversations
          .filter((c) => c.kind === 'update')
          .map((c) => c.messages.at(-1)!.content),
      );
      expect(
        result!.record.updates.every((u) =>
          /^Direction [1-4]: \(\d,\d\) /.test(u.response),
        ),
      ).toBe(true);
      expect(
        result!.record.solves.every(
          (s) =>
            s.endReason === 'finished' &&
            !s.feedback.startsWith('Failed: invalid'),
        ),
      ).toBe(true);
      // Trained tokens are the assistant's: they decode to the demonstrated reasoning and actions.
      const trained = solves[0]!.tokenIds.filter(
        (_, i) => solves[0]!.assistantMask[i] === 1,
      );
      expect(policy.tokenizer.decode(trained)).toMatch(
        /(Toward the goal|No known way)[^<]*<answer>Direction/,
      );
    },
  );
});
