import { Tokenizer } from '@huggingface/tokenizers';
import { SealError } from '@seal/spec';
import { chatmlSpecialTokens, chatmlTemplate } from './chatml-template';
import type { TokenizerFiles } from './hf-tokenizer';

/**
 * The pre-tokenizer split of our tokenizers: contractions, letter runs with
 * an optional leading space, single digits (numbers are copied digit by
 * digit), punctuation runs, newlines and other whitespace. It is plain
 * JavaScript regex syntax, so every consumer of the `tokenizer.json` splits
 * the same way.
 */
export const pretokenizerPattern =
  "'(?:[sdmt]|ll|ve|re)| ?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

/**
 * A pre-tokenizer split that keeps words apart from the space before them:
 * the same word is the same token whether it follows a space, a quote or a
 * bracket. Copying a value from a request into a call is then an exact token
 * copy, which small models learn far faster.
 */
export const copyFriendlyPretokenizerPattern =
  '\\p{L}+|\\p{N}|[^\\s\\p{L}\\p{N}]|\\s+';

/**
 * The copy-friendly split with numbers in groups of up to three digits
 * (`1585` → `158`, `5`). With {@link numberTokens} as whole tokens, every
 * group is one token: a model copies an id or amount as one or two distinct
 * tokens instead of a run of easily confused single digits.
 */
export const numberGroupPretokenizerPattern =
  '\\p{L}+|\\p{N}{1,3}|[^\\s\\p{L}\\p{N}]|\\s+';

/** Every string of two to `maxDigits` ASCII digits (`00`…`999` for 3): whole tokens for {@link numberGroupPretokenizerPattern}. */
export function numberTokens(maxDigits = 3): string[] {
  const tokens: string[] = [];
  for (let digits = 2; digits <= maxDigits; digits++) {
    for (let n = 0; n < 10 ** digits; n++)
      tokens.push(String(n).padStart(digits, '0'));
  }
  return tokens;
}

/** Options of {@link buildBpeTokenizer}. */
export type BuildBpeTokenizerOptions = {
  /** Training texts. Special-token strings inside them are skipped. */
  corpus: readonly string[];
  /** Target size: 256 byte tokens + merges + special tokens. */
  vocabSize: number;
  /** Special tokens appended after the merges. Default: ChatML's three. */
  specialTokens?: readonly string[];
  /** The chat template stored in `tokenizer_config.json`. Default: ChatML. */
  chatTemplate?: string;
  /** The end-of-sequence token (must be one of the special tokens). Default `<|im_end|>` when present. */
  eosToken?: string;
  /** Merges that occur fewer times than this are not learned. Default 2. */
  minFrequency?: number;
  /** The pre-tokenizer regex (JavaScript syntax). Default {@link pretokenizerPattern}. */
  pattern?: string;
  /**
   * Strings that get a token of their own whatever the corpus (e.g.
   * {@link numberTokens}); they count towards `vocabSize`. A pre-token equal
   * to one of them maps to it directly (`ignore_merges`, as in Llama 3's
   * tokenizer), so they need no merges.
   */
  wholeTokens?: readonly string[];
};

/**
 * Trains a byte-level BPE tokenizer (the Qwen2/GPT-2 family's scheme) on a
 * corpus and returns it as Hugging Face `tokenizer.json` and
 * `tokenizer_config.json` objects, which {@link HuggingFaceTokenizer} (and
 * Python's `tokenizers`) load like any downloaded tokenizer. Deterministic:
 * ties between equally frequent pairs go to the lexicographically smallest.
 */
