import {
  emptyOverlay,
  interfaceOverlaySchema,
  type Task,
  type ToolDoc,
} from '@seal/spec';
import { MockToolBackendV1 } from '@seal/spec/test';
import { describe, expect, it } from 'vitest';
import { emptyOverlayHash } from '../overlay/apply-overlay';
import { createProtocol } from '../protocols';
import { createEpisode } from './create-episode';

function doc(name: string, required: string[] = []): ToolDoc {
  return {
    name,
    description: `Does ${name}.`,
    parameters: {
      type: 'dict',
      properties: Object.fromEntries(
        required.map((p) => [p, { type: 'string', description: `The ${p}.` }]),
      ),
      required,
    },
  };
}

function makeTask(overrides: Partial<Task> = {}): Task {
  return {
    schemaVersion: 1,
    id: 'multi_turn_miss_func_7',
    category: 'multi_turn_miss_func',
    source: 'generated',
    turns: [
      [{ role: 'user', content: 'Go to docs.' }],
      [{ role: 'user', content: 'Now sort report.txt.' }],
      [],
    ],
    tools: [doc('cd', ['folder']), doc('sort', ['file_name'])],
    holdouts: [{ turn: 2, toolNames: ['sort'] }],
    backend: {
      kind: 'bfcl',
      involvedClasses: ['GorillaFileSystem'],
      initialConfig: '{}',
      longContext: false,
    },
    groundTruth: [["cd(folder='docs')"], [], ["sort(file_name='report.txt')"]],
    ...overrides,
  };
}

