import { readFileSync } from 'node:fs';
import { bfclEntryToTask, type BfclDataset } from '@seal/bfcl';
import {
  hasSharedBfclData,
  loadSharedBfclData,
  sharedDataSkipMessage,
} from '@seal/bfcl/test';
import { parseJsonText, parseWithSchema } from '@seal/spec';
import { sharedFixture } from '@seal/spec/test';
import { beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { verifyTrajectory } from './verify-trajectory';

// The golden replays of ../shared/bfcl-golden: every entry's ground truth run
// turn by turn by BFCL's own Python (cd9429cc), each call with its exact
// result string. Played back as a model trajectory, BFCL's checker accepts
// its own ground truth; the verifier must too, and both of its sides (the
// model's shadow instances and the ground truth's) must produce BFCL's strings.
const goldenFixtures = ['multi_turn_base', 'multi_turn_miss_param'].map(
  (category) => ({
    category,
    fixture: sharedFixture({ path: `bfcl-golden/replay_${category}.jsonl` }),
  }),
);
const present =
  goldenFixtures.every(({ fixture }) => fixture.present) && hasSharedBfclData;

/** One golden line (`../shared/bfcl/README.md`, "Derived files"); the fields we compare. */
const goldenLineSchema = z.object({
  id: z.string(),
  category: z.string(),
  turns: z.array(
    z.object({
      calls: z.array(z.object({ call: z.string(), result: z.string() })),
    }),
  ),
});
type GoldenLine = z.infer<typeof goldenLineSchema>;

function readGolden(path: string): GoldenLine[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .map((line, index) => ({ line, source: `${path}:${index + 1}` }))
    .filter(({ line }) => line.trim() !== '')
    .map(({ line, source }) =>
      parseWithSchema({
        schema: goldenLineSchema,
        value: parseJsonText({ text: line, source }),
        source,
      }),
    );
}

const lines = present
  ? goldenFixtures.flatMap(({ fixture }) => readGolden(fixture.path))
  : [];

describe.skipIf(!present)(
  'verifyTrajectory on the golden replays of BFCL ground truth',
  () => {
    let dataset: BfclDataset;
    beforeAll(async () => {
      dataset = await loadSharedBfclData();
    });

    it('should have 200 entries of each category', () => {
      expect(
        lines.filter((line) => line.category === 'multi_turn_base'),
      ).toHaveLength(200);
      expect(
        lines.filter((line) => line.category === 'multi_turn_miss_param'),
      ).toHaveLength(200);
    });

    it.each(lines.map((line) => [line.id, line] as const))(
      'should accept the ground truth of %s with the result strings BFCL printed',
      (_id, line) => {
        const entry = dataset.byId.get(line.id);
        if (!entry) throw new Error(`no BFCL entry ${line.id}`);
        const goldenCalls = line.turns.map((turn) =>
          turn.calls.map((call) => call.call),
        );
        // The golden line records the entry's own ground truth.
        expect(goldenCalls).toEqual(entry.groundTruth);
        const result = verifyTrajectory({
          task: bfclEntryToTask({ entry, dataset }),
          // One step per turn holding the turn's calls; a turn without calls has no step.
          trajectory: goldenCalls.map((calls) =>
            calls.length > 0 ? [calls] : [],
          ),
          runtime: dataset.runtime,
        });
        expect(result.official).toEqual({ valid: true });
        const goldenResults = line.turns.map((turn) =>
          turn.calls.map((call) => call.result),
        );
        expect(result.turns.map((turn) => turn.groundTruthResults)).toEqual(
          goldenResults,
        );
        expect(result.turns.map((turn) => turn.modelResults)).toEqual(
          goldenResults,
        );
        expect(
          result.turns.every(
            (turn) => turn.tag === 'pass' || turn.tag === 'correct_abstention',
          ),
        ).toBe(true);
      },
    );
  },
);

if (!present) {
  describe('verifyTrajectory on the golden replays (shared fixtures absent)', () => {
    const missing = goldenFixtures.find(
      ({ fixture }) => !fixture.present,
    )?.fixture;
    it.skip(`${missing ? missing.skipMessage : sharedDataSkipMessage}`, () => {});
  });
}
