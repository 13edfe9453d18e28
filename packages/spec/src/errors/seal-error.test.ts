import { describe, expect, it } from 'vitest';
import { SealError, toSealError } from './seal-error';

describe('SealError', () => {
  it('should be recognised by its marker, not by instanceof', () => {
    const error = new SealError({ code: 'INVALID_DATA', message: 'bad' });
    const lookalike = Object.assign(Object.create(null), {
      [Symbol.for('seal.error')]: true,
    });
    expect(SealError.isInstance(error)).toBe(true);
    expect(SealError.isInstance(lookalike)).toBe(true);
    expect(SealError.isInstance(new Error('x'))).toBe(false);
    expect(SealError.isInstance(null)).toBe(false);
  });

  it('should never wrap a SealError twice', () => {
    const inner = new SealError({ code: 'NOT_FOUND', message: 'missing' });
    const wrapped = SealError.wrap({
      cause: inner,
      code: 'INTERNAL',
      message: 'outer',
    });
    expect(wrapped).toBe(inner);
    const fresh = SealError.wrap({
      cause: new Error('x'),
      code: 'INTERNAL',
      message: 'outer',
    });
    expect(fresh.code).toBe('INTERNAL');
    expect(fresh.cause).toBeInstanceOf(Error);
  });

  it('should normalise unknown throws', () => {
    expect(toSealError('boom').code).toBe('INTERNAL');
    expect(
      toSealError(new SealError({ code: 'TIMEOUT', message: 't' })).code,
    ).toBe('TIMEOUT');
  });

  it('should serialise to code, message and details', () => {
    const error = new SealError({
      code: 'INVALID_DATA',
      message: 'm',
      details: { file: 'a.json' },
    });
    expect(error.toJSON()).toEqual({
      code: 'INVALID_DATA',
      message: 'm',
      details: { file: 'a.json' },
    });
  });
});
