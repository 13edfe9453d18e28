import { createBfclBackend, type BfclDataset } from '@seal/bfcl';
import {
  hasSharedBfclData,
  loadSharedBfclData,
  sharedDataSkipMessage,
} from '@seal/bfcl/test';
import { createBfclVerifier } from '@seal/verifier';
import { beforeAll, describe, expect, it } from 'vitest';
import { startEnvServer, type EnvServer } from './env-server';
import { createBfclTaskSource } from './task-source';
import { replayGroundTruth } from './test/replay-ground-truth';
import { SealEnvClient } from './test/seal-env-client';
import { runPooled } from './test/run-pooled';

/**
 * `multi_turn_base_154` has 5 question turns but 6 ground-truth turns, so
 * BFCL's runner always reports `force_terminated`: no model can pass it.
 */
const unpassable = ['multi_turn_base_154'];
/**
 * `multi_turn_miss_func_49`'s ground truth calls `tail` in turn 1, but BFCL
 * withholds `tail` until turn 3. BFCL's runner does not check availability,
 * so it passes with `enforce_available_tools: false`; with SEAL's default
 * (`true`) the call is refused and the entry cannot pass.
 */
const refusedUnderEnforcement = 'multi_turn_miss_func_49';

async function startBfclServer(dataset: BfclDataset): Promise<EnvServer> {
  return startEnvServer({
    port: 0,
    tasks: createBfclTaskSource({ dataset }),
    backend: createBfclBackend({ runtime: dataset.runtime }),
    verifier: createBfclVerifier({ runtime: dataset.runtime }),
  });
}

describe.skipIf(!hasSharedBfclData)('seal serve ground-truth replay', () => {
  let dataset: BfclDataset;
  beforeAll(async () => {
    dataset = await loadSharedBfclData();
  });

  it('should score 1.0 on every passable entry of the evaluation split', async () => {
    await using server = await startBfclServer(dataset);
    const client = new SealEnvClient({ baseUrl: server.url });
    const ids = await client.getEnvProfile({ split: 'val' });
    expect(ids).toHaveLength(400);
    const outcomes = await runPooled(ids, 8, async (taskId) => {
      const instanceId = `replay-${taskId}`;
      const created = await client.create({
        taskId,
        instanceId,
        params: { rollout_mode: 'validate', enforce_available_tools: false },
      });
      const replay = await replayGroundTruth({
        client,
        instanceId,
        initial: created.state,
        groundTruth: dataset.byId.get(taskId)!.groundTruth,
        allowRefused: unpassable.includes(taskId),
      });
      expect(await client.release({ instanceId })).toBe(true);
      return {
        taskId,
        accuracy: replay.accuracy,
        reward: replay.reward,
        terminated: replay.terminated,
      };
    });
    const failed = outcomes
      .filter((outcome) => outcome.accuracy !== 1)
      .map((outcome) => outcome.taskId);
    expect(failed.sort()).toEqual(
      unpassable.filter((id) => ids.includes(id)).sort(),
    );
    expect(
      outcomes.every(
        (outcome) => outcome.terminated && outcome.reward === outcome.accuracy,
      ),
    ).toBe(true);
    expect(server.service.size).toBe(0);
  });

  it("should refuse miss_func_49's early call under SEAL's availability check", async () => {
    await using server = await startBfclServer(dataset);
    const client = new SealEnvClient({ baseUrl: server.url });
    const created = await client.create({
      taskId: refusedUnderEnforcement,
      instanceId: 'enforced',
      params: { rollout_mode: 'validate' },
    });
    const replay = await replayGroundTruth({
      client,
      instanceId: 'enforced',
      initial: created.state,
      groundTruth: dataset.byId.get(refusedUnderEnforcement)!.groundTruth,
      allowRefused: true,
    });
    expect(replay.accuracy).toBe(0);
  });
});

if (!hasSharedBfclData) {
  describe('seal serve ground-truth replay (shared data absent)', () => {
    it.skip(sharedDataSkipMessage, () => {});
  });
}
