import { describe, expect, it } from 'vitest';
import { inferTaskCategory } from './task-category';

describe('inferTaskCategory', () => {
  it('should read the BFCL prefix of an id', () => {
    expect(inferTaskCategory('multi_turn_miss_param_12')).toBe(
      'multi_turn_miss_param',
    );
    expect(inferTaskCategory('multi_turn_long_context_0')).toBe(
      'multi_turn_long_context',
    );
    expect(inferTaskCategory('multi_turn_base')).toBe('multi_turn_base');
  });

  it('should cut other ids at their last underscore, and give _none for no id', () => {
    expect(inferTaskCategory('gen_files_3')).toBe('gen_files');
    expect(inferTaskCategory('single')).toBe('single');
    expect(inferTaskCategory('')).toBe('_none');
    expect(inferTaskCategory(undefined)).toBe('_none');
  });
});
