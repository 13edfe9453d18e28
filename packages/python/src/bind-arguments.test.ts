import { describe, expect, it } from 'vitest';
import { bindArguments, type PySignature } from './bind-arguments';
import { PyException } from './py-exception';

const tail: PySignature = {
  qualname: 'GorillaFileSystem.tail',
  parameters: [{ name: 'file_name' }, { name: 'lines', default: 10n }],
};
const cd: PySignature = {
  qualname: 'GorillaFileSystem.cd',
  parameters: [{ name: 'folder' }],
};
const three: PySignature = {
  qualname: 'X.f',
  parameters: [{ name: 'a' }, { name: 'b' }, { name: 'c' }],
};

function message(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(PyException.isInstance(error)).toBe(true);
    return (error as PyException).message;
  }
  throw new Error('expected a TypeError');
}

describe('bindArguments', () => {
  it('should bind positional, keyword and default values in order', () => {
    expect(
      bindArguments({ signature: tail, args: ['a.txt'], kwargs: [] }),
    ).toEqual(['a.txt', 10n]);
    expect(
      bindArguments({
        signature: tail,
        args: [],
        kwargs: [
          ['lines', 2n],
          ['file_name', 'b'],
        ],
      }),
    ).toEqual(['b', 2n]);
  });

  it('should share a value default and refresh a factory default', () => {
    const shared: unknown[] = [];
    const signature: PySignature = {
      qualname: 'T.f',
      parameters: [
        { name: 'shared', default: shared as never },
        { name: 'fresh', default: () => [] },
      ],
    };
    const first = bindArguments({ signature, args: [], kwargs: [] });
    const second = bindArguments({ signature, args: [], kwargs: [] });
    expect(first[0]).toBe(second[0]);
    expect(first[1]).not.toBe(second[1]);
  });

  // Messages printed by CPython 3.11 for bound methods.
  it.each([
    [
      () => bindArguments({ signature: cd, args: ['a', 'b'], kwargs: [] }),
      'GorillaFileSystem.cd() takes 2 positional arguments but 3 were given',
    ],
    [
      () => bindArguments({ signature: tail, args: ['a', 1n, 2n], kwargs: [] }),
      'GorillaFileSystem.tail() takes from 2 to 3 positional arguments but 4 were given',
    ],
    [
      () => bindArguments({ signature: cd, args: [], kwargs: [['x', 1n]] }),
      "GorillaFileSystem.cd() got an unexpected keyword argument 'x'",
    ],
    [
      () =>
        bindArguments({
          signature: cd,
          args: ['a'],
          kwargs: [['folder', 'b']],
        }),
      "GorillaFileSystem.cd() got multiple values for argument 'folder'",
    ],
    [
      () => bindArguments({ signature: cd, args: [], kwargs: [] }),
      "GorillaFileSystem.cd() missing 1 required positional argument: 'folder'",
    ],
    [
      () => bindArguments({ signature: three, args: [], kwargs: [] }),
      "X.f() missing 3 required positional arguments: 'a', 'b', and 'c'",
    ],
    [
      () => bindArguments({ signature: three, args: [1n], kwargs: [] }),
      "X.f() missing 2 required positional arguments: 'b' and 'c'",
    ],
  ])('should raise CPython TypeError %#', (run, expected) => {
    expect(message(run)).toBe(expected);
  });
});
