import { describe, expect, it } from 'vitest';
import { toolErrorText } from './apply-overlay';

describe('toolErrorText', () => {
  it("should read BFCL's raised-error text and an error field of a JSON result", () => {
    expect(toolErrorText('Error during execution: division by zero')).toBe(
      'Error during execution: division by zero',
    );
    expect(toolErrorText('{"error": "cd: a: No such directory"}')).toBe(
      'cd: a: No such directory',
    );
    expect(toolErrorText('[{"Error": "bad id"}, {"x": 1}]')).toBe('bad id');
    expect(toolErrorText('{"login_ERROR_message": "expired"}')).toBe('expired');
  });

  it('should find a key spelled with \\u escapes', () => {
    expect(toolErrorText('{"\\u0065rror": "escaped key"}')).toBe('escaped key');
  });

  it('should find nothing in results without an error field', () => {
    expect(toolErrorText('{"current_directory": "/docs"}')).toBeUndefined();
    expect(
      toolErrorText('{"note": "an error in the text is not a key"}'),
    ).toBeUndefined();
    expect(toolErrorText('{"error": 42}')).toBeUndefined();
    expect(toolErrorText('None')).toBeUndefined();
    expect(toolErrorText('{"error": ')).toBeUndefined();
    expect(
      toolErrorText(`{"files": [${'"f.txt", '.repeat(10_000)}"g.txt"]}`),
    ).toBeUndefined();
  });
});
