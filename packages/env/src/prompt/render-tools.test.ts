import {
  hasSharedBfclData,
  loadSharedBfclData,
  sharedDataSkipMessage,
} from '@seal/bfcl/test';
import { emptyOverlay, type ToolDoc } from '@seal/spec';
import { describe, expect, it } from 'vitest';
import { applyToolPatches } from '../overlay/apply-overlay';
import { renderCompactTool } from './render-tools';

const climate: ToolDoc = {
  name: 'adjustClimateControl',
  description:
    'This tool belongs to the vehicle control system. Tool description: Adjusts the climate. Extra text.',
  parameters: {
    type: 'dict',
    properties: {
      temperature: { type: 'float', description: 'The temperature to set.' },
      unit: {
        type: 'string',
        description: 'The unit. [Enum]: ["celsius", "fahrenheit"]',
        default: 'celsius',
      },
      currency: {
        type: 'string',
        description: 'The currency. [Enum]: USD, EUR',
      },
    },
    required: ['temperature', 'currency'],
  },
};

/** φ_schema's cues, written out as its patches append them. */
const cued = (doc: ToolDoc, parameters: Record<string, string>): ToolDoc =>
  applyToolPatches([doc], {
    ...emptyOverlay,
    toolPatches: { [doc.name]: { parameters, hide: [] } },
  })[0]!;

describe('renderCompactTool', () => {
  it('should render the untouched doc with its own trailing lists', () => {
    expect(renderCompactTool(climate)).toBe(
      'adjustClimateControl(temperature: float, unit?: str = "celsius" ["celsius", "fahrenheit"], currency: str): Adjusts the climate.',
    );
  });

  it('should keep the doc’s own enum list under overlay cues and show allowed values it does not list', () => {
    const patched = cued(climate, {
      temperature: ' [required] [type: float]',
      unit: ' Allowed values: celsius, fahrenheit',
      currency: ' [required] Allowed values: USD, EUR',
    });
    expect(renderCompactTool(patched)).toBe(
      'adjustClimateControl(temperature: float [required], unit?: str = "celsius" ["celsius", "fahrenheit"], currency: str [required] [one of: USD, EUR]): Adjusts the climate.',
    );
  });

  it('should read a cue-only description (no text of its own)', () => {
    const bare: ToolDoc = {
      name: 'f',
      description: 'Does f.',
      parameters: {
        type: 'dict',
        properties: { x: { type: 'integer' } },
        required: ['x'],
      },
    };
    expect(renderCompactTool(cued(bare, { x: '[required]' }))).toBe(
      'f(x: int [required]): Does f.',
    );
  });

  it.skipIf(!hasSharedBfclData)(
    'should show every BFCL enum list that ends a description, untouched and under cues',
    async () => {
      if (!hasSharedBfclData) return console.warn(sharedDataSkipMessage);
      const data = await loadSharedBfclData();
      let lists = 0;
      for (const docs of data.docs.values()) {
        for (const doc of docs) {
          const parameters = Object.fromEntries(
            Object.keys(doc.parameters.properties).map((name) => [
              name,
              ' [required]',
            ]),
          );
          const untouched = renderCompactTool(doc);
          const underCues = renderCompactTool(cued(doc, parameters));
          for (const parameter of Object.values(doc.parameters.properties)) {
            const list = /\[[^\]]+\]\s*$/.exec(
              parameter.description ?? '',
            )?.[0];
            if (!list) continue;
            lists++;
            expect(untouched).toContain(list);
            expect(underCues).toContain(`${list} [required]`);
          }
          // Without cues the line carries no overlay marker.
          expect(untouched).not.toMatch(/\[required\]|\[one of:/);
        }
      }
      expect(lists).toBeGreaterThanOrEqual(7);
    },
  );
});