const call = (name: string, args: Record<string, unknown>) =>
  `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;

describe('createEpisode', () => {
  describe('turns and holdouts', () => {
    it('should run a task to completion, revealing the held-out tool with BFCL’s message', () => {
      const backend = new MockToolBackendV1({
        execute: { result: 'None', status: 'ok' },
      });
      const episode = createEpisode({ task: makeTask(), backend });
      const start = episode.reset();
      expect(start.map((m) => m.role)).toEqual(['system', 'user']);
      expect(start[0]!.content).toContain('"name":"cd"');
      expect(start[0]!.content).not.toContain('"name":"sort"');
      expect(episode.tools().map((t) => t.name)).toEqual(['cd']);

      const first = episode.step(call('cd', { folder: 'docs' }));
      expect(first.observation[0]!.content).toBe(
        '<tool_response>\nNone\n</tool_response>\n',
      );
      expect(first.turn).toBe(0);

      const reply = episode.step('Done, I am in docs.');
      expect(reply.turn).toBe(1);
      expect(reply.observation).toEqual([
        { role: 'user', content: 'Now sort report.txt.' },
      ]);

      // The held-out tool is refused before its reveal, and nothing runs.
      const early = episode.step(call('sort', { file_name: 'report.txt' }));
      expect(
        early.events.find((e) => e.type === 'call-rejected'),
      ).toMatchObject({ reason: 'unavailable-tool', name: 'sort' });
      expect(backend.calls).toHaveLength(1);

      const abstain = episode.step(
        'I cannot sort files with the tools I have.',
      );
      expect(abstain.turn).toBe(2);
      expect(abstain.observation[0]!.content).toMatch(
        /"name":"sort".*\nI have updated some more functions you can choose from\. What about now\?$/s,
      );
      expect(abstain.events.find((e) => e.type === 'turn-start')).toMatchObject(
        { turn: 2, revealedTools: ['sort'] },
      );
      expect(episode.tools().map((t) => t.name)).toEqual(['cd', 'sort']);

      episode.step(call('sort', { file_name: 'report.txt' }));
      const end = episode.step('Sorted.');
      expect(end.done).toBe(true);
      const record = episode.record();
      expect(record.endReason).toBe('completed');
      expect(record.turns.map((t) => t.steps.flatMap((s) => s.calls))).toEqual([
        ["cd(folder='docs')"],
        [],
        ["sort(file_name='report.txt')"],
      ]);
      expect(record.turns[1]!.steps[0]!.rejectedCalls).toBe(1);
      expect(record.overlayHash).toBe(emptyOverlayHash);
      expect(record.modelCalls).toBe(6);
    });
  });

  describe('rejected calls and parse errors', () => {
    it('should refuse unknown tools and malformed output without advancing the turn', () => {
      const backend = new MockToolBackendV1({
        execute: { result: 'ok', status: 'ok' },
      });
      const episode = createEpisode({ task: makeTask(), backend });
      episode.reset();
      const unknown = episode.step(call('rm_rf', {}));
      expect(
        unknown.events.find((e) => e.type === 'call-rejected'),
      ).toMatchObject({ reason: 'unknown-tool' });
      expect(unknown.observation[0]!.content).toContain(
        "[ERROR] Invalid tool call format: tool 'rm_rf' is not available",
      );
      const malformed = episode.step(
        '<tool_call>{"name": "cd", "arguments": </tool_call>',
      );
      expect(malformed.events.map((e) => e.type)).toContain('parse-error');
      expect(malformed.turn).toBe(0);
      expect(backend.calls).toHaveLength(0);
      // A message mixing a valid and an unknown call runs nothing.
      episode.step(`${call('cd', { folder: 'a' })}\n${call('nope', {})}`);
      expect(backend.calls).toHaveLength(0);
    });

    it('should keep a backend failure inside the episode', () => {
      const backend = new MockToolBackendV1({
        execute: () => {
          throw new Error('backend exploded');
        },
      });
      const episode = createEpisode({ task: makeTask(), backend });
      episode.reset();
      const step = episode.step(call('cd', { folder: 'a' }));
      expect(step.observation[0]!.content).toContain(
        'Error during execution: backend exploded',
      );
    });
  });

  describe('budgets and limits', () => {
    it('should stop after the model-call budget (per episode)', () => {
      const backend = new MockToolBackendV1({
        execute: { result: 'x', status: 'ok' },
      });
      const episode = createEpisode({
        task: makeTask(),
        backend,
        limits: { maxModelCalls: 3 },
      });
      episode.reset();
      episode.step(call('cd', { folder: 'a' }));
      episode.step(call('cd', { folder: 'b' }));
      const last = episode.step(call('cd', { folder: 'c' }));
      expect(last.done).toBe(true);
      expect(episode.record().endReason).toBe('budget-exhausted');
      expect(() => episode.step('more')).toThrow(
        expect.objectContaining({ code: 'INVALID_STATE' }),
      );
    });

    it("should force-quit after BFCL's per-turn step limit is exceeded", () => {
      const backend = new MockToolBackendV1({
        execute: { result: 'x', status: 'ok' },
      });
      const episode = createEpisode({
        task: makeTask(),
        backend,
        limits: { maxModelCalls: 100, maxStepsPerTurn: 2 },
      });
      episode.reset();
      episode.step(call('cd', { folder: 'a' }));
      expect(episode.step(call('cd', { folder: 'a' })).done).toBe(false);
      expect(episode.step(call('cd', { folder: 'a' })).done).toBe(true);
      expect(episode.record()).toMatchObject({ endReason: 'step-limit' });
      expect(episode.record().turns[0]!.endReason).toBe('step-limit');
    });

    it("should force-advance to the next turn on the attempt past Environment Tuning's per-turn cap", () => {
      const backend = new MockToolBackendV1({
        execute: { result: 'x', status: 'ok' },
      });
      const episode = createEpisode({
        task: makeTask(),
        backend,
        limits: { maxModelCalls: 100, maxAttemptsPerTurn: 2 },
      });
      episode.reset();
      // Attempts count tool steps and unparsable responses alike.
      expect(episode.step(call('cd', { folder: 'a' })).turn).toBe(0);
      expect(episode.step('<tool_call>{oops}</tool_call>').turn).toBe(0);
      const forced = episode.step(call('cd', { folder: 'b' }));
      expect(forced.done).toBe(false);
      expect(forced.turn).toBe(1);
      // The attempt's feedback, then the next question.
      expect(forced.observation.map((m) => m.content)).toEqual([
        '<tool_response>\nx\n</tool_response>\n',
        'Now sort report.txt.',
      ]);
      expect(episode.record().turns[0]).toMatchObject({
        endReason: 'step-limit',
      });
      expect(episode.record().turns[0]!.steps).toHaveLength(3);
      // A reply within the cap closes a turn as usual, and the count restarts per turn.
      episode.step(call('cd', { folder: 'c' }));
      expect(episode.step('Done.').turn).toBe(2);
      expect(episode.record().turns[1]).toMatchObject({ endReason: 'reply' });
      episode.step(call('sort', { file_name: 'r' }));
      episode.step(call('sort', { file_name: 'r' }));
      const last = episode.step(call('sort', { file_name: 'r' }));
      expect(last.done).toBe(true);
      expect(episode.record()).toMatchObject({ endReason: 'completed' });
      expect(episode.record().turns[2]).toMatchObject({
        endReason: 'step-limit',
      });
    });

    it('should end on the context limit and clip long observations', () => {
      const backend = new MockToolBackendV1({
        execute: { result: 'y'.repeat(4000), status: 'ok' },
      });
      const episode = createEpisode({
        task: makeTask(),
        backend,
        limits: { maxObservationTokens: 50, maxContextTokens: 400 },
      });
      episode.reset();
      const step = episode.step(call('cd', { folder: 'a' }));
      expect(step.observation[0]!.content).toContain(
        '[... observation clipped ...]',
      );
      expect(step.observation[0]!.content.length).toBeLessThan(400);
      let last = step;
      for (let i = 0; i < 10 && !last.done; i++)
        last = episode.step(call('cd', { folder: 'a' }));
      expect(episode.record().endReason).toBe('context-limit');
    });
  });

  describe('train and eval modes', () => {
    const overlay = interfaceOverlaySchema.parse({
      schemaVersion: 1,
      toolPatches: { cd: { parameters: { folder: ' [required]' } } },
      systemNotes: [
        {
          source: 'schema-note',
          text: 'Supply every [required] parameter exactly.',
        },
      ],
      errorHints: [
        {
          id: 'path',
          pattern: 'No such',
          hint: '[ToolHint] inspect with ls first',
        },
      ],
      parseErrorHints: ['[Hint] available tools: {tools}'],
    });

    it('should refuse a non-empty overlay in eval mode', () => {
      const backend = new MockToolBackendV1({
        execute: { result: 'x', status: 'ok' },
      });
      expect(() =>
        createEpisode({ task: makeTask(), backend, mode: 'eval', overlay }),
      ).toThrow(expect.objectContaining({ code: 'EVAL_GATE_VIOLATION' }));
      expect(() =>
        createEpisode({
          task: makeTask(),
          backend,
          mode: 'eval',
          overlay: emptyOverlay,
        }),
      ).not.toThrow();
    });

    it('should apply schema cues, notes, error hints and parse hints in train mode only', () => {
      const backend = new MockToolBackendV1({
        execute: {
          result: '{"error": "cd: a: No such directory"}',
          status: 'ok',
        },
      });
      const train = createEpisode({
        task: makeTask(),
        backend,
        mode: 'train',
        overlay,
      });
      const system = train.reset()[0]!.content;
      expect(system).toContain('The folder. [required]');
      expect(system).toContain('Supply every [required] parameter exactly.');
      const step = train.step(call('cd', { folder: 'a' }));
      expect(step.observation[0]!.content).toContain(
        '[ToolHint] inspect with ls first',
      );
      // The recorded result stays the raw one: the verifier sees BFCL's text.
      expect(train.record().turns[0]!.steps[0]!.results[0]).toBe(
        '{"error": "cd: a: No such directory"}',
      );
      expect(
        train.step('<tool_call>bad</tool_call>').observation[0]!.content,
      ).toContain('[Hint] available tools: cd');
      expect(train.record().overlayHash).not.toBe(emptyOverlayHash);

      const evaluation = createEpisode({
        task: makeTask(),
        backend,
        mode: 'eval',
      });
      expect(evaluation.reset()[0]!.content).not.toContain('[required]');
    });

    it('should give every episode the system prompt of its own task, overlay and prompt mode', () => {
      const backend = new MockToolBackendV1({
        execute: { result: 'x', status: 'ok' },
      });
      const system = (options: Partial<Parameters<typeof createEpisode>[0]>) =>
        createEpisode({ task: makeTask(), backend, ...options }).reset()[0]!
          .content;
      const trainFull = system({ mode: 'train', overlay });
      const trainCompact = system({
        mode: 'train',
        overlay,
        promptMode: 'compact',
      });
      const evalFull = system({ mode: 'eval' });
      const evalCompact = system({ mode: 'eval', promptMode: 'compact' });
      expect(
        new Set([trainFull, trainCompact, evalFull, evalCompact]).size,
      ).toBe(4);
      // Asked again, in any order, each is the same.
      expect(system({ mode: 'eval', promptMode: 'compact' })).toBe(evalCompact);
      expect(system({ mode: 'train', overlay })).toBe(trainFull);
      expect(system({ mode: 'eval' })).toBe(evalFull);
      // Another task with the same overlay shows its own tools.
      const other = createEpisode({
        task: makeTask({
          id: 'multi_turn_base_1',
          tools: [doc('mkdir', ['dir_name'])],
          holdouts: [],
        }),
        backend,
        mode: 'train',
        overlay,
      }).reset()[0]!.content;
      expect(other).toContain('mkdir');
      expect(other).not.toContain('"name":"cd"');
      // A protocol object renders for itself.
      const custom = createEpisode({
        task: makeTask(),
        backend,
        protocol: {
          ...createProtocol('qwen-xml'),
          renderSystemPrompt: () => 'custom tools',
        },
      }).reset()[0]!.content;
      expect(custom).toBe('custom tools');
    });
  });
});
