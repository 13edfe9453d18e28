/**
 * Correctly rounded `pow` for doubles. CPython calls the C library's `pow`
 * (glibc's is correctly rounded in practice), while V8's `**` can be off by
 * one unit in the last place (`2 ** -0.5` gives 0.7071067811865475, CPython
 * 0.7071067811865476). Exact cases are computed with integers; the rest with
 * fixed-point logarithm and exponential series, widened until the error
 * interval rounds to a single double (Ziv's strategy).
 */

function bitLength(n: bigint): number {
  if (n === 0n) return 0;
  const hex = n.toString(16);
  return (hex.length - 1) * 4 + (32 - Math.clz32(parseInt(hex[0]!, 16)));
}

/** `x * 2**exponent` without intermediate overflow or underflow (exact for a normal result). */
function scale(x: number, exponent: number): number {
  let result = x;
  let n = exponent;
  while (n > 1000) {
    result *= 2 ** 1000;
    n -= 1000;
  }
  while (n < -1000) {
    result *= 2 ** -1000;
    n += 1000;
  }
  return result * 2 ** n;
}

/** A finite nonzero double as `mantissa * 2**exponent` with an odd mantissa (sign dropped). */
function decompose(x: number): { mantissa: bigint; exponent: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(x));
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  let mantissa = biased === 0 ? fraction : fraction | (1n << 52n);
  let exponent = (biased === 0 ? 1 : biased) - 1075;
  const zeros = bitLength(mantissa & -mantissa) - 1;
  mantissa >>= BigInt(zeros);
  exponent += zeros;
  return { mantissa, exponent };
}

/** The double nearest to `m * 2**s` (m > 0), ties to even; Infinity on overflow. */
function toDouble(m: bigint, s: number): number {
  const top = bitLength(m) - 1 + s;
  if (top >= 1024) return Infinity;
  const quantum = Math.max(top - 52, -1074);
  const shift = s - quantum;
  let units: bigint;
  if (shift >= 0) {
    units = m << BigInt(shift);
  } else {
    const big = BigInt(-shift);
    units = m >> big;
    const rest = m - (units << big);
    const half = 1n << (big - 1n);
    if (rest > half || (rest === half && (units & 1n) === 1n)) units += 1n;
  }
  return scale(Number(units), quantum);
}

/** The double nearest to `numerator / denominator` (both positive). */
function ratioToDouble(
  numerator: bigint,
  denominator: bigint,
  shift: number,
): number {
  // 64+ quotient bits and a sticky bit make the final rounding exact.
  const extra = Math.max(
    0,
    66 - (bitLength(numerator) - bitLength(denominator)),
  );
  const scaled = numerator << BigInt(extra);
  let quotient = scaled / denominator;
  if (quotient * denominator !== scaled) quotient = (quotient << 1n) | 1n;
  else quotient <<= 1n;
  return toDouble(quotient, shift - extra - 1);
}

/** `(m * 2**e) ** n` for an integer n, exactly rounded. */
function exactIntegerPower(m: bigint, e: number, n: bigint): number {
  if (n >= 0n) return toDouble(m ** n, e * Number(n));
  return ratioToDouble(1n, m ** -n, -e * Number(-n));
}

const exactBitsLimit = 4096;

/** x ** y when the result is exactly computable with integers (else undefined). */
function exactPower(x: number, y: number): number | undefined {
  const base = decompose(x);
  const power = decompose(y);
  let m = base.mantissa;
  let e = base.exponent;
  if (power.exponent < 0) {
    // y = n / 2^k: x^(1/2^k) must be an exact dyadic rational.
    for (let i = 0; i < -power.exponent; i++) {
      if (e % 2 !== 0) {
        m <<= 1n;
        e -= 1;
      }
      const root = sqrtFloor(m);
      if (root * root !== m) return undefined;
      m = root;
      e /= 2;
    }
  }
  const n =
    (y < 0 ? -power.mantissa : power.mantissa) <<
    BigInt(Math.max(power.exponent, 0));
  const zeros = bitLength(m & -m) - 1;
  m >>= BigInt(zeros);
  e += zeros;
  if (m === 1n) {
    const exponent = BigInt(e) * n;
    if (exponent >= 1024n) return Infinity;
    if (exponent < -1100n) return 0;
    return toDouble(1n, Number(exponent));
  }
  const absN = n < 0n ? -n : n;
  if (absN * BigInt(bitLength(m)) > BigInt(exactBitsLimit)) return undefined;
  return exactIntegerPower(m, e, n);
}

