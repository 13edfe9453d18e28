import {
  interfaceOverlaySchema,
  type ChatMessage,
  type ToolDoc,
} from '@seal/spec';
import { describe, expect, it } from 'vitest';
import { createProtocol } from '../protocols';
import type {
  DecodedCall,
  ProtocolParseResult,
  ToolCallProtocol,
} from '../protocols/tool-call-protocol';
import {
  createEpisodeCore,
  type CreateEpisodeCoreOptions,
} from './create-episode-core';

function doc(name: string): ToolDoc {
  return {
    name,
    description: `Does ${name}.`,
    parameters: { type: 'dict', properties: {}, required: [] },
  };
}

/** `bfcl-python`, except that each response parses to the next result given. */
function scriptedProtocol(results: ProtocolParseResult[]): ToolCallProtocol {
  return { ...createProtocol('bfcl-python'), parse: () => results.shift()! };
}

const decoded = (name: string, args: DecodedCall['args'] = []) => ({
  name,
  args,
  kwargs: [] as DecodedCall['kwargs'],
});

function core(overrides: Partial<CreateEpisodeCoreOptions> = {}) {
  return createEpisodeCore({
    taskId: 'task',
    category: 'multi_turn_base',
    turns: [[{ role: 'user', content: 'Add.' }], []],
    holdouts: [],
    tools: [doc('add'), doc('read')],
    protocol: createProtocol('bfcl-python'),
    promptMode: 'full',
    mode: 'eval',
    episodeId: 'e',
    ...overrides,
  });
}

describe('createEpisodeCore', () => {
  describe('steps', () => {
    it('should hand calls back for the caller to run and record their executions', () => {
      const episode = core();
      episode.start(() => 'System.');
      const step = episode.beginStep('[add(), read()]');
      expect(step.type).toBe('calls');
      if (step.type !== 'calls') return;
      expect(step.calls.map((call) => call.callText)).toEqual([
        'add()',
        'read()',
      ]);
      const result = step.end([
        { result: '1', status: 'ok' },
        { result: 'boom', status: 'raised', error: 'boom' },
      ]);
      expect(result.done).toBe(false);
      expect(
        result.events
          .filter((event) => event.type === 'call-executed')
          .map((event) => [event.result, event.status, event.error]),
      ).toEqual([
        ['1', 'ok', undefined],
        ['boom', 'raised', 'boom'],
      ]);
      expect(episode.record().turns[0]!.steps[0]!.calls).toEqual([
        'add()',
        'read()',
      ]);
    });

    it('should refuse an execution count that does not match the calls, and a second end', () => {
      const episode = core();
      episode.start(() => '');
      const step = episode.beginStep('[add()]');
      expect(() => step.end([])).toThrow(
        expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
      );
      step.end([{ result: '1', status: 'ok' }]);
      expect(() => step.end([{ result: '1', status: 'ok' }])).toThrow(
        expect.objectContaining({ code: 'INVALID_STATE' }),
      );
    });

    it('should refuse positional arguments only when named arguments are required', () => {
      const results = (): ProtocolParseResult[] => [
        {
          kind: 'calls',
          calls: [decoded('add', [2n]), decoded('nothere')],
          content: '',
        },
      ];
      const strict = core({
        protocol: scriptedProtocol(results()),
        requireNamedArguments: true,
      });
      strict.start(() => '');
      const step = strict.beginStep('add(2), nothere()');
      expect(step.type).toBe('rejected');
      if (step.type !== 'rejected') return;
      expect(
        step.rejections.map((rejection) => [
          rejection.call.name,
          rejection.reason,
        ]),
      ).toEqual([
        ['add', 'invalid-call'],
        ['nothere', 'unknown-tool'],
      ]);
      const result = step.end([]);
      expect(result.observation[0]!.content).toContain(
        "tool 'nothere' is not available; name every argument of 'add'; no call in this message was executed",
      );
      expect(strict.record().turns[0]!.steps[0]!.rejectedCalls).toBe(2);

      const lenient = core({
        protocol: scriptedProtocol(results()),
        enforceAvailableTools: false,
      });
      lenient.start(() => '');
      expect(lenient.beginStep('add(2), nothere()').type).toBe('calls');
    });

    it('should give soft tool errors the overlay’s error feedback unless turned off', () => {
      const overlay = interfaceOverlaySchema.parse({
        schemaVersion: 1,
        errorHints: [{ id: 'x', pattern: 'No such', hint: '[ToolHint] ls' }],
      });
      const shown = (softToolErrors: boolean) => {
        const episode = core({ mode: 'train', overlay, softToolErrors });
        episode.start(() => '');
        return episode
          .beginStep('[read()]')
          .end([{ result: '{"error": "No such file"}', status: 'ok' }])
          .observation.map((message) => message.content)
          .join('\n');
      };
      expect(shown(true)).toContain('[ToolHint] ls');
      expect(shown(false)).not.toContain('[ToolHint] ls');
    });
  });

  describe('turns', () => {
    it('should prompt an empty turn with emptyTurnPrompt, and report how each turn ends', () => {
      const ends: unknown[] = [];
      const starts: number[] = [];
      const episode = core({
        emptyTurnPrompt: 'What about now?',
        limits: { maxModelCalls: 2 },
        onTurnStart: (turn) => starts.push(turn),
        onTurnEnd: (end) => ends.push(end),
      });
      episode.start(() => '');
      const reply = episode.beginStep('Added.');
      expect(reply).toMatchObject({ type: 'reply', content: 'Added.' });
      expect(reply.end([]).observation).toEqual<ChatMessage[]>([
        { role: 'user', content: 'What about now?' },
      ]);
      const last = episode.beginStep('[nothere()]');
      expect(last.type).toBe('rejected');
      expect(last.end([]).done).toBe(true);
      expect(starts).toEqual([0, 1]);
      expect(ends).toEqual([
        { turn: 0, reason: 'reply', by: 'advance' },
        { turn: 1, reason: 'budget-exhausted', by: 'finish' },
      ]);
    });

    it('should start once, whether claimed first or not', () => {
      const claimed = core();
      claimed.claim();
      expect(() => claimed.claim()).toThrow(
        expect.objectContaining({ code: 'INVALID_STATE' }),
      );
      expect(claimed.start(() => 'System.').map((m) => m.role)).toEqual([
        'system',
        'user',
      ]);
      expect(() => claimed.start(() => '')).toThrow(
        expect.objectContaining({ code: 'INVALID_STATE' }),
      );
      const unclaimed = core();
      expect(() => unclaimed.beginStep('Hi.')).toThrow(
        expect.objectContaining({ code: 'INVALID_STATE' }),
      );
      unclaimed.start(() => '');
      expect(() => unclaimed.start(() => '')).toThrow(
        expect.objectContaining({ code: 'INVALID_STATE' }),
      );
    });
  });
});
