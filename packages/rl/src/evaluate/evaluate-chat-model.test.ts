import { createBfclBackend } from '@seal/bfcl';
import { createGeneratorRuntime, generateTasks } from '@seal/bfcl-tasks';
import { toWireToolCall } from '@seal/env';
import { parseCallString } from '@seal/python';
import {
  SealError,
  emptyOverlay,
  type ChatMessage,
  type ChatModelV1,
  type ChatModelV1Request,
  type ChatModelV1Result,
  type InterfaceOverlay,
  type Task,
} from '@seal/spec';
import { createBfclVerifier } from '@seal/verifier';
import { describe, expect, it } from 'vitest';
import {
  evaluateChatModel,
  type ChatEvaluatedEpisode,
} from './evaluate-chat-model';

const runtime = createGeneratorRuntime();
const backend = createBfclBackend({ runtime });
const verifier = createBfclVerifier({ runtime });
const tasks = generateTasks({ seed: 3, split: 'test-id', count: 8 });

function reply(message: ChatMessage): ChatModelV1Result {
  return {
    message,
    finishReason: (message.toolCalls?.length ?? 0) > 0 ? 'tool_calls' : 'stop',
    usage: { promptTokens: 10, completionTokens: 5 },
  };
}

/**
 * A chat model that answers each turn with its ground-truth calls, then
 * "Done."; tasks whose index is in `lazy` get "Done." at once (so they fail).
 */
function scriptedModel({
  lazy = new Set<string>(),
  onRequest,
}: {
  lazy?: ReadonlySet<string>;
  onRequest?: (request: ChatModelV1Request) => void | Promise<void>;
} = {}): ChatModelV1 & { requests: ChatModelV1Request[] } {
  const requests: ChatModelV1Request[] = [];
  return {
    specificationVersion: 'v1',
    modelId: 'scripted',
    requests,
    async complete(request) {
      requests.push(request);
      await onRequest?.(request);
      const firstUser = request.messages.find(
        (m) => m.role === 'user',
      )!.content;
      const task = tasks.find((t) => t.turns[0]![0]!.content === firstUser)!;
      const assistants = request.messages.filter((m) => m.role === 'assistant');
      const turn = assistants.filter(
        (m) => (m.toolCalls?.length ?? 0) === 0 && !m.content.startsWith('['),
      ).length;
      const last = request.messages[request.messages.length - 1]!;
      const afterResults =
        last.role === 'tool' || last.content.startsWith("[{'role': 'tool'");
      const calls = task.groundTruth[turn] ?? [];
      if (lazy.has(task.id) || afterResults || calls.length === 0) {
        return reply({ role: 'assistant', content: 'Done.' });
      }
      if (request.tools !== undefined) {
        return reply({
          role: 'assistant',
          content: '',
          toolCalls: calls.map((text, index) => {
            const parsed = parseCallString(text);
            if (!parsed.success) throw new Error(`bad ground truth ${text}`);
            return {
              ...toWireToolCall({
                call: parsed.value,
                id: `call_${turn}_${index}`,
              }),
              callText: '',
            };
          }),
        });
      }
      return reply({ role: 'assistant', content: `[${calls.join(', ')}]` });
    },
  };
}

