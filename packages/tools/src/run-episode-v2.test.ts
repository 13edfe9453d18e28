import {
  taskV2Schema,
  type ChatModelV1,
  type ChatModelV1Request,
  type ChatModelV1Result,
  type ToolCall,
} from '@seal/spec';
import { verifyEpisodeV2 } from '@seal/verifier';
import { tool } from 'ai';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { fromAiSdkTools } from './from-ai-sdk-tools';
import { holdoutTurnSentence, runEpisodeV2 } from './run-episode-v2';

type Store = { items: string[] };

const environment = fromAiSdkTools(
  {
    add_item: tool({
      description: 'Adds an item.',
      inputSchema: z.object({ item: z.string() }),
      execute: ({ item }, { context }) => {
        (context as Store).items.push(item);
        return `added ${item}`;
      },
    }),
    clear_items: tool({
      description: 'Removes every item.',
      inputSchema: z.object({}),
      execute: (_input, { context }) => {
        (context as Store).items.length = 0;
        return 'cleared';
      },
    }),
  },
  { createState: (): Store => ({ items: [] }) },
);

const task = taskV2Schema.parse({
  id: 'shopping',
  turns: [
    [{ role: 'user', content: 'Add milk.' }],
    [{ role: 'user', content: 'Clear the list.' }],
    [],
  ],
  holdouts: [{ turn: 2, toolNames: ['clear_items'] }],
  groundTruth: [
    [{ name: 'add_item', arguments: { item: 'milk' } }],
    [],
    [{ name: 'clear_items', arguments: {} }],
  ],
});

/** A scripted ChatModelV1: answers in order and records every request. */
function scriptedModel(answers: ChatModelV1Result['message'][]): ChatModelV1 & {
  requests: ChatModelV1Request[];
} {
  const requests: ChatModelV1Request[] = [];
  return {
    specificationVersion: 'v1',
    modelId: 'scripted',
    requests,
    complete(request) {
      requests.push({ ...request, messages: [...request.messages] });
      const message = answers.shift();
      if (message === undefined) throw new Error('no scripted answer left');
      return Promise.resolve({
        message,
        finishReason:
          (message.toolCalls?.length ?? 0) > 0 ? 'tool_calls' : 'stop',
        usage: { promptTokens: 0, completionTokens: 0 },
      });
    },
  };
}

const calls = (...list: Omit<ToolCall, 'callText'>[]) =>
  list.map((call) => ({ ...call, callText: '' }));

describe('runEpisodeV2', () => {
  it('should run turns, hide withheld tools, pass JSON Schemas through, and verify', async () => {
    const model = scriptedModel([
      {
        role: 'assistant',
        content: '',
        toolCalls: calls({
          id: 'a',
          name: 'add_item',
          arguments: { item: 'milk' },
        }),
      },
      { role: 'assistant', content: 'Added milk.' },
      { role: 'assistant', content: 'I cannot clear the list with my tools.' },
      {
        role: 'assistant',
        content: '',
        toolCalls: calls({ id: 'b', name: 'clear_items', arguments: {} }),
      },
      { role: 'assistant', content: 'Cleared.' },
    ]);
    const { trace, finished } = await runEpisodeV2({
      environment,
      task,
      model,
      finish: ({ trace: episode, session }) =>
        verifyEpisodeV2({ environment, task, trace: episode, session }),
    });
    const offered = model.requests.map((request) =>
      (request.tools ?? []).map((definition) => definition.function.name),
    );
    expect(offered[0]).toEqual(['add_item']);
    expect(offered[2]).toEqual(['add_item']);
    expect(offered[3]).toEqual(['add_item', 'clear_items']);
    expect(model.requests[0]!.tools![0]!.function.parameters).toMatchObject({
      type: 'object',
      properties: { item: { type: 'string' } },
    });
    expect(model.requests[3]!.messages.at(-1)).toEqual({
      role: 'user',
      content: holdoutTurnSentence,
    });
    expect(trace.turns.map((turn) => turn.snapshot)).toEqual([
      { items: ['milk'] },
      { items: ['milk'] },
      { items: [] },
    ]);
    expect(finished?.turns.map((turn) => turn.tag)).toEqual([
      'pass',
      'correct_abstention',
      'pass',
    ]);
  });

  it('should refuse a withheld tool and record malformed arguments as invalid', async () => {
    const model = scriptedModel([
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          {
            id: 'x',
            name: 'add_item',
            arguments: {},
            argumentsText: '{"item": ',
            callText: '',
          },
        ],
      },
      { role: 'assistant', content: 'Sorry.' },
      {
        role: 'assistant',
        content: '',
        toolCalls: calls({ id: 'y', name: 'clear_items', arguments: {} }),
      },
      { role: 'assistant', content: 'Done.' },
      { role: 'assistant', content: 'Nothing else to do.' },
    ]);
    const { trace, finished } = await runEpisodeV2({
      environment,
      task,
      model,
      finish: ({ trace: episode, session }) =>
        verifyEpisodeV2({ environment, task, trace: episode, session }),
    });
    expect(trace.turns[0]!.steps[0]).toMatchObject({ type: 'invalid' });
    expect(trace.turns[1]!.steps[0]).toMatchObject({
      type: 'call',
      outcome: { kind: 'unknown_tool' },
    });
    expect(finished?.turns.map((turn) => turn.tag)).toEqual([
      'invalid_call',
      'spurious_tool_call',
      'empty_turn_model_response',
    ]);
    expect(finished?.rewards.format).toBe(0);
  });

  it('should cut a turn at the step limit', async () => {
    const looping = Array.from({ length: 3 }, () => ({
      role: 'assistant' as const,
      content: '',
      toolCalls: calls({ name: 'add_item', arguments: { item: 'milk' } }),
    }));
    const model = scriptedModel([
      ...looping,
      { role: 'assistant', content: 'ok' },
      { role: 'assistant', content: 'ok' },
    ]);
    const { trace } = await runEpisodeV2({
      environment,
      task,
      model,
      maxStepsPerTurn: 3,
    });
    expect(trace.turns[0]).toMatchObject({ endReason: 'step-limit' });
    expect(trace.turns[0]!.steps).toHaveLength(3);
  });
});