function sqrtFloor(n: bigint): bigint {
  if (n < 2n) return n;
  let x = 1n << BigInt(Math.ceil(bitLength(n) / 2));
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) return x;
    x = y;
  }
}

/** ln 2 * 2**bits, within 2 units. */
function ln2Fixed(bits: number): bigint {
  const work = BigInt(bits + 32);
  let power = (1n << work) / 3n;
  let sum = 0n;
  for (let k = 1n; power > 0n; k += 2n) {
    sum += power / k;
    power /= 9n;
  }
  return (2n * sum) >> 32n;
}

/** ln(x) * 2**bits for a positive double, and a bound on its error in units. */
function lnFixed(x: number, bits: number): { value: bigint; error: bigint } {
  const { mantissa, exponent } = decompose(x);
  const big = BigInt(bits);
  const bc = bitLength(mantissa);
  let denominator = 1n << BigInt(bc);
  let k = exponent + bc;
  if (2n * mantissa * mantissa < denominator * denominator) {
    denominator >>= 1n;
    k -= 1;
  }
  const numerator = mantissa - denominator;
  const magnitude = numerator < 0n ? -numerator : numerator;
  // ln f = 2 atanh((f - 1) / (f + 1)), |z| < 0.18
  const z = (magnitude << big) / (mantissa + denominator);
  const zSquared = (z * z) >> big;
  let power = z;
  let series = 0n;
  let terms = 0n;
  for (let d = 1n; power > 0n; d += 2n) {
    series += power / d;
    power = (power * zSquared) >> big;
    terms += 1n;
  }
  const lnFraction = numerator < 0n ? -2n * series : 2n * series;
  return {
    value: lnFraction + ((BigInt(k) * ln2Fixed(bits + 16)) >> 16n),
    error: 4n * terms + 16n,
  };
}

/**
 * `x ** y` correctly rounded, for finite x > 0 and finite y (C `pow` with
 * the special cases already handled by the caller). Returns Infinity on
 * overflow and 0 or a subnormal on underflow, as `pow` does.
 */
export function correctlyRoundedPow(x: number, y: number): number {
  if (y === 0 || x === 1) return 1;
  const exact = exactPower(x, y);
  if (exact !== undefined) return exact;
  const magnitudeBits = Math.max(0, Math.ceil(Math.log2(Math.abs(y))) + 1);
  for (let guard = 40; guard < 4000; guard *= 2) {
    const bits = 100 + magnitudeBits + guard;
    const big = BigInt(bits);
    const { mantissa: yMantissa, exponent: yExponent } = decompose(y);
    const ySigned = y < 0 ? -yMantissa : yMantissa;
    // t = y * ln x, in fixed point; its absolute error grows with |y|.
    const ln = lnFixed(x, bits);
    let t = ln.value * ySigned;
    t = yExponent >= 0 ? t << BigInt(yExponent) : t >> BigInt(-yExponent);
    const tError =
      ln.error *
        (ySigned < 0n ? -ySigned : ySigned) *
        2n ** BigInt(Math.max(yExponent, 0)) +
      2n;
    const one = 1n << big;
    // Far outside the double range: overflow or underflow for sure.
    if (t > 710n * one) return Infinity;
    if (t < -746n * one) return 0;
    // exp(t) = 2^k exp(r), |r| <= ln2 / 2.
    const ln2 = ln2Fixed(bits);
    let k = t / ln2;
    let r = t - k * ln2;
    if (2n * r > ln2) {
      k += 1n;
      r -= ln2;
    } else if (2n * r < -ln2) {
      k -= 1n;
      r += ln2;
    }
    const halvings = 8;
    const small = r >> BigInt(halvings);
    let term = one;
    let sum = one;
    for (let d = 1n; term !== 0n; d += 1n) {
      term = (term * small) / (d * one);
      sum += term;
    }
    for (let i = 0; i < halvings; i++) sum = (sum * sum) >> big;
    // Relative error bound, in units of 2^-bits of the result mantissa.
    const error = 4n * (tError + 2048n * (k < 0n ? -k : k) + (1n << 20n));
    const exponent = Number(k) - bits;
    const low = toDouble(sum - error, exponent);
    const high = toDouble(sum + error, exponent);
    if (low === high) return low;
  }
  return Math.pow(x, y);
}