describe('evaluateChatModel', () => {
  it('should verify every task with BFCL verdicts, in task order, with per-turn tags', async () => {
    const seen: string[] = [];
    const lazy = new Set([tasks[1]!.id, tasks[4]!.id]);
    const episodes = await evaluateChatModel({
      model: scriptedModel({ lazy }),
      tasks,
      backend,
      verifier,
      protocol: 'bfcl-python',
      promptMode: 'compact',
      concurrency: 3,
      onEpisode: (episode) => {
        seen.push(episode.task.id);
      },
    });
    expect(episodes.map((e) => e.task.id)).toEqual(tasks.map((t) => t.id));
    expect([...seen].sort()).toEqual(tasks.map((t) => t.id).sort());
    for (const episode of episodes) {
      const expected =
        !lazy.has(episode.task.id) ||
        episode.task.groundTruth.every((turn) => turn.length === 0);
      expect(episode.result.official.valid).toBe(expected);
      expect(episode.record.mode).toBe('eval');
      expect(episode.diagnosis.turns.map((t) => t.tag)).toEqual(
        episode.result.turns.map((t) => t.tag),
      );
    }
    expect(
      episodes.filter((e) => e.result.official.valid).length,
    ).toBeGreaterThanOrEqual(6);
  });

  it('should send tools and read tool_calls in function-calling mode', async () => {
    const model = scriptedModel();
    const episodes = await evaluateChatModel({
      model,
      tasks: tasks.slice(0, 4),
      backend,
      verifier,
      mode: 'fc',
    });
    expect(episodes.every((e) => e.result.official.valid)).toBe(true);
    expect(episodes.every((e) => e.record.protocol === 'openai-tools')).toBe(
      true,
    );
    expect(model.requests.every((r) => (r.tools?.length ?? 0) > 0)).toBe(true);
    expect(
      model.requests.some((r) => r.messages.some((m) => m.role === 'tool')),
    ).toBe(true);
  });

  it('should keep at most `concurrency` episodes in flight and derive stable seeds', async () => {
    let inFlight = 0;
    let peak = 0;
    const model = scriptedModel({
      onRequest: async () => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 2));
        inFlight--;
      },
    });
    await evaluateChatModel({
      model,
      tasks,
      backend,
      verifier,
      concurrency: 2,
      seed: 5,
    });
    expect(peak).toBe(2);
    const again = scriptedModel();
    await evaluateChatModel({
      model: again,
      tasks: [...tasks].reverse(),
      backend,
      verifier,
      concurrency: 1,
      seed: 5,
    });
    const seeds = (m: typeof model) => new Set(m.requests.map((r) => r.seed));
    expect(seeds(again)).toEqual(seeds(model));
  });

  it('should refuse a non-empty overlay before any model call', async () => {
    const model = scriptedModel();
    const overlay: InterfaceOverlay = {
      ...emptyOverlay,
      systemNotes: [{ source: 'schema-note', text: 'a training cue' }],
    };
    await expect(
      evaluateChatModel({ model, tasks, backend, verifier, overlay }),
    ).rejects.toMatchObject({
      code: 'EVAL_GATE_VIOLATION',
    });
    expect(model.requests).toHaveLength(0);
  });

  it('should end an episode whose prompt no longer fits with context-limit', async () => {
    const model: ChatModelV1 = {
      specificationVersion: 'v1',
      modelId: 'tiny-context',
      complete: () =>
        Promise.reject(
          new SealError({
            code: 'CONTEXT_LENGTH_EXCEEDED',
            message: "the prompt exceeds the model's context",
            details: { promptTokens: 900, maxTokens: 200, contextLength: 1024 },
          }),
        ),
    };
    const [episode] = await evaluateChatModel({
      model,
      tasks: tasks.slice(0, 1),
      backend,
      verifier,
    });
    expect(episode!.record.endReason).toBe('context-limit');
    expect(episode!.result.official.valid).toBe(false);
  });

  it('should stop taking tasks after an error, deliver finished ones, then throw it', async () => {
    const delivered: ChatEvaluatedEpisode[] = [];
    let calls = 0;
    const inner = scriptedModel();
    const model: ChatModelV1 = {
      specificationVersion: 'v1',
      modelId: 'flaky',
      complete: (request) => {
        calls++;
        if (calls === 6) {
          return Promise.reject(
            new SealError({
              code: 'NETWORK_ERROR',
              message: 'gone',
              isRetryable: true,
            }),
          );
        }
        return inner.complete(request);
      },
    };
    await expect(
      evaluateChatModel({
        model,
        tasks,
        backend,
        verifier,
        concurrency: 1,
        onEpisode: (e) => void delivered.push(e),
      }),
    ).rejects.toMatchObject({ code: 'NETWORK_ERROR' });
    expect(delivered.length).toBeGreaterThan(0);
    expect(delivered.length).toBeLessThan(tasks.length);
    expect(calls).toBe(6);
  });

  it('should stop when aborted', async () => {
    const controller = new AbortController();
    const delivered: Task[] = [];
    const model = scriptedModel();
    await expect(
      evaluateChatModel({
        model,
        tasks,
        backend,
        verifier,
        concurrency: 1,
        signal: controller.signal,
        onEpisode: (e) => {
          delivered.push(e.task);
          if (delivered.length === 2) controller.abort();
        },
      }),
    ).rejects.toMatchObject({
      code: 'INVALID_STATE',
      details: { reason: 'aborted' },
    });
    expect(delivered).toHaveLength(2);
  });
});
