import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { episodeRecordSchema, type EpisodeRecord } from '@seal/spec';
import { describe, expect, it } from 'vitest';
import { conversationTurns } from './conversation-turns';

const records: EpisodeRecord[] = readFileSync(
  fileURLToPath(
    new URL('../__fixtures__/run/episodes/step-000002.jsonl', import.meta.url),
  ),
  'utf8',
)
  .trim()
  .split('\n')
  .map((line) => episodeRecordSchema.parse(JSON.parse(line)));

describe('conversationTurns', () => {
  it('should give every message exactly one place', () => {
    for (const record of records) {
      const conversation = conversationTurns(record);
      const placed = [
        ...(conversation.system ? [conversation.system] : []),
        ...conversation.turns.flatMap((turn) => [
          ...turn.question,
          ...turn.steps.flatMap((step) => [
            ...(step.message ? [step.message] : []),
            ...step.observations,
          ]),
        ]),
        ...conversation.trailing,
      ];
      expect(placed).toEqual(record.messages);
      expect(conversation.trailing).toEqual([]);
    }
  });

  it('should split a turn into its question, the model calls, their results and observations', () => {
    const record = records.find(
      (candidate) => candidate.turns[0]!.steps[0]!.calls.length > 0,
    )!;
    const [first] = conversationTurns(record).turns;
    expect(first!.question.map((message) => message.role)).toEqual(['user']);
    const step = first!.steps[0]!;
    expect(step.message?.role).toBe('assistant');
    expect(step.calls[0]).toMatchObject({
      type: 'executed',
      callText: record.turns[0]!.steps[0]!.calls[0],
    });
    expect(step.observations).toHaveLength(1);
    expect(step.observations[0]!.content).toContain("'role': 'tool'");
    // The reply that ends the turn has no observation: the next message is the next question.
    expect(first!.steps.at(-1)!.observations).toEqual([]);
  });
});
