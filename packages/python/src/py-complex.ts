import { pyEquals } from './py-compare';
import { floatRepr } from './py-repr';
import { PyObject, type PyValue } from './py-value';

/** One part of a complex repr: float repr without a trailing `.0` (CPython's `'r'` format, no `ADD_DOT_0`). */
function partRepr(value: number): string {
  const text = floatRepr(value);
  return text.endsWith('.0') ? text.slice(0, -2) : text;
}

/**
 * A Python `complex`. The port needs it only as a result value: CPython's
 * `float ** float` with a negative base and a non-integral exponent returns a
 * complex number (`(-8) ** 0.5`), which then prints as `(re+imj)`.
 */
export class PyComplex extends PyObject {
  readonly pyTypeName = 'complex';
  /** The real part. */
  readonly real: number;
  /** The imaginary part. */
  readonly imag: number;

  constructor(real: number, imag: number) {
    super();
    this.real = real;
    this.imag = imag;
  }

  /** `repr(z)`: `1j` when the real part is +0.0, else `(1-2j)`. */
  pyRepr(): string {
    if (this.real === 0 && !Object.is(this.real, -0))
      return `${partRepr(this.imag)}j`;
    const sign = this.imag < 0 || Object.is(this.imag, -0) ? '-' : '+';
    return `(${partRepr(this.real)}${sign}${partRepr(Math.abs(this.imag))}j)`;
  }

  /** `z == other`: by value, also against real numbers when the imaginary part is 0. */
  override pyEquals(other: PyValue): boolean {
    if (other instanceof PyComplex)
      return this.real === other.real && this.imag === other.imag;
    if (
      typeof other === 'number' ||
      typeof other === 'bigint' ||
      typeof other === 'boolean'
    ) {
      return this.imag === 0 && pyEquals(this.real, other);
    }
    return false;
  }
}
