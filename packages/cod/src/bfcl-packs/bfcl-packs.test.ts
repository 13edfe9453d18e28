import { createBfclBackend } from '@seal/bfcl';
import { createGeneratorRuntime, generateTasks } from '@seal/bfcl-tasks';
import type { Task } from '@seal/spec';
import { createBfclVerifier } from '@seal/verifier';
import { describe, expect, it } from 'vitest';
import { buildPacks } from '../packs/build-packs';
import {
  bfclTasksetId,
  createBfclPackEnvironment,
} from './bfcl-pack-environment';
import {
  aliasArgumentName,
  bfclArgumentStyles,
  bfclPackRegularity,
  createBfclPackAliases,
  type BfclPackRegularity,
} from './bfcl-pack-regularity';

const runtime = createGeneratorRuntime();
const backend = createBfclBackend({ runtime });
const verifier = createBfclVerifier({ runtime });
const tasks = generateTasks({
  seed: 3,
  split: 'train',
  count: 24,
  variants: ['multi_turn_base'],
});
const environment = createBfclPackEnvironment({
  backend,
  verifier,
  maxModelCalls: 16,
});

/** Plays a task: per turn, the ground truth written by `spell`, then a closing reply. */
async function play(
  task: Task,
  packSeed: number,
  spell: (call: string) => string,
) {
  const episode = environment.startSolve({
    task,
    packSeed,
    episodeId: `${task.id}:test`,
  });
  episode.reset();
  for (const calls of task.groundTruth) {
    if (episode.done) break;
    if (calls.length > 0) episode.step(`[${calls.map(spell).join(', ')}]`);
    if (!episode.done) episode.step('Done.');
  }
  return episode.finish();
}

describe('aliasArgumentName', () => {
  it('should spell argument names in each style', () => {
    expect(
      bfclArgumentStyles.map((style) =>
        aliasArgumentName({ name: 'receiver_id', style }),
      ),
    ).toEqual(['receiver_id', 'receiverId', 'RECEIVER_ID', 'arg_receiver_id']);
  });
});

describe('bfclPackRegularity', () => {
  it('should be the same for the same pack seed and re-drawn for different packs', () => {
    expect(bfclPackRegularity(11)).toEqual(bfclPackRegularity(11));
    const packs = buildPacks({
      tasks,
      taskId: (t) => t.id,
      tasksetId: () => 'all',
      packSize: 2,
      seed: 4,
    });
    const drawn = packs.map((p) =>
      JSON.stringify(bfclPackRegularity(p.packSeed)),
    );
    expect(new Set(drawn).size).toBeGreaterThanOrEqual(6);
  });
});

describe('createBfclPackAliases', () => {
  const regularity: BfclPackRegularity = {
    toolPrefix: 'api_',
    argumentStyle: 'upper',
  };
  const task = tasks[0]!;
  const aliases = createBfclPackAliases({ tools: task.tools, regularity });
  const tool = task.tools.find(
    (doc) => Object.keys(doc.parameters.properties).length > 0,
  )!;
  const argument = Object.keys(tool.parameters.properties)[0]!;

  it('should translate the pack spelling to the documented call', () => {
    expect(
      aliases.toCanonical(`api_${tool.name}(${argument.toUpperCase()}='v')`),
    ).toEqual({ success: true, callText: `${tool.name}(${argument}='v')` });
  });

  it('should refuse the documented spelling with an error naming what this deployment accepts', () => {
    const byName = aliases.toCanonical(`${tool.name}(${argument}='v')`);
    expect(byName.success).toBe(false);
    if (!byName.success) expect(byName.error).toContain(`api_${tool.name}`);
    if (argument.toUpperCase() !== argument) {
      const byArgument = aliases.toCanonical(
        `api_${tool.name}(${argument}='v')`,
      );
      expect(byArgument.success).toBe(false);
      if (!byArgument.success)
        expect(byArgument.error).toContain(argument.toUpperCase());
    }
  });

  it('should never merge two documented arguments into one spelling in the generator tools', () => {
    for (const t of tasks) {
      for (const doc of t.tools) {
        for (const style of bfclArgumentStyles) {
          const names = Object.keys(doc.parameters.properties);
          expect(
            new Set(names.map((name) => aliasArgumentName({ name, style })))
              .size,
          ).toBe(names.length);
        }
      }
    }
  });
});

describe('createBfclPackEnvironment', () => {
  it('should group tasks by their involved classes', () => {
    expect(bfclTasksetId(tasks[0]!)).toBe(
      tasks[0]!.backend.involvedClasses.join('+'),
    );
  });

  it('should solve a task written in the pack spelling, checked by the BFCL verifier', async () => {
    const task = tasks.find((t) =>
      t.groundTruth.some((calls) => calls.length > 0),
    )!;
    const packSeed = 5;
    const aliases = createBfclPackAliases({
      tools: task.tools,
      regularity: bfclPackRegularity(packSeed),
    });
    const result = await play(task, packSeed, (call) => {
      const spelled = aliases.toPackSpelling(call);
      if (!spelled.success) throw new Error(spelled.error);
      return spelled.callText;
    });
    expect(result).toMatchObject({ outcome: 1, success: true, maxSteps: 16 });
    expect(result.stepsUsed).toBe(
      task.groundTruth.reduce((n, calls) => n + (calls.length > 0 ? 2 : 1), 0),
    );
  });

  it('should fail the same task with the documented spelling: the calls are refused and change nothing', async () => {
    const task = tasks.find((t) =>
      t.groundTruth.some((calls) => calls.length > 0),
    )!;
    const result = await play(task, 5, (call) => call);
    expect(result.success).toBe(false);
    expect(result.outcome).toBe(0);
    expect(result.feedback).toMatch(/^Failed/);
    const observations = result.record!.messages.filter(
      (m) => m.role !== 'assistant' && m.content.includes('NameError'),
    );
    expect(observations.length).toBeGreaterThan(0);
  });

  it('should state the regularity for records', () => {
    expect(environment.describeRegularity(5)).toMatch(
      /^tools are called '\w+<name>'; keyword arguments are /,
    );
  });
});
