import { bfclTasks, createBfclBackend } from '@seal/bfcl';
import {
  hasSharedBfclData,
  loadSharedBfclData,
  sharedDataSkipMessage,
} from '@seal/bfcl/test';
import {
  applyToolPatches,
  createEpisode,
  hashOverlay,
  renderCompactTool,
} from '@seal/env';
import { emptyOverlay, type ToolDoc } from '@seal/spec';
import { describe, expect, it } from 'vitest';
import { selectGuidelines } from './guidelines';
import { enumValues, schemaCues } from './schema-cues';
import { evolveSealOverlay } from './seal-interface';
import {
  advanceCurriculum,
  hasPlateaued,
  initialCurriculumState,
} from './envtuning/curriculum';
import { envTuningOverlay } from './envtuning/envtuning-interface';
import { envTuningStages } from './envtuning/curriculum';

const lockDoors: ToolDoc = {
  name: 'lockDoors',
  description: 'Locks doors.',
  parameters: {
    type: 'dict',
    properties: {
      unlock: { type: 'boolean', description: 'True to unlock.' },
      door: {
        type: 'array',
        items: { type: 'string' },
        description: 'Doors. [Enum]: ["driver", "passenger"]',
      },
      note: { type: 'string', description: 'Optional note.' },
    },
    required: ['unlock', 'door'],
  },
};

describe('φ_schema', () => {
  it('should mark required parameters and read [Enum] lists from descriptions', () => {
    expect(enumValues({ description: 'x [Enum]: ["a", "b"]' })).toEqual([
      'a',
      'b',
    ]);
    expect(enumValues({ enum: ['x'] })).toEqual(['x']);
    // travel_booking's bare form, to the end of the description.
    expect(
      enumValues({ description: 'The base currency. [Enum]: USD, RMB, EUR' }),
    ).toEqual(['USD', 'RMB', 'EUR']);
    expect(enumValues({ description: 'Plain text.' })).toBeUndefined();
    const patches = schemaCues({ tools: [lockDoors] });
    expect(patches['lockDoors']!.parameters).toEqual({
      unlock: ' [required]',
      door: ' [required] Allowed values: driver, passenger',
    });
    expect(
      schemaCues({ tools: [lockDoors], settings: { hideOptional: true } })[
        'lockDoors'
      ]!.hide,
    ).toEqual(['note']);
  });

  it('should leave no enum list out of the compact docs (φ_schema over BFCL docs)', () => {
    const patched = applyToolPatches([lockDoors], {
      ...emptyOverlay,
      toolPatches: schemaCues({ tools: [lockDoors] }),
    });
    expect(renderCompactTool(patched[0]!)).toBe(
      'lockDoors(unlock: bool [required], door: list[str] ["driver", "passenger"] [required], note?: str): Locks doors.',
    );
    const exchange: ToolDoc = {
      name: 'compute_exchange_rate',
      description: 'Compute the exchange rate.',
      parameters: {
        type: 'dict',
        properties: {
          base_currency: {
            type: 'string',
            description: 'The base currency. [Enum]: USD, RMB',
          },
        },
        required: ['base_currency'],
      },
    };
    const cued = applyToolPatches([exchange], {
      ...emptyOverlay,
      toolPatches: schemaCues({ tools: [exchange] }),
    });
    expect(renderCompactTool(exchange)).toBe(
      'compute_exchange_rate(base_currency: str): Compute the exchange rate.',
    );
    expect(renderCompactTool(cued[0]!)).toBe(
      'compute_exchange_rate(base_currency: str [required] [one of: USD, RMB]): Compute the exchange rate.',
    );
  });

  it('should not repeat a cue the description already has', () => {
    const marked = {
      ...lockDoors,
      parameters: {
        ...lockDoors.parameters,
        properties: {
          unlock: { type: 'boolean', description: 'x [required]' },
        },
        required: ['unlock'],
      },
    };
    expect(schemaCues({ tools: [marked] })).toEqual({});
  });
});

describe('φ_cap', () => {
  it('should rank failure tags by prevalence × (1 − reward mean) with thresholds', () => {
    const selected = selectGuidelines({
      statistics: {
        pass: { count: 100, rewardSum: 80 },
        state_mismatch: { count: 30, rewardSum: 3 }, // prevalence 0.5, mean 0.1 → 0.45
        empty_turn_model_response: { count: 20, rewardSum: 0 }, // 0.333, mean 0 → 0.333
        response_mismatch: { count: 9, rewardSum: 8 }, // mean 0.89: solved, dropped
        spurious_tool_call: { count: 1, rewardSum: 0 }, // below min count
      },
    });
    expect(selected.map((g) => g.tag)).toEqual([
      'state_mismatch',
      'empty_turn_model_response',
    ]);
    expect(selected[0]!.pressure).toBeCloseTo((30 / 60) * (1 - 0.1));
  });

  it('should be empty without failures', () => {
    expect(
      selectGuidelines({ statistics: { pass: { count: 10, rewardSum: 10 } } }),
    ).toEqual([]);
  });
});