export function buildBpeTokenizer(
  options: BuildBpeTokenizerOptions,
): TokenizerFiles {
  const specialTokens = [...(options.specialTokens ?? chatmlSpecialTokens)];
  const mergeBudget = options.vocabSize - 256 - specialTokens.length;
  const pattern = options.pattern ?? pretokenizerPattern;
  if (mergeBudget < 0) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `vocabSize ${options.vocabSize} is below 256 byte tokens + ${specialTokens.length} special tokens`,
    });
  }
  const byteChars = bytesToUnicode();
  const alphabet = [...byteChars.values()];
  const vocab = new Map<string, number>(alphabet.map((char, id) => [char, id]));
  const utf8 = new TextEncoder();
  const encodeBytes = (text: string) =>
    Array.from(utf8.encode(text), (byte) => byteChars.get(byte)!).join('');
  const whole = new Set((options.wholeTokens ?? []).map(encodeBytes));
  for (const token of whole)
    if (!vocab.has(token)) vocab.set(token, vocab.size);
  const mergeLimit = options.vocabSize - vocab.size - specialTokens.length;
  if (mergeLimit < 0) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `vocabSize ${options.vocabSize} is below 256 byte tokens + ${vocab.size - 256} whole tokens + ${specialTokens.length} special tokens`,
    });
  }

  // Pre-tokenize with the very pre-tokenizer the final tokenizer uses.
  const splitter = new Tokenizer(
    tokenizerJson({
      vocab,
      merges: [],
      specialTokens: [],
      startId: vocab.size,
      pattern,
    }),
    {},
  );
  const wordCounts = new Map<string, number>();
  const specialPattern = new RegExp(
    specialTokens.map(escapeRegExp).join('|') || '(?!)',
    'g',
  );
  for (const text of options.corpus) {
    for (const piece of text.split(specialPattern)) {
      if (piece === '') continue;
      for (const word of splitter.pre_tokenizer!.pre_tokenize(piece)) {
        wordCounts.set(word, (wordCounts.get(word) ?? 0) + 1);
      }
    }
  }
  // Whole tokens bypass merges (ignore_merges): they teach the merges nothing.
  const words = [...wordCounts]
    .filter(([word]) => !whole.has(word))
    .map(([word, count]) => ({ symbols: [...word], count }));

  const merges: Array<[string, string]> = [];
  const minFrequency = options.minFrequency ?? 2;
  while (merges.length < mergeLimit) {
    const pairs = new Map<string, number>();
    for (const { symbols, count } of words) {
      for (let i = 0; i + 1 < symbols.length; i++) {
        const key = `${symbols[i]}\u0000${symbols[i + 1]}`;
        pairs.set(key, (pairs.get(key) ?? 0) + count);
      }
    }
    let best: string | undefined;
    let bestCount = 0;
    for (const [key, count] of pairs) {
      if (
        count > bestCount ||
        (count === bestCount && best !== undefined && key < best)
      ) {
        best = key;
        bestCount = count;
      }
    }
    if (best === undefined || bestCount < minFrequency) break;
    const [left, right] = best.split('\u0000') as [string, string];
    const merged = left + right;
    merges.push([left, right]);
    if (!vocab.has(merged)) vocab.set(merged, vocab.size);
    for (const word of words) {
      const { symbols } = word;
      const out: string[] = [];
      for (let i = 0; i < symbols.length; i++) {
        if (
          i + 1 < symbols.length &&
          symbols[i] === left &&
          symbols[i + 1] === right
        ) {
          out.push(merged);
          i++;
        } else out.push(symbols[i]!);
      }
      word.symbols = out;
    }
  }
  const eosToken =
    options.eosToken ??
    (specialTokens.includes('<|im_end|>') ? '<|im_end|>' : specialTokens[0]);
  return {
    tokenizerJson: tokenizerJson({
      vocab,
      merges,
      specialTokens,
      startId: vocab.size,
      pattern,
      ignoreMerges: whole.size > 0,
    }),
    tokenizerConfig: {
      tokenizer_class: 'PreTrainedTokenizerFast',
      model_max_length: 1024,
      chat_template: options.chatTemplate ?? chatmlTemplate,
      ...(eosToken === undefined ? {} : { eos_token: eosToken }),
      pad_token: specialTokens.includes('<|endoftext|>')
        ? '<|endoftext|>'
        : (eosToken ?? null),
      bos_token: null,
      clean_up_tokenization_spaces: false,
      added_tokens_decoder: Object.fromEntries(
        specialTokens.map((content, i) => [
          String(vocab.size + i),
          {
            content,
            lstrip: false,
            rstrip: false,
            normalized: false,
            single_word: false,
            special: true,
          },
        ]),
      ),
    },
  };
}

function tokenizerJson({
  vocab,
  merges,
  specialTokens,
  startId,
  pattern,
  ignoreMerges = false,
}: {
  vocab: Map<string, number>;
  merges: Array<[string, string]>;
  specialTokens: readonly string[];
  startId: number;
  pattern: string;
  ignoreMerges?: boolean;
}): Record<string, unknown> {
  const byteLevel = {
    type: 'ByteLevel',
    add_prefix_space: false,
    trim_offsets: false,
    use_regex: false,
  };
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: specialTokens.map((content, i) => ({
      id: startId + i,
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: null,
    pre_tokenizer: {
      type: 'Sequence',
      pretokenizers: [
        {
          type: 'Split',
          pattern: { Regex: pattern },
          behavior: 'Isolated',
          invert: false,
        },
        byteLevel,
      ],
    },
    post_processor: byteLevel,
    decoder: byteLevel,
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: ignoreMerges,
      vocab: Object.fromEntries(vocab),
      merges,
    },
  };
}

/** GPT-2's reversible byte → printable-character map used by byte-level BPE. */
function bytesToUnicode(): Map<number, string> {
  const printable: number[] = [];
  for (let b = 33; b <= 126; b++) printable.push(b);
  for (let b = 161; b <= 172; b++) printable.push(b);
  for (let b = 174; b <= 255; b++) printable.push(b);
  const map = new Map<number, string>();
  let extra = 0;
  for (let b = 0; b < 256; b++) {
    if (printable.includes(b)) map.set(b, String.fromCharCode(b));
    else map.set(b, String.fromCharCode(256 + extra++));
  }
  return map;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
