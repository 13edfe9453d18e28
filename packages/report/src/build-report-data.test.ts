import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildReportData } from './build-report-data';
import { readRunDirectory } from './read-run-directory';

const fixture = fileURLToPath(new URL('./__fixtures__/run', import.meta.url));

describe('readRunDirectory', () => {
  it('should read the config, events, overlays, capability state and episode files', async () => {
    const run = await readRunDirectory({ runDirectory: fixture });
    expect(run.config?.method).toBe('seal');
    expect(run.steps.map((event) => event.step)).toEqual([1, 2, 3]);
    expect(
      run.evaluations.map((event) => `${event.step}:${event.set}`),
    ).toEqual([
      '0:test-id',
      '0:test-ood',
      '2:test-id',
      '2:test-ood',
      '3:test-id',
      '3:test-ood',
    ]);
    expect(run.overlays).toHaveLength(3);
    expect(run.capability?.observeCount).toBe(24);
    expect(run.episodeFiles.map((file) => file.name)).toEqual([
      'eval-000000-test-id.jsonl',
      'eval-000000-test-ood.jsonl',
      'step-000001.jsonl',
      'step-000002.jsonl',
      'step-000003.jsonl',
      'eval-000003-test-id.jsonl',
      'eval-000003-test-ood.jsonl',
    ]);
    expect(run.warnings).toEqual([]);
  });

  it('should throw FILE_NOT_FOUND for a directory that is not a run', async () => {
    await expect(
      readRunDirectory({ runDirectory: `${fixture}/episodes` }),
    ).rejects.toMatchObject({ code: 'FILE_NOT_FOUND' });
    await expect(
      readRunDirectory({ runDirectory: `${fixture}/missing` }),
    ).rejects.toMatchObject({ code: 'FILE_NOT_FOUND' });
  });
});

describe('buildReportData', () => {
  it('should build learning curves, evaluation series, tags, overlay segments and ρ', async () => {
    const run = await readRunDirectory({ runDirectory: fixture });
    const data = buildReportData({
      run,
      now: new Date('2026-01-01T00:00:00Z'),
    });
    expect(data.training.steps).toEqual([1, 2, 3]);
    expect(data.training.successRate).toEqual(
      run.steps.map((event) => event.successRate),
    );
    expect(data.evaluation.sets.map((set) => [set.name, set.steps])).toEqual([
      ['test-id', [0, 2, 3]],
      ['test-ood', [0, 2, 3]],
    ]);
    expect(Object.keys(data.evaluation.sets[0]!.categories)).toEqual([
      'multi_turn_base',
      'multi_turn_miss_func',
      'multi_turn_miss_param',
      'multi_turn_long_context',
    ]);
    expect(data.overlays.segments).toEqual([
      { overlay: 1, hash: 'e6671f2ba448637f', fromStep: 1, toStep: 1 },
      { overlay: 2, hash: '80962969d6d52b71', fromStep: 2, toStep: 3 },
    ]);
    expect(data.overlays.overlays[1]!.changes[0]).toMatch(/^\+ guidelines/);
    expect(Object.keys(data.rho.weights)).toContain('correct_abstention');
    expect(data.tags.names[0]).toBe('pass');
    expect(data.categories.training).toEqual({
      source: 'absent',
      reason: 'training episodes were not re-verified',
    });
  });

  it('should compute training success by category from re-verified outcomes', async () => {
    const run = await readRunDirectory({ runDirectory: fixture });
    const data = buildReportData({
      run,
      training: {
        outcomes: [
          { step: 1, category: 'multi_turn_base', success: true },
          { step: 1, category: 'multi_turn_base', success: false },
          { step: 3, category: 'multi_turn_miss_func', success: true },
        ],
        unavailable: 0,
        unavailableReasons: [],
      },
    });
    expect(data.categories.training).toMatchObject({
      source: 'diagnosis',
      steps: [1, 2, 3],
      successRate: {
        multi_turn_base: [0.5, null, null],
        multi_turn_miss_func: [null, null, 1],
      },
    });
  });
});