describe('evolveSealOverlay', () => {
  it('should give the headline overlay: schema cues and the note only', () => {
    const { overlay, hash, guidelines } = evolveSealOverlay({
      tools: [lockDoors],
    });
    expect(overlay.toolPatches['lockDoors']).toBeDefined();
    expect(overlay.systemNotes.map((n) => n.source)).toEqual(['schema-note']);
    expect(overlay.errorHints).toEqual([]);
    expect(guidelines).toEqual([]);
    expect(hash).toBe(hashOverlay(overlay));
  });

  it('should add guidelines that follow the statistics and change the hash', () => {
    const settings = { schema: {}, errorHints: {}, guidelines: {} };
    const before = evolveSealOverlay({ tools: [lockDoors], settings });
    const after = evolveSealOverlay({
      tools: [lockDoors],
      settings,
      statistics: { spurious_tool_call: { count: 20, rewardSum: 0 } },
    });
    expect(after.overlay.systemNotes.at(-1)!.text).toContain('[Cautious-call]');
    expect(after.hash).not.toBe(before.hash);
  });
});

describe.skipIf(!hasSharedBfclData)('overlay modules in episodes', () => {
  it('should append φ_err hints to real BFCL errors and rewrite them for Environment Tuning', async () => {
    const dataset = await loadSharedBfclData();
    const backend = createBfclBackend({ runtime: dataset.runtime });
    const [task] = bfclTasks({ dataset, ids: ['multi_turn_base_0'] });
    const call = (text: string) => `<tool_call>${text}</tool_call>`;

    const seal = evolveSealOverlay({
      tools: task!.tools,
      settings: { schema: {}, errorHints: {} },
    });
    const episode = createEpisode({
      task: task!,
      backend,
      mode: 'train',
      overlay: seal.overlay,
    });
    const system = episode.reset()[0]!.content;
    expect(system).toContain('[required]');
    const missing = episode.step(call('{"name": "cd", "arguments": {}}'));
    expect(missing.observation[0]!.content).toContain(
      "[ToolHint] `cd` was called without required argument(s) 'folder'",
    );
    const noDir = episode.step(
      call('{"name": "cd", "arguments": {"folder": "nowhere"}}'),
    );
    expect(noDir.observation[0]!.content).toContain(
      '[ToolHint] The path given to `cd` does not exist',
    );
    const bad = episode.step('<tool_call>{oops}</tool_call>');
    expect(bad.observation[0]!.content).toMatch(
      /\[Hint\] Available tools: authenticate_twitter, .* \(\+20 more\)/,
    );
    // The record keeps BFCL's raw text for the verifier.
    expect(episode.record().turns[0]!.steps[1]!.results[0]).toBe(
      '{"error": "cd: nowhere: No such directory. You cannot use path to change directory."}',
    );

    const tuned = envTuningOverlay({ stage: envTuningStages[1]! });
    const augmented = createEpisode({
      task: task!,
      backend,
      mode: 'train',
      overlay: tuned.overlay,
    });
    augmented.reset();
    const rewritten = augmented.step(
      call('{"name": "cd", "arguments": {"folder": "nowhere"}}'),
    );
    expect(rewritten.observation[0]!.content).toContain(
      "No such directory here. Use 'ls'",
    );
    const standard = envTuningOverlay({ stage: envTuningStages[3]! });
    expect(standard.overlay.errorRewrites).toEqual([]);
    expect(standard.hash).toBe(hashOverlay(emptyOverlay));
  });
});

describe.skipIf(hasSharedBfclData)(
  'overlay modules in episodes (needs shared data)',
  () => {
    it.skip(sharedDataSkipMessage, () => {});
  },
);

describe('Environment Tuning curriculum', () => {
  it('should detect a plateau only after patience evaluations without a new best', () => {
    expect(hasPlateaued([0.1, 0.2, 0.3], { patience: 2 })).toBe(false);
    expect(hasPlateaued([0.1, 0.3, 0.3, 0.29], { patience: 2 })).toBe(true);
    expect(hasPlateaued([0.1, 0.3, 0.3, 0.35], { patience: 2 })).toBe(false);
  });

  it('should advance stages on a plateau and on a spent budget, never past the last', () => {
    let state = initialCurriculumState();
    for (const [step, score] of [
      [1, 0.1],
      [2, 0.2],
      [3, 0.2],
      [4, 0.2],
    ] as const) {
      state = advanceCurriculum({
        state,
        score,
        step,
        settings: { patience: 2 },
      });
    }
    expect(state.stage).toBe(1);
    expect(state.transitions).toEqual([
      { step: 4, from: 0, to: 1, reason: 'plateau', validation: 0.2 },
    ]);
    state = advanceCurriculum({
      state,
      score: 0.5,
      step: 20,
      settings: { maxStepsPerStage: 10 },
    });
    expect(state.stage).toBe(2);
    state = { ...state, stage: 3 };
    state = advanceCurriculum({
      state,
      score: 0,
      step: 99,
      settings: { maxStepsPerStage: 1 },
    });
    expect(state.stage).toBe(3);
  });
});
