import { createBfclBackend } from '@seal/bfcl';
import { createGeneratorRuntime, generateTasks } from '@seal/bfcl-tasks';
import { createEpisode, emptyOverlayHash } from '@seal/env';
import { emptyOverlay } from '@seal/spec';
import { describe, expect, it } from 'vitest';
import { evolveSealOverlay, sealSettingsForModules } from './seal-interface';

const tasks = generateTasks({ seed: 5, split: 'train', count: 8 });
const backend = createBfclBackend({ runtime: createGeneratorRuntime() });
const tools = tasks.flatMap((task) => task.tools);
// Statistics under which φ_cap selects guidelines.
const statistics = {
  spurious_tool_call: { count: 20, rewardSum: 0 },
  state_mismatch: { count: 12, rewardSum: 0 },
};

function systemPrompt(
  overlay: typeof emptyOverlay | undefined,
  mode: 'train' | 'eval',
): string {
  const episode = createEpisode({
    task: tasks[0]!,
    backend,
    protocol: 'bfcl-python',
    promptMode: 'compact',
    mode,
    ...(overlay ? { overlay } : {}),
  });
  return episode
    .reset()
    .map((message) => `${message.role}:${message.content}`)
    .join('\n');
}

describe('SEAL interface modules switched by name', () => {
  it('should leave the training prompt byte-identical to the untouched interface with every module off', () => {
    const { overlay, hash } = evolveSealOverlay({
      tools,
      statistics,
      settings: sealSettingsForModules({ modules: [] }),
    });
    expect(overlay).toEqual(emptyOverlay);
    expect(hash).toBe(emptyOverlayHash);
    expect(systemPrompt(overlay, 'train')).toBe(
      systemPrompt(undefined, 'eval'),
    );
  });

  it('should add exactly the named modules', () => {
    const schema = evolveSealOverlay({
      tools,
      statistics,
      settings: sealSettingsForModules({ modules: ['schema'] }),
    }).overlay;
    expect(Object.keys(schema.toolPatches).length).toBeGreaterThan(0);
    expect(schema.errorHints).toEqual([]);
    expect(schema.systemNotes.map((note) => note.source)).toEqual([
      'schema-note',
    ]);

    const errors = evolveSealOverlay({
      tools,
      statistics,
      settings: sealSettingsForModules({
        modules: ['err'],
        protocol: 'bfcl-python',
      }),
    }).overlay;
    expect(errors.toolPatches).toEqual({});
    expect(errors.errorHints.length).toBeGreaterThan(0);
    expect(errors.parseErrorHints[0]).toContain('Python list');

    const cap = evolveSealOverlay({
      tools,
      statistics,
      settings: sealSettingsForModules({ modules: ['cap'] }),
    }).overlay;
    expect(cap.systemNotes.map((note) => note.source)).toEqual(['guidelines']);
    expect(systemPrompt(cap, 'train')).toContain('Cautious-call');
    expect(systemPrompt(cap, 'train')).not.toBe(
      systemPrompt(undefined, 'eval'),
    );
  });

  it('should still refuse any overlay in evaluation', () => {
    const { overlay } = evolveSealOverlay({
      tools,
      statistics,
      settings: sealSettingsForModules({ modules: ['schema', 'err', 'cap'] }),
    });
    expect(() => systemPrompt(overlay, 'eval')).toThrow();
  });
});
