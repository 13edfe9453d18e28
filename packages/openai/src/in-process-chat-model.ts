import { SealError, parseJsonText, type ChatModelV1 } from '@seal/spec';
import {
  fromOpenAiRequest,
  fromOpenAiResponse,
  openAiChatRequestSchema,
  openAiChatResponseSchema,
  toOpenAiRequest,
  toOpenAiResponse,
} from './openai-wire';
import type { ServedChatModel } from './openai-server';

function roundTrip(value: unknown): unknown {
  return parseJsonText({ text: JSON.stringify(value) });
}

/**
 * A served model called in process, with every request and reply passed
 * through the OpenAI wire format exactly as `createOpenAiChatModel` and
 * `startOpenAiServer` pass them (JSON text, the same schemas and
 * conversions), without the HTTP hop. So `seal eval --model DIR` sees what
 * `seal eval --endpoint` sees behind `seal serve-policy`: the same messages,
 * tool calls and arguments, hence the same episodes.
 */
export function createInProcessChatModel({
  model,
  modelName = model.modelId,
}: {
  model: ServedChatModel;
  modelName?: string;
}): ChatModelV1 {
  return {
    specificationVersion: 'v1',
    modelId: modelName,
    async complete(request) {
      const body = openAiChatRequestSchema.safeParse(
        roundTrip(toOpenAiRequest({ request, model: modelName })),
      );
      if (!body.success) {
        throw new SealError({
          code: 'INTERNAL',
          message: `a request failed the wire schema: ${body.error.message}`,
          cause: body.error,
        });
      }
      const { request: chat, toolChoice } = fromOpenAiRequest(body.data);
      const result = await model.complete(chat, { toolChoice });
      const response = openAiChatResponseSchema.parse(
        roundTrip(
          toOpenAiResponse({
            result,
            id: 'chatcmpl-in-process',
            model: modelName,
            created: 0,
          }),
        ),
      );
      return fromOpenAiResponse(response);
    },
  };
}
