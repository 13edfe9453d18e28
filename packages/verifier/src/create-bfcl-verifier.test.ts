import { bfclEntryToTask, type BfclDataset } from '@seal/bfcl';
import {
  hasSharedBfclData,
  loadSharedBfclData,
  sharedDataSkipMessage,
} from '@seal/bfcl/test';
import type { EpisodeRecord, Task } from '@seal/spec';
import { beforeAll, describe, expect, it } from 'vitest';
import { createBfclVerifier } from './create-bfcl-verifier';

let dataset: BfclDataset;
let task: Task;

/** A record that plays the task's ground truth, one step per turn. */
function groundTruthRecord(
  overrides: Partial<EpisodeRecord> = {},
): EpisodeRecord {
  return {
    schemaVersion: 1,
    episodeId: 'e1',
    taskId: task.id,
    category: task.category,
    mode: 'eval',
    protocol: 'qwen-xml',
    overlayHash: '0',
    messages: [],
    turns: task.groundTruth.map((calls, turn) => ({
      turn,
      steps: [
        { text: '', calls, results: calls.map(() => ''), rejectedCalls: 0 },
      ],
    })),
    events: [],
    endReason: 'completed',
    modelCalls: task.groundTruth.length,
    ...overrides,
  };
}

describe.skipIf(!hasSharedBfclData)('createBfclVerifier', () => {
  beforeAll(async () => {
    dataset = await loadSharedBfclData();
    task = bfclEntryToTask({
      entry: dataset.byId.get('multi_turn_base_0')!,
      dataset,
    });
  });

  it('should check records against the schema unless told not to, and verify them alike', () => {
    const checked = createBfclVerifier({ runtime: dataset.runtime });
    const unchecked = createBfclVerifier({
      runtime: dataset.runtime,
      checkRecords: false,
    });
    const record = groundTruthRecord();
    const a = checked.verifySync({ task, record });
    const b = unchecked.verifySync({ task, record });
    expect(a.official.valid).toBe(true);
    expect(b).toEqual(a);

    const malformed = groundTruthRecord({ modelCalls: -1 });
    expect(() => checked.verifySync({ task, record: malformed })).toThrow(
      expect.objectContaining({ code: 'INVALID_DATA' }),
    );
    expect(
      unchecked.verifySync({ task, record: malformed }).official.valid,
    ).toBe(true);
  });

  it("should refuse another task's record either way", () => {
    for (const checkRecords of [true, false]) {
      const verifier = createBfclVerifier({
        runtime: dataset.runtime,
        checkRecords,
      });
      expect(() =>
        verifier.verifySync({
          task,
          record: groundTruthRecord({ taskId: 'multi_turn_base_1' }),
        }),
      ).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    }
  });
});

describe.skipIf(hasSharedBfclData)(
  'createBfclVerifier (shared data absent)',
  () => {
    it.skip(sharedDataSkipMessage, () => {});
  },
);