let piCache: { bits: number; value: bigint } | undefined;

/** pi * 2**bits, within 2 units (Machin's formula). */
function piFixed(bits: number): bigint {
  if (piCache && piCache.bits >= bits)
    return piCache.value >> BigInt(piCache.bits - bits);
  const work = BigInt(bits + 32);
  const atanInverse = (n: bigint): bigint => {
    let power = (1n << work) / n;
    let sum = power;
    let negative = true;
    for (let k = 3n; power > 0n; k += 2n) {
      power /= n * n;
      sum += negative ? -(power / k) : power / k;
      negative = !negative;
    }
    return sum;
  };
  const value = (16n * atanInverse(5n) - 4n * atanInverse(239n)) >> 32n;
  piCache = { bits, value };
  return value;
}

/**
 * `sin(x)` or `cos(x)` correctly rounded (as glibc's are in practice; V8's
 * can be one unit off): reduction by a wide pi, Taylor series in fixed point,
 * widened until the result rounds unambiguously.
 */
function sinOrCos(x: number, which: 'sin' | 'cos'): number {
  if (!Number.isFinite(x)) return NaN;
  if (x === 0) return which === 'sin' ? x : 1;
  const { mantissa, exponent } = decompose(x);
  const top = exponent + bitLength(mantissa);
  for (let guard = 64; guard < 1 << 14; guard *= 2) {
    const bits = guard + Math.max(0, top) + Math.max(0, -top) + 16;
    const big = BigInt(bits);
    const a =
      exponent + bits >= 0
        ? mantissa << BigInt(exponent + bits)
        : mantissa >> BigInt(-(exponent + bits));
    const halfPi = piFixed(bits) >> 1n;
    const k = (2n * a + halfPi) / (2n * halfPi);
    const r = a - k * halfPi;
    const rSquared = (r * r) >> big;
    // Taylor series of sin r and cos r.
    let sinTerm = r;
    let sinSum = r;
    let cosTerm = 1n << big;
    let cosSum = cosTerm;
    let terms = 0n;
    for (let n = 1n; sinTerm !== 0n || cosTerm !== 0n; n += 1n) {
      cosTerm = -((cosTerm * rSquared) >> big) / ((2n * n - 1n) * (2n * n));
      sinTerm = -((sinTerm * rSquared) >> big) / (2n * n * (2n * n + 1n));
      cosSum += cosTerm;
      sinSum += sinTerm;
      terms += 1n;
    }
    const octant = Number(k % 4n);
    const useSin = which === 'sin' ? octant % 2 === 0 : octant % 2 === 1;
    let value = useSin ? sinSum : cosSum;
    const negate = which === 'sin' ? octant >= 2 : octant === 1 || octant === 2;
    if (negate) value = -value;
    if (which === 'sin' && x < 0) value = -value;
    const error = 4n * k + 4n * terms + 16n;
    const magnitude = value < 0n ? -value : value;
    if (magnitude <= error) continue;
    const low = toDouble(magnitude - error, -bits);
    const high = toDouble(magnitude + error, -bits);
    if (low === high) return value < 0n ? -low : low;
  }
  return which === 'sin' ? Math.sin(x) : Math.cos(x);
}

/** `sin(x)`, correctly rounded. */
export function correctlyRoundedSin(x: number): number {
  return sinOrCos(x, 'sin');
}

/** `cos(x)`, correctly rounded. */
export function correctlyRoundedCos(x: number): number {
  return sinOrCos(x, 'cos');
}
