import { SealError } from '@seal/spec';
import { describe, expect, it } from 'vitest';
import {
  buildBpeTokenizer,
  numberGroupPretokenizerPattern,
  numberTokens,
} from './build-bpe-tokenizer';
import { Template } from '@huggingface/jinja';
import { chatmlTemplate, renderChatml } from './chatml-template';
import { HuggingFaceTokenizer } from './hf-tokenizer';

const corpus = [
  'move the file report.txt to the folder archive',
  'copy the file notes.md to the folder backup 2024',
  'The weather in Paris is sunny, 21 degrees.',
  "it's done; we'll see what they've got\nnext line",
];

describe('buildBpeTokenizer', () => {
  const files = buildBpeTokenizer({
    corpus: [...corpus, ...corpus],
    vocabSize: 320,
  });
  const tokenizer = new HuggingFaceTokenizer(files);

  it('should build a vocabulary of the requested size at most', () => {
    expect(tokenizer.vocabSize).toBeLessThanOrEqual(320);
    expect(tokenizer.vocabSize).toBeGreaterThan(259);
  });

  it('should round-trip any text, including unseen characters', () => {
    for (const text of [...corpus, 'ünïcödé ✓ 😀 tabs\tand  spaces', '']) {
      expect(tokenizer.decode(tokenizer.encode(text))).toBe(text);
    }
  });

  it('should learn merges from the corpus', () => {
    expect(tokenizer.encode(' the file').length).toBeLessThan(
      ' the file'.length,
    );
  });

  it('should split digits one by one', () => {
    const ids = tokenizer.encode('2024');
    expect(ids).toHaveLength(4);
  });

  it('should keep special tokens atomic and make them stop tokens', () => {
    const imEnd = tokenizer.tokenToId('<|im_end|>')!;
    expect(tokenizer.encode('hi<|im_end|>').at(-1)).toBe(imEnd);
    expect(tokenizer.stopTokenIds).toContain(imEnd);
    expect(tokenizer.eosTokenId).toBe(imEnd);
  });

  it("should name ChatML's <|im_start|> as the one control token (special, not a stop token)", () => {
    expect(tokenizer.controlTokenIds).toEqual([
      tokenizer.tokenToId('<|im_start|>')!,
    ]);
  });

  it('should be deterministic', () => {
    const again = buildBpeTokenizer({
      corpus: [...corpus, ...corpus],
      vocabSize: 320,
    });
    expect(JSON.stringify(again)).toBe(JSON.stringify(files));
  });

  it('should reject a vocabulary smaller than the byte alphabet', () => {
    let thrown: unknown;
    try {
      buildBpeTokenizer({ corpus, vocabSize: 100 });
    } catch (error) {
      thrown = error;
    }
    expect(SealError.isInstance(thrown)).toBe(true);
    expect(thrown).toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});

describe('buildBpeTokenizer with whole number tokens', () => {
  const files = buildBpeTokenizer({
    corpus: [...corpus, ...corpus],
    vocabSize: 1500,
    pattern: numberGroupPretokenizerPattern,
    wholeTokens: numberTokens(3),
  });
  const tokenizer = new HuggingFaceTokenizer(files);

  it('should list every two- and three-digit string once', () => {
    const tokens = numberTokens(3);
    expect(tokens).toHaveLength(1100);
    expect(new Set(tokens).size).toBe(1100);
    expect(tokens.slice(0, 3)).toEqual(['00', '01', '02']);
    expect(tokens.at(-1)).toBe('999');
  });

  it('should make every group of up to three digits one token, unseen numbers included', () => {
    for (const [text, groups] of [
      ['1585', ['158', '5']],
      ['007', ['007']],
      ['USR285', ['285']],
      ['value=4600.0', ['460', '0', '0']],
    ] as const) {
      const ids = tokenizer.encode(text);
      const pieces = ids.map((id) => tokenizer.decode([id]));
      // Digits only ever appear as whole groups, each one token.
      expect(pieces.filter((piece) => /\d/.test(piece))).toEqual(groups);
      expect(tokenizer.decode(ids)).toBe(text);
    }
  });

  it('should stay within the vocabulary size and still learn merges for words', () => {
    expect(tokenizer.vocabSize).toBeLessThanOrEqual(1500);
    expect(tokenizer.encode('the file').length).toBeLessThan('the file'.length);
  });

  it('should round-trip any text', () => {
    for (const text of [
      ...corpus,
      'ünïcödé ✓ 😀 1234567890 tabs\tand  spaces',
      '',
    ]) {
      expect(tokenizer.decode(tokenizer.encode(text))).toBe(text);
    }
  });

  it('should reject a vocabulary too small for the whole tokens', () => {
    expect(() =>
      buildBpeTokenizer({
        corpus,
        vocabSize: 1000,
        wholeTokens: numberTokens(3),
      }),
    ).toThrow(/whole tokens/);
  });
});

describe('HuggingFaceTokenizer chat rendering', () => {
  const tokenizer = new HuggingFaceTokenizer(
    buildBpeTokenizer({ corpus, vocabSize: 300 }),
  );
  const messages = [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'List files.' },
    { role: 'assistant', content: 'ls()' },
    { role: 'tool', content: '["a.txt"]' },
  ];

  it('should render ChatML with a generation prompt', () => {
    const { text } = tokenizer.renderChat({
      messages: messages.slice(0, 2),
      addGenerationPrompt: true,
    });
    expect(text).toBe(
      '<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nList files.<|im_end|>\n<|im_start|>assistant\n',
    );
  });

  it('should render tools in the system block', () => {
    const { text } = tokenizer.renderChat({
      messages: messages.slice(1, 2),
      tools: [{ name: 'ls', description: 'list files' }],
    });
    expect(text).toContain(
      '# Tools\n{"name": "ls", "description": "list files"}\n<|im_end|>',
    );
  });

  it('should render chats without tools exactly as the Jinja template does', () => {
    const template = new Template(chatmlTemplate);
    const chats = [
      [],
      messages,
      messages.slice(1),
      [messages[1]!, { role: 'system', content: 'late system' }, messages[2]!],
      [
        { role: 'system', content: '' },
        {
          role: 'user',
          content: 'quotes " \' {{ x }} {% if %} <|im_end|> \\n\nnewline',
        },
      ],
    ];
    for (const chat of chats) {
      for (const addGenerationPrompt of [false, true]) {
        expect(renderChatml({ messages: chat, addGenerationPrompt })).toBe(
          template.render({
            messages: chat,
            add_generation_prompt: addGenerationPrompt,
          }),
        );
      }
    }
  });

  it('should render a message delta that continues a token context ending at <|im_end|>', () => {
    const prompt = tokenizer.renderChat({
      messages: messages.slice(0, 2),
      addGenerationPrompt: true,
    });
    const generated = tokenizer.encode('ls()<|im_end|>');
    const delta = tokenizer.renderChatDelta({
      messages,
      previousMessageCount: 3,
      addGenerationPrompt: true,
    });
    expect(delta.text).toBe(
      '\n<|im_start|>tool\n["a.txt"]<|im_end|>\n<|im_start|>assistant\n',
    );
    const full = tokenizer.renderChat({ messages, addGenerationPrompt: true });
    expect([...prompt.tokenIds, ...generated, ...delta.tokenIds]).toEqual(
      full.tokenIds,
    );
  });
});
