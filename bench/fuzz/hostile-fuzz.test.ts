import {
  hasSharedBfclData,
  loadSharedBfclData,
  sharedDataSkipMessage,
} from '@seal/bfcl/test';
import { describe, expect, it } from 'vitest';
import { HostileCorpus, canaryToken } from './hostile-inputs';
import { runHostileFuzz } from './hostile-fuzz';

describe('HostileCorpus', () => {
  it('should give the same inputs for the same seed', () => {
    const make = () =>
      new HostileCorpus({
        seed: 7,
        calls: ["cd(folder='document')", 'ls(a=True)'],
        methodNames: ['cd', 'ls'],
        canaryFile: '/tmp/x',
      });
    const [first, second] = [make(), make()];
    const inputs = Array.from({ length: 200 }, () => first.next());
    expect(Array.from({ length: 200 }, () => second.next())).toEqual(inputs);
    // Code that would run if evaluated is among them, named by the canary.
    expect(inputs.some((input) => input.includes(canaryToken))).toBe(true);
  });

  it('should keep an input with a new outcome as a parent, once', () => {
    const corpus = new HostileCorpus({
      seed: 1,
      calls: ['ls()'],
      methodNames: ['ls'],
      canaryFile: '/tmp/x',
    });
    const size = corpus.size;
    corpus.observe({ input: 'ls(a=1)', signature: 'new' });
    corpus.observe({ input: 'ls(a=2)', signature: 'new' });
    expect(corpus.size).toBe(size + 1);
    expect(corpus.signatures).toBe(1);
  });
});

describe.skipIf(!hasSharedBfclData)('runHostileFuzz', () => {
  it('should survive 10,000 hostile model outputs with no code run, no exception, no 5xx and bounded memory', async () => {
    const dataset = await loadSharedBfclData();
    const report = await runHostileFuzz({
      dataset,
      count: 10_000,
      seed: 20261125,
    });
    expect(report.failures).toEqual([]);
    expect(report.codeExecutions).toBe(0);
    expect(report.uncaughtExceptions).toBe(0);
    expect(report.slowInputs).toBe(0);
    expect(report.service.serverErrors).toBe(0);
    expect(report.service.transportErrors).toBe(0);
    expect(report.prototypePollution).toEqual([]);
    // Every input reached every target, and the service kept only its pool.
    expect(report.inputs).toBe(10_000);
    expect(report.executor.calls).toBe(10_000);
    expect(report.verifier.trajectories).toBe(500);
    expect(report.service.requests).toBeGreaterThanOrEqual(10_000);
    expect(report.service.liveInstancesAtEnd).toBe(4);
    // The corpus grew from what it found, and memory stayed bounded.
    expect(report.signatures).toBeGreaterThan(500);
    expect(report.memory.peakHeapMiB).toBeLessThan(512);
  }, 120_000);
});

describe.skipIf(hasSharedBfclData)('runHostileFuzz (needs shared data)', () => {
  it.skip(sharedDataSkipMessage, () => {});
});
