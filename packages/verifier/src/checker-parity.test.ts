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
import * as z from 'zod';
import { verifyTrajectory } from './verify-trajectory';

// The 300 checker cases of ../shared/bfcl-checker: mutated trajectories and
// the verdict BFCL's own multi_turn_checker (cd9429cc) gave each. The same
// comparison as `seal bfcl check`, plus the error message, who checked, and
// the execution result strings BFCL recorded.
const verdictsFixture = sharedFixture({ path: 'bfcl-checker/verdicts.jsonl' });

/** One line of `verdicts.jsonl` (`../shared/bfcl-checker/README.md`); the fields we compare. */
const verdictCaseSchema = z.object({
  case_id: z.string(),
  id: z.string(),
  model_result_decoded: z.array(z.array(z.array(z.string()))),
  expected: z.object({
    valid: z.boolean(),
    error_type: z.string().nullish(),
    error_message: z.string().nullish(),
    checked_by: z.enum(['runner', 'multi_turn_checker']).nullish(),
    failed_turn: z.number().int().nullish(),
    mismatch_class: z.string().nullish(),
    mismatch_attributes: z.array(z.string()).nullish(),
    missing_items: z.array(z.string()).nullish(),
  }),
  model_execution_results: z.array(z.array(z.array(z.string()))).nullish(),
  result_text_depends_on_hash_seed: z.boolean().nullish(),
});
type VerdictCase = z.infer<typeof verdictCaseSchema>;

function readCases(path: string): VerdictCase[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .map((line, index) => ({ line, source: `${path}:${index + 1}` }))
    .filter(({ line }) => line.trim() !== '')
    .map(({ line, source }) =>
      parseWithSchema({
        schema: verdictCaseSchema,
        value: parseJsonText({ text: line, source }),
        source,
      }),
    );
}

/**
 * Sorts the items of Python set literals: their order in a result string
 * follows PYTHONHASHSEED (the fixture marks such cases), the verdict does not.
 */
function sortSetLiterals(text: string): string {
  return text.replace(
    /\{('[^']*'(?:, '[^']*')+)\}/g,
    (_match, body: string) => `{${body.split(', ').sort().join(', ')}}`,
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
        const turns = verify(testCase).turns.slice(0, recorded.length);
        expect(turns.map((turn) => turn.modelResults)).toEqual(
          recorded.map((turn) => turn.flat()),
        );
      },
    );
  },
);

if (!verdictsFixture.present || !hasSharedBfclData) {
  describe("verifyTrajectory against BFCL's checker verdicts (shared fixtures absent)", () => {
    it.skip(`${verdictsFixture.present ? sharedDataSkipMessage : verdictsFixture.skipMessage}`, () => {});
  });
}
