import { readFileSync } from 'node:fs';
import { bfclEntryToTask, type BfclDataset } from '@seal/bfcl';
import {
  hasSharedBfclData,
  loadSharedBfclData,
  sharedDataSkipMessage,
} from '@seal/bfcl/test';
import {
  parseJsonText,
  parseWithSchema,
  type VerifierV1Result,
} from '@seal/spec';
import { sharedFixture } from '@seal/spec/test';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  bfclCheckerVerdictSchema,
  checkerResultDifferences,
  checkerVerdictDifferences,
  sortSetLiterals,
  type BfclCheckerVerdict,
} from './checker-verdict';
import { verifyTrajectory } from './verify-trajectory';

// The 300 checker cases of ../shared/bfcl-checker: mutated trajectories and
// the verdict BFCL's own multi_turn_checker (cd9429cc) gave each. The same
// comparison as `seal bfcl check`, plus the error message, who checked, and
// the execution result strings BFCL recorded.
const verdictsFixture = sharedFixture({ path: 'bfcl-checker/verdicts.jsonl' });

type VerdictCase = BfclCheckerVerdict;

function readCases(path: string): VerdictCase[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .map((line, index) => ({ line, source: `${path}:${index + 1}` }))
    .filter(({ line }) => line.trim() !== '')
    .map(({ line, source }) =>
      parseWithSchema({
        schema: bfclCheckerVerdictSchema,
        value: parseJsonText({ text: line, source }),
        source,
      }),
    );
}

/** A verdict in one shape for both sides: attributes as a set, set literals sorted where the hash seed shows. */
function comparableVerdict({
  verdict,
  hashSeedDependent,
}: {
  verdict: VerdictCase['expected'];
  hashSeedDependent: boolean;
}) {
  const text = hashSeedDependent ? sortSetLiterals : (value: string) => value;
  return {
    valid: verdict.valid,
    errorType: verdict.error_type ?? null,
    errorMessage: verdict.error_message ?? null,
    checkedBy: verdict.valid
      ? null
      : verdict.checked_by === 'runner'
        ? 'runner'
        : 'checker',
    failedTurn: verdict.failed_turn ?? null,
    mismatchClass: verdict.mismatch_class ?? null,
    mismatchAttributes: [...(verdict.mismatch_attributes ?? [])].sort(),
    missingItems: (verdict.missing_items ?? []).map(text),
  };
}

function ourVerdict(result: VerifierV1Result): VerdictCase['expected'] {
  const official = result.official;
  return {
    valid: official.valid,
    error_type: official.errorType,
    error_message: official.errorMessage,
    checked_by:
      official.checkedBy === undefined
        ? undefined
        : official.checkedBy === 'runner'
          ? 'runner'
          : 'multi_turn_checker',
    failed_turn: official.failedTurn,
    mismatch_class: official.mismatchClass,
    mismatch_attributes: official.mismatchAttributes,
    missing_items: official.missingItems,
  };
}

const cases = verdictsFixture.present ? readCases(verdictsFixture.path) : [];

describe.skipIf(!verdictsFixture.present || !hasSharedBfclData)(
  "verifyTrajectory against BFCL's checker verdicts",
  () => {
    let dataset: BfclDataset;
    beforeAll(async () => {
      dataset = await loadSharedBfclData();
    });

    function verify(testCase: VerdictCase): VerifierV1Result {
      const entry = dataset.byId.get(testCase.id);
      if (!entry)
        throw new Error(`${testCase.case_id}: no BFCL entry ${testCase.id}`);
      return verifyTrajectory({
        task: bfclEntryToTask({ entry, dataset }),
        trajectory: testCase.model_result_decoded,
        runtime: dataset.runtime,
      });
    }

    it('should have the 300 shared cases, with every verdict kind', () => {
      expect(cases).toHaveLength(300);
      expect(
        new Set(
          cases.map((testCase) => testCase.expected.error_type ?? 'valid'),
        ),
      ).toEqual(
        new Set([
          'valid',
          'multi_turn:force_terminated',
          'multi_turn:empty_turn_model_response',
          'multi_turn:instance_state_mismatch',
          'multi_turn:execution_response_mismatch',
        ]),
      );
    });

    it.each(
      cases.map(
        (testCase) =>
          [`${testCase.case_id} (${testCase.id})`, testCase] as const,
      ),
    )('should give the verdict BFCL gave on %s', (_label, testCase) => {
      const hashSeedDependent =
        testCase.result_text_depends_on_hash_seed === true;
      const result = verify(testCase);
      expect(
        comparableVerdict({ verdict: ourVerdict(result), hashSeedDependent }),
      ).toEqual(
        comparableVerdict({ verdict: testCase.expected, hashSeedDependent }),
      );
      // seal bfcl check's comparison agrees.
      expect(checkerVerdictDifferences({ verdict: testCase, result })).toEqual(
        [],
      );
    });

    it("should name each field where a verdict differs from BFCL's", () => {
      const testCase = cases.find(
        (c) => c.expected.error_type === 'multi_turn:instance_state_mismatch',
      )!;
      const result = verify(testCase);
      expect(
        checkerVerdictDifferences({
          verdict: {
            ...testCase,
            expected: { valid: true, missing_items: ["'x'"] },
          },
          result,
        }).map((line) => line.split(':')[0]),
      ).toEqual([
        'valid',
        'error_type',
        'failed_turn',
        'mismatch_class',
        'mismatch_attributes',
        'missing_items',
      ]);
    });

    it.each(
      cases
        .filter(
          (testCase) =>
            testCase.model_execution_results &&
            testCase.result_text_depends_on_hash_seed !== true,
        )
        .map(
          (testCase) =>
            [`${testCase.case_id} (${testCase.id})`, testCase] as const,
        ),
    )(
      'should produce the execution results BFCL recorded on %s',
      (_label, testCase) => {
        const recorded = testCase.model_execution_results!;
        const result = verify(testCase);
        const turns = result.turns.slice(0, recorded.length);
        expect(turns.map((turn) => turn.modelResults)).toEqual(
          recorded.map((turn) => turn.flat()),
        );
        expect(checkerResultDifferences({ verdict: testCase, result })).toBe(0);
      },
    );
  },
);

if (!verdictsFixture.present || !hasSharedBfclData) {
  describe("verifyTrajectory against BFCL's checker verdicts (shared fixtures absent)", () => {
    it.skip(`${verdictsFixture.present ? sharedDataSkipMessage : verdictsFixture.skipMessage}`, () => {});
  });
}
