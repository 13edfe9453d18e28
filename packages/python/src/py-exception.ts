import type { PyValue } from './py-value';
import { pyRepr } from './py-repr';

/**
 * A Python exception raised by emulated Python code. `message` is exactly
 * `str(exception)`, which is what BFCL puts after `Error during execution: `.
 */
export class PyException extends Error {
  /** The Python exception class name (`TypeError`, `KeyError`, ...). */
  readonly pyType: string;

  constructor({ pyType, message }: { pyType: string; message: string }) {
    super(message);
    this.name = 'PyException';
    this.pyType = pyType;
  }

  /** `raise TypeError(message)`. */
  static typeError(message: string): PyException {
    return new PyException({ pyType: 'TypeError', message });
  }
  /** `raise ValueError(message)`. */
  static valueError(message: string): PyException {
    return new PyException({ pyType: 'ValueError', message });
  }
  /** `raise KeyError(key)`: `str()` of a KeyError is the repr of its key. */
  static keyError(key: PyValue): PyException {
    return new PyException({ pyType: 'KeyError', message: pyRepr(key) });
  }
  /** `raise IndexError(message)`. */
  static indexError(message: string): PyException {
    return new PyException({ pyType: 'IndexError', message });
  }
  /** `raise ZeroDivisionError(message)`. */
  static zeroDivision(message = 'division by zero'): PyException {
    return new PyException({ pyType: 'ZeroDivisionError', message });
  }
  /** `raise AttributeError(message)`. */
  static attributeError(message: string): PyException {
    return new PyException({ pyType: 'AttributeError', message });
  }
  /** `raise NameError(message)`. */
  static nameError(name: string): PyException {
    return new PyException({
      pyType: 'NameError',
      message: `name '${name}' is not defined`,
    });
  }
  /** `raise Exception(message)`. */
  static generic(message: string): PyException {
    return new PyException({ pyType: 'Exception', message });
  }

  /** True for a PyException (structural check, survives duplicate installs). */
  static isInstance(error: unknown): error is PyException {
    return (
      error instanceof Error &&
      error.name === 'PyException' &&
      'pyType' in error
    );
  }
}
