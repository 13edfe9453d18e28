import { HuggingFaceTokenizer } from '@seal/engine-ort';
import { describe, expect, it } from 'vitest';
import {
  buildCodEmbeddedTokenizer,
  codLiteralFactTokens as factTokens,
  codEmbeddedConversations,
  codEmbeddedCorpus,
  codLiteralDrill,
  codLiteralModel,
  codLiteralSampling,
} from './cod-embedded-model';
import { codPresets } from './cod-presets';

describe('the literal setting of the embedded CoD model', () => {
  it('should tokenize each fact as one token, and nothing else across its pieces', async () => {
    const conversations = await codEmbeddedConversations('literal');
    const tokenizer = new HuggingFaceTokenizer(
      buildCodEmbeddedTokenizer(codEmbeddedCorpus(conversations), 'literal'),
    );
    expect(factTokens).toHaveLength(16);
    for (const fact of factTokens)
      expect(tokenizer.encode(fact)).toHaveLength(1);
    const pieces = (text: string) =>
      tokenizer.encode(text).map((id) => tokenizer.decode([id]));
    expect(pieces('Direction 2 = up: you moved')).toEqual([
      'Direction 2 = up',
      ':',
      ' you',
      ' moved',
    ]);
    // A direction without its move (a solve's reasoning) stays in pieces.
    expect(pieces('right, Direction 3')).not.toContain('Direction 3');
    // The longest update reply of the demonstrations fits the preset's budget with its stop token.
    const longest = Math.max(
      ...conversations
        .filter((c) => c.kind === 'update')
        .map((c) => tokenizer.encode(c.messages.at(-1)!.content).length + 1),
    );
    expect(longest).toBeLessThanOrEqual(codLiteralSampling.updateMaxTokens);
    expect(codPresets.literal.updateMaxTokens).toBe(
      codLiteralSampling.updateMaxTokens,
    );
    expect(codLiteralModel.initializerRange).toBe(0.05);
  });

  it('should cut an update down to the previous hints and the observation lines, with the same reply', async () => {
    const update = (await codEmbeddedConversations('literal')).find(
      (c) => c.kind === 'update' && c.messages[1]!.content.includes('Step 2:'),
    )!;
    const drill = codLiteralDrill(update);
    const [system, user, reply] = drill.messages;
    expect(system!.role).toBe('system');
    expect(reply).toEqual(update.messages.at(-1));
    const [previous, moves] = user!.content.split('\n\nMoves:\n');
    expect(previous).toMatch(/^Previous hints:\nHints: /);
    const lines = moves!.split('\n');
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) {
      expect(line).toMatch(/^Direction [1-4] = (up|down|left|right): /);
      expect(update.messages[1]!.content).toContain(line);
    }
    // Every bullet names a direction: a fact seen or noted, or unknown.
    expect(reply!.content.match(/^- Direction [1-4] = \w+$/gm)).toHaveLength(4);
  });
});
