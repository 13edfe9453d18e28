import type { ToolParameter } from '@seal/spec';
import { describe, expect, it } from 'vitest';
import {
  hasSharedBfclData,
  loadSharedBfclData,
  sharedDataSkipMessage,
} from '../test';
import { bfclClassNames } from './bfcl-class-names';
import { bfclClassRegistry } from './registry';
import { toolDocFromSpec } from './tool-spec';

function typeOf(parameter: ToolParameter): string {
  return parameter.type === 'array' && parameter.items
    ? `array<${typeOf(parameter.items)}>`
    : parameter.type;
}

describe.skipIf(!hasSharedBfclData)(
  'our tool specs against the official BFCL function docs',
  () => {
    it.each(bfclClassNames)(
      'should cover every method of %s with matching names, types and required parameters',
      async (className) => {
        const dataset = await loadSharedBfclData();
        const official = dataset.docs.get(className)!;
        const definition = bfclClassRegistry[className];
        expect(Object.keys(definition.tools).sort()).toEqual(
          official.map((doc) => doc.name).sort(),
        );
        expect(Object.keys(definition.methods).sort()).toEqual(
          official.map((doc) => doc.name).sort(),
        );
        expect(definition.description.length).toBeGreaterThan(10);
        for (const doc of official) {
          const ours = toolDocFromSpec({
            name: doc.name,
            spec: definition.tools[doc.name]!,
          });
          const expected = Object.fromEntries(
            Object.entries(doc.parameters.properties).map(([key, value]) => [
              key,
              typeOf(value),
            ]),
          );
          const actual = Object.fromEntries(
            Object.entries(ours.parameters.properties).map(([key, value]) => [
              key,
              typeOf(value),
            ]),
          );
          expect({ name: doc.name, params: actual }).toEqual({
            name: doc.name,
            params: expected,
          });
          expect({
            name: doc.name,
            required: [...(ours.parameters.required ?? [])].sort(),
          }).toEqual({
            name: doc.name,
            required: [...(doc.parameters.required ?? [])].sort(),
          });
          expect(ours.description.length).toBeGreaterThan(10);
          // Written by us: never a copy of BFCL's text.
          expect(doc.description).not.toContain(ours.description);
        }
      },
    );
  },
);

describe.skipIf(hasSharedBfclData)(
  'tool specs against BFCL docs (needs shared data)',
  () => {
    it.skip(sharedDataSkipMessage, () => {});
  },
);

describe('toolDocFromSpec', () => {
  it('should render BFCL types, required members and defaults', () => {
    const doc = toolDocFromSpec({
      name: 'create_ticket',
      spec: bfclClassRegistry.TicketAPI.tools['create_ticket']!,
    });
    expect(doc.parameters.required).toEqual(['title']);
    expect(doc.parameters.properties['priority']).toMatchObject({
      type: 'integer',
      default: 1,
    });
    expect(doc.parameters.properties['title']).toMatchObject({
      type: 'string',
    });
  });
});
