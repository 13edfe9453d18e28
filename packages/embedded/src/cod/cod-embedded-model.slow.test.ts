import {
  demonstrationTokens,
  hintStartDelimiter,
  playFrozenLakeExpertPack,
  type FrozenLakeDemonstrationConversation,
  type FrozenLakeTask,
  type Pack,
} from '@seal/cod';
import { HuggingFaceTokenizer } from '@seal/engine-ort';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  buildCodEmbeddedTokenizer,
  codEmbeddedConversations,
  codEmbeddedCorpus,
  codEmbeddedModel,
  codEmbeddedSampling,
} from './cod-embedded-model';
import { createCodPackSource } from './cod-packs';

let conversations: FrozenLakeDemonstrationConversation[];
let corpus: string[];
let tokenizer: HuggingFaceTokenizer;

beforeAll(async () => {
  conversations = await codEmbeddedConversations();
  corpus = codEmbeddedCorpus(conversations);
  tokenizer = new HuggingFaceTokenizer(buildCodEmbeddedTokenizer(corpus));
});

/** The longest parts of demonstrated conversations, in tokens of the embedded tokenizer (replies with their stop token). */
function longest(list: readonly FrozenLakeDemonstrationConversation[]) {
  const sizes = {
    updatePrompt: 0,
    updateReply: 0,
    update: 0,
    solve: 0,
    action: 0,
  };
  for (const conversation of list) {
    const { tokenIds, assistantMask } = demonstrationTokens({
      tokenizer,
      conversation,
    });
    if (conversation.kind === 'update') {
      const prompt = assistantMask.indexOf(1);
      sizes.updatePrompt = Math.max(sizes.updatePrompt, prompt);
      sizes.updateReply = Math.max(sizes.updateReply, tokenIds.length - prompt);
      sizes.update = Math.max(sizes.update, tokenIds.length);
      continue;
    }
    sizes.solve = Math.max(sizes.solve, tokenIds.length);
    for (const message of conversation.messages.filter(
      (m) => m.role === 'assistant',
    )) {
      sizes.action = Math.max(
        sizes.action,
        tokenizer.encode(message.content).length + 1,
      );
    }
  }
  return sizes;
}

describe('the embedded CoD tokenizer and sampling budgets', () => {
  it('should train on the reasoned replies of the demonstrations and read them back exactly', () => {
    const replies = conversations.flatMap((c) =>
      c.messages.filter((m) => m.role === 'assistant').map((m) => m.content),
    );
    expect(replies.some((reply) => reply.startsWith('Toward the goal: '))).toBe(
      true,
    );
    expect(
      replies.some(
        (reply) =>
          / to \(\d,\d\) is (up|down|left|right)\n/.test(reply) &&
          reply.includes(hintStartDelimiter),
      ),
    ).toBe(true);
    const inCorpus = new Set(corpus);
    expect(replies.every((reply) => inCorpus.has(reply))).toBe(true);
    for (const reply of replies.slice(0, 400))
      expect(tokenizer.decode(tokenizer.encode(reply))).toBe(reply);
    // The reasoning's words are tokens of their own.
    for (const word of [' goal', ' known', ' unknown', ' edge', ' is', ' to'])
      expect(tokenizer.encode(word)).toHaveLength(1);
  });

  it('should fit the longest update prompt of evaluation packs of 8 and the longest demonstrated reply in 1,024 tokens', async () => {
    const context = codEmbeddedModel.maxPositionEmbeddings;
    const recipe = longest(conversations);
    expect(recipe).toEqual({
      updatePrompt: 727,
      updateReply: 236,
      update: 961,
      solve: 687,
      action: 25,
    });
    const figures: Record<string, ReturnType<typeof longest>> = {};
    for (const split of ['eval', 'harder'] as const) {
      const packs = createCodPackSource({
        name: 'frozen-lake',
        seed: 1,
        split,
        format: 'compact',
      }).packs({
        count: 64,
        packSize: 8,
        strategy: 'cod',
        round: 0,
      }) as Pack<FrozenLakeTask>[];
      const played: FrozenLakeDemonstrationConversation[] = [];
      // Clean and clumsy play (random moves answer bare and make long trajectories).
      for (const randomMoveRate of [0, 0.25, 0.5]) {
        for (const pack of packs)
          played.push(
            ...(await playFrozenLakeExpertPack({
              pack,
              settings: { format: 'compact', randomMoveRate, seed: 1 },
            })),
          );
      }
      figures[split] = longest(played);
    }
    expect(figures).toEqual({
      eval: {
        updatePrompt: 734,
        updateReply: 236,
        update: 967,
        solve: 687,
        action: 25,
      },
      harder: {
        updatePrompt: 761,
        updateReply: 236,
        update: 993,
        solve: 713,
        action: 25,
      },
    });
    for (const sizes of [recipe, figures.eval!, figures.harder!]) {
      // The loop runs an update only when its prompt plus updateMaxTokens fits, and a move only when the context plus maxTokens does.
      expect(sizes.updateReply).toBeLessThanOrEqual(
        codEmbeddedSampling.updateMaxTokens,
      );
      expect(
        sizes.updatePrompt + codEmbeddedSampling.updateMaxTokens,
      ).toBeLessThanOrEqual(context);
      expect(sizes.action).toBeLessThanOrEqual(codEmbeddedSampling.maxTokens);
      expect(sizes.solve + codEmbeddedSampling.maxTokens).toBeLessThanOrEqual(
        context,
      );
    }
  }, 180_000);
});
