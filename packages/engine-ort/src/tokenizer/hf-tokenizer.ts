import { Template } from '@huggingface/jinja';
import { Tokenizer } from '@huggingface/tokenizers';
import {
  SealError,
  parseJsonWithSchema,
  type PolicyV1RenderChatDeltaOptions,
  type PolicyV1RenderChatOptions,
  type PolicyV1RenderedChat,
  type PolicyV1Tokenizer,
} from '@seal/spec';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { chatmlTemplate, renderChatml } from './chatml-template';

const specialTokenSchema = z
  .union([z.string(), z.looseObject({ content: z.string() })])
  .nullish();

/** The fields of `tokenizer_config.json` we read (others are kept and ignored). */
export const tokenizerConfigSchema = z.looseObject({
  chat_template: z
    .union([
      z.string(),
      z.array(z.looseObject({ name: z.string(), template: z.string() })),
    ])
    .nullish(),
  eos_token: specialTokenSchema,
  bos_token: specialTokenSchema,
  pad_token: specialTokenSchema,
});

/** A parsed `tokenizer_config.json`. */
export type TokenizerConfig = z.output<typeof tokenizerConfigSchema>;

const tokenizerJsonSchema = z.looseObject({
  model: z.looseObject({ type: z.string().nullish(), vocab: z.unknown() }),
  added_tokens: z
    .array(
      z.looseObject({
        id: z.number().int(),
        content: z.string(),
        special: z.boolean().nullish(),
      }),
    )
    .nullish(),
});

/** The two files of a Hugging Face tokenizer, as JSON values. */
export type TokenizerFiles = {
  /** `tokenizer.json`. */
  tokenizerJson: Record<string, unknown>;
  /** `tokenizer_config.json` (with `chat_template`). */
  tokenizerConfig: Record<string, unknown>;
};

function tokenContent(
  token: z.output<typeof specialTokenSchema>,
): string | undefined {
  if (token === null || token === undefined) return undefined;
  return typeof token === 'string' ? token : token.content;
}

/**
 * A Hugging Face tokenizer (`tokenizer.json`, through the pure-JS
 * `@huggingface/tokenizers`) with its chat template (`tokenizer_config.json`,
 * rendered by `@huggingface/jinja`). Implements {@link PolicyV1Tokenizer}.
 */
export class HuggingFaceTokenizer implements PolicyV1Tokenizer {
  /** The files it was built from (saved with checkpoints). */
  readonly files: TokenizerFiles;
  readonly vocabSize: number;
  readonly eosTokenId: number | undefined;
  readonly stopTokenIds: readonly number[];
  /**
   * Special tokens that are not stop tokens (ChatML's `<|im_start|>`): they
   * open a new message, so a reply never contains one. Generation masks them.
   */
  readonly controlTokenIds: readonly number[];
  private readonly tokenizer: Tokenizer;
  private readonly template: Template | undefined;
  private readonly templateContext: Record<string, unknown>;
  /**
   * The template is the project's own ChatML ({@link chatmlTemplate}): chats
   * without tools are rendered by {@link renderChatml} instead of the Jinja
   * interpreter (the same text, tested; rollouts render every turn).
   */
  private readonly nativeChatml: boolean;

  constructor(files: TokenizerFiles) {
    this.files = files;
    const parsed = tokenizerJsonSchema.safeParse(files.tokenizerJson);
    if (!parsed.success) {
      throw new SealError({
        code: 'INVALID_DATA',
        message: 'tokenizer.json: not a tokenizer',
        cause: parsed.error,
      });
    }
    const config = tokenizerConfigSchema.parse(files.tokenizerConfig);
    try {
      this.tokenizer = new Tokenizer(
        files.tokenizerJson,
        files.tokenizerConfig,
      );
    } catch (cause) {
      throw new SealError({
        code: 'INVALID_DATA',
        message: `tokenizer.json: ${String(cause)}`,
        cause,
      });
    }
    let maxId = -1;
    for (const id of this.tokenizer.get_vocab(true).values())
      maxId = Math.max(maxId, id);
    this.vocabSize = maxId + 1;
    const eos = tokenContent(config.eos_token);
    this.eosTokenId =
      eos === undefined ? undefined : this.tokenizer.token_to_id(eos);
    const stops = new Set<number>();
    for (const candidate of ['<|im_end|>', eos, '<|endoftext|>']) {
      if (candidate === undefined) continue;
      const id = this.tokenizer.token_to_id(candidate);
      if (id !== undefined) stops.add(id);
    }
    this.stopTokenIds = [...stops];
    this.controlTokenIds = (parsed.data.added_tokens ?? [])
      .filter((token) => token.special === true && !stops.has(token.id))
      .map((token) => token.id)
      .sort((a, b) => a - b);
    const chatTemplate = Array.isArray(config.chat_template)
      ? config.chat_template.find((entry) => entry.name === 'default')?.template
      : config.chat_template;
    this.template =
      chatTemplate === undefined || chatTemplate === null
        ? undefined
        : new Template(chatTemplate);
    this.nativeChatml = chatTemplate === chatmlTemplate;
    this.templateContext = {
      bos_token: tokenContent(config.bos_token) ?? '',
      eos_token: eos ?? '',
      pad_token: tokenContent(config.pad_token) ?? '',
    };
  }

  encode(text: string): number[] {
    return this.tokenizer.encode(text, { add_special_tokens: false }).ids;
  }

  decode(
    tokenIds: readonly number[],
    options: { skipSpecialTokens?: boolean } = {},
  ): string {
    if (tokenIds.length === 0) return '';
    return this.tokenizer.decode([...tokenIds], {
      skip_special_tokens: options.skipSpecialTokens ?? false,
    });
  }

  /** The id of a token string, if in the vocabulary. */
  tokenToId(token: string): number | undefined {
    return this.tokenizer.token_to_id(token);
  }

  private renderText({
    messages,
    tools,
    addGenerationPrompt,
  }: PolicyV1RenderChatOptions): string {
    if (this.template === undefined) {
      throw new SealError({
        code: 'INVALID_STATE',
        message:
          'this tokenizer has no chat template (tokenizer_config.json has no chat_template)',
      });
    }
    if (this.nativeChatml && (tools === undefined || tools.length === 0)) {
      return renderChatml({
        messages,
        addGenerationPrompt: addGenerationPrompt ?? false,
      });
    }
    try {
      return this.template.render({
        ...this.templateContext,
        messages,
        ...(tools === undefined || tools.length === 0 ? {} : { tools }),
        add_generation_prompt: addGenerationPrompt ?? false,
      });
    } catch (cause) {
      throw new SealError({
        code: 'INVALID_ARGUMENT',
        message: `chat template failed: ${String(cause)}`,
        cause,
      });
    }
  }

  renderChat(options: PolicyV1RenderChatOptions): PolicyV1RenderedChat {
    const text = this.renderText(options);
    return { text, tokenIds: this.encode(text) };
  }

  renderChatDelta(
    options: PolicyV1RenderChatDeltaOptions,
  ): PolicyV1RenderedChat {
    const { previousMessageCount, messages } = options;
    if (
      !Number.isInteger(previousMessageCount) ||
      previousMessageCount < 0 ||
      previousMessageCount > messages.length
    ) {
      throw new SealError({
        code: 'INVALID_ARGUMENT',
        message: `previousMessageCount ${previousMessageCount} is outside [0, ${messages.length}]`,
      });
    }
    const full = this.renderText(options);
    if (previousMessageCount === 0)
      return { text: full, tokenIds: this.encode(full) };
    const previous = this.renderText({
      ...options,
      messages: messages.slice(0, previousMessageCount),
      addGenerationPrompt: false,
    });
    if (!full.startsWith(previous)) {
      throw new SealError({
        code: 'INVALID_STATE',
        message:
          'the chat template does not render the previous messages as a prefix of the full conversation',
      });
    }
    // Align to the caller's context, which ends with the stop token of the last turn.
    let cut = previous.length;
    for (const id of this.stopTokenIds) {
      const token = this.tokenizer.id_to_token(id);
      if (token === undefined) continue;
      const at = previous.lastIndexOf(token);
      if (at >= 0 && previous.slice(at + token.length).trim() === '')
        cut = Math.min(cut, at + token.length);
    }
    const text = full.slice(cut);
    return { text, tokenIds: this.encode(text) };
  }
}

/**
 * Loads `tokenizer.json` and `tokenizer_config.json` from a directory (a
 * `chat_template.jinja` file, as newer checkpoints ship, overrides the config's
 * template). `FILE_NOT_FOUND` when `tokenizer.json` is missing.
 */
export async function loadTokenizer(
  directory: string,
): Promise<HuggingFaceTokenizer> {
  return new HuggingFaceTokenizer(await readTokenizerFiles(directory));
}

/** Reads the tokenizer files of a directory as JSON values. */
export async function readTokenizerFiles(
  directory: string,
): Promise<TokenizerFiles> {
  const tokenizerPath = join(directory, 'tokenizer.json');
  if (!existsSync(tokenizerPath)) {
    throw new SealError({
      code: 'FILE_NOT_FOUND',
      message: `no tokenizer.json in ${directory}`,
      details: { directory },
    });
  }
  const anyObject = z.record(z.string(), z.unknown());
  const tokenizerJson = parseJsonWithSchema({
    text: await readFile(tokenizerPath, 'utf8'),
    schema: anyObject,
    source: tokenizerPath,
  });
  const configPath = join(directory, 'tokenizer_config.json');
  const tokenizerConfig = existsSync(configPath)
    ? parseJsonWithSchema({
        text: await readFile(configPath, 'utf8'),
        schema: anyObject,
        source: configPath,
      })
    : {};
  const templatePath = join(directory, 'chat_template.jinja');
  if (existsSync(templatePath))
    tokenizerConfig.chat_template = await readFile(templatePath, 'utf8');
  return { tokenizerJson, tokenizerConfig };
}
