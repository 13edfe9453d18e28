import {
  PyException,
  PyObject,
  pyFloat,
  pyInt,
  pyIntToFloat,
  pyRepr,
  type PyValue,
} from '@seal/python';

/**
 * Just enough of mpmath 1.3 (pure-Python backend) for BFCL's
 * `MathAPI.logarithm`: `mp.dps = precision; log(value) / log(base)` and the
 * `repr` of the `mpf`/`mpc` it returns. Values are binary floating point
 * numbers `(-1)^sign * man * 2^exp` with an odd mantissa, as in mpmath, and
 * every operation rounds exactly as mpmath's does (to nearest with ties to
 * even, or toward zero where mpmath uses its "fast" rounding). Logarithms,
 * pi and arctangents are computed to enough extra bits to round correctly.
 */

/** A finite nonzero mpmath value: `(-1)^sign * man * 2^exp`, `man` odd. */
export type MpfFinite = {
  readonly sign: 0 | 1;
  readonly man: bigint;
  readonly exp: number;
};
/** A raw mpmath real (`mpf`): finite, zero (unsigned, as in mpmath), infinite or NaN. */
export type Mpf = MpfFinite | 'zero' | '+inf' | '-inf' | 'nan';
/** A raw mpmath complex (`mpc`). */
export type Mpc = { readonly re: Mpf; readonly im: Mpf };
/**
 * mpmath rounding modes used here: to nearest with ties to even (`n`),
 * toward zero (`d`, mpmath's `round_fast`) and away from zero (`u`).
 */
export type MpRounding = 'n' | 'd' | 'u';

/** log2(10) as Python's `math.log(10, 2)` and mpmath's literal give it. */
const log2Of10 = 3.3219280948873626;
/** Precisions beyond this many bits are refused (Python would run for a very long time). */
const maxPrecisionBits = 1 << 17;

function memoryError(): PyException {
  return new PyException({ pyType: 'MemoryError', message: '' });
}

/** Number of bits of a positive bigint. */
export function bitLength(n: bigint): number {
  if (n === 0n) return 0;
  const hex = n.toString(16);
  return (hex.length - 1) * 4 + (32 - Math.clz32(parseInt(hex[0]!, 16)));
}

function trailingZeros(n: bigint): number {
  return bitLength(n & -n) - 1;
}

function isFinite(x: Mpf): x is MpfFinite {
  return typeof x !== 'string';
}

/**
 * Builds a value from `(-1)^sign * man * 2^exp` (`man >= 0`), rounded to
 * `prec` bits (0: exact), like mpmath's `normalize`.
 */
export function mpfNormalize(
  sign: 0 | 1,
  man: bigint,
  exp: number,
  prec: number,
  rnd: MpRounding,
): Mpf {
  if (man === 0n) return 'zero';
  let m = man;
  let e = exp;
  const bc = bitLength(m);
  if (prec > 0 && bc > prec) {
    const shift = bc - prec;
    const shiftBig = BigInt(shift);
    const kept = m >> shiftBig;
    const rest = m - (kept << shiftBig);
    if (rnd === 'n') {
      const half = 1n << (shiftBig - 1n);
      m =
        rest > half || (rest === half && (kept & 1n) === 1n) ? kept + 1n : kept;
    } else if (rnd === 'u') {
      m = rest > 0n ? kept + 1n : kept;
    } else {
      m = kept;
    }
    e += shift;
  }
  const zeros = trailingZeros(m);
  if (zeros > 0) {
    m >>= BigInt(zeros);
    e += zeros;
  }
  return { sign, man: m, exp: e };
}

/** `from_int`: exact. */
export function mpfFromInt(n: bigint): Mpf {
  return n < 0n
    ? mpfNormalize(1, -n, 0, 0, 'n')
    : mpfNormalize(0, n, 0, 0, 'n');
}

/** `from_float`: exact (mpmath has no negative zero). */
export function mpfFromFloat(x: number): Mpf {
  if (Number.isNaN(x)) return 'nan';
  if (x === Infinity) return '+inf';
  if (x === -Infinity) return '-inf';
  if (x === 0) return 'zero';
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  const man = biased === 0 ? fraction : fraction | (1n << 52n);
  const exp = (biased === 0 ? 1 : biased) - 1075;
  return mpfNormalize(x < 0 ? 1 : 0, man, exp, 0, 'n');
}

/** `mpf_neg`. */
export function mpfNeg(x: Mpf): Mpf {
  if (x === '+inf') return '-inf';
  if (x === '-inf') return '+inf';
  if (!isFinite(x)) return x;
  return { sign: x.sign === 0 ? 1 : 0, man: x.man, exp: x.exp };
}

/** `mpf_abs`. */
export function mpfAbs(x: Mpf): Mpf {
  if (x === '-inf') return '+inf';
  if (!isFinite(x)) return x;
  return x.sign === 0 ? x : { sign: 0, man: x.man, exp: x.exp };
}

/** `mpf_sign`: -1, 0 or 1 (NaN counts as 0). */
function mpfSign(x: Mpf): number {
  if (x === '+inf') return 1;
  if (x === '-inf') return -1;
  if (!isFinite(x)) return 0;
  return x.sign === 0 ? 1 : -1;
}

/** `x * 2^n`, exact. */
export function mpfShift(x: Mpf, n: number): Mpf {
  return isFinite(x) ? { sign: x.sign, man: x.man, exp: x.exp + n } : x;
}

/** Rounds a value to `prec` bits (`mpf_pos`). */
export function mpfRound(x: Mpf, prec: number, rnd: MpRounding): Mpf {
  return isFinite(x) ? mpfNormalize(x.sign, x.man, x.exp, prec, rnd) : x;
}

function mpfEqual(a: Mpf, b: Mpf): boolean {
  if (!isFinite(a) || !isFinite(b)) return a === b;
  return a.sign === b.sign && a.man === b.man && a.exp === b.exp;
}

/** `mpf_add(s, t, prec, rnd)` (prec 0: exact); `subtract` negates `t` first, as `mpf_sub`. */
export function mpfAdd(
  s: Mpf,
  t0: Mpf,
  prec: number,
  rnd: MpRounding,
  subtract = false,
): Mpf {
  const t = subtract ? mpfNeg(t0) : t0;
  if (isFinite(s) && isFinite(t)) {
    // Far-apart operands: the smaller one only decides the rounding, so a
    // sticky unit below the precision stands for it (mpmath does the same).
    const high = s.exp + bitLength(s.man) >= t.exp + bitLength(t.man) ? s : t;
    const low = high === s ? t : s;
    const gap = high.exp + bitLength(high.man) - (low.exp + bitLength(low.man));
    if (prec > 0 && gap > prec + 4 && high.exp - low.exp > 100) {
      const offset = prec + 4;
      let man = high.man << BigInt(offset);
      man += high.sign === low.sign ? 1n : -1n;
      return mpfNormalize(high.sign, man, high.exp - offset, prec, rnd);
    }
    const exp = Math.min(s.exp, t.exp);
    const a = (s.sign ? -s.man : s.man) << BigInt(s.exp - exp);
    const b = (t.sign ? -t.man : t.man) << BigInt(t.exp - exp);
    const sum = a + b;
    return sum < 0n
      ? mpfNormalize(1, -sum, exp, prec, rnd)
      : mpfNormalize(0, sum, exp, prec, rnd);
  }
  // Zeros and specials, exactly as mpmath sorts them out.
  if (!isFinite(s)) {
    if (s !== 'zero') {
      if (mpfEqual(s, t) || isFinite(t) || t === 'zero') return s;
      return 'nan';
    }
    return isFinite(t) ? mpfRound(t, prec, rnd) : t;
  }
  if (t !== 'zero') return t;
  return mpfRound(s, prec, rnd);
}

/** `mpf_mul(s, t, prec, rnd)` (prec 0: exact). */
export function mpfMul(s: Mpf, t: Mpf, prec: number, rnd: MpRounding): Mpf {
  if (isFinite(s) && isFinite(t)) {
    return mpfNormalize(
      (s.sign ^ t.sign) as 0 | 1,
      s.man * t.man,
      s.exp + t.exp,
      prec,
      rnd,
    );
  }
  const sSpecial = !isFinite(s) && s !== 'zero';
  const tSpecial = !isFinite(t) && t !== 'zero';
  if (!sSpecial && !tSpecial) return 'zero';
  if (s === 'nan' || t === 'nan') return 'nan';
  const [special, other] = tSpecial ? [t, s] : [s, t];
  if (other === 'zero') return 'nan';
  return mpfSign(special) * mpfSign(other) > 0 ? '+inf' : '-inf';
}

/** `mpf_div(s, t, prec, rnd)`; mpmath raises a bare `ZeroDivisionError` for `x / 0`. */
export function mpfDiv(s: Mpf, t: Mpf, prec: number, rnd: MpRounding): Mpf {
  if (!isFinite(s) || !isFinite(t)) {
    if (s === 'zero') {
      if (t === 'zero') throw PyException.zeroDivision('');
      if (t === 'nan') return 'nan';
      return 'zero';
    }
    if (t === 'zero') throw PyException.zeroDivision('');
    const sSpecial = !isFinite(s);
    const tSpecial = !isFinite(t);
    if (sSpecial && tSpecial) return 'nan';
    if (s === 'nan' || t === 'nan') return 'nan';
    if (!tSpecial) return mpfSign(s) * mpfSign(t) > 0 ? '+inf' : '-inf';
    return 'zero';
  }
  const sign = (s.sign ^ t.sign) as 0 | 1;
  // Enough quotient bits for the precision, plus a sticky bit for the rest.
  let extra = Math.max(prec - bitLength(s.man) + bitLength(t.man) + 5, 5);
  const numerator = s.man << BigInt(extra);
  let quotient = numerator / t.man;
  if (quotient * t.man !== numerator) {
    quotient = (quotient << 1n) | 1n;
    extra += 1;
  }
  return mpfNormalize(sign, quotient, s.exp - t.exp - extra, prec, rnd);
}

/**
 * `mpf_pow_int(s, n, prec, rnd)` for a positive finite `s`, with mpmath's
 * exact steps: exact for small powers, else binary powering truncated to a
 * working precision in one direction, then one final rounding.
 */
export function mpfPowInt(
  s: MpfFinite,
  n: bigint,
  prec: number,
  rnd: MpRounding,
): Mpf {
  if (n === 0n) return mpfFromInt(1n);
  if (n === 1n) return mpfRound(s, prec, rnd);
  if (n === 2n) return mpfNormalize(0, s.man * s.man, 2 * s.exp, prec, rnd);
  if (n === -1n) return mpfDiv(mpfFromInt(1n), s, prec, rnd);
  if (n < 0n) {
    const inverse = mpfPowInt(
      s,
      -n,
      prec + 5,
      rnd === 'd' ? 'u' : rnd === 'u' ? 'd' : rnd,
    );
    return mpfDiv(mpfFromInt(1n), inverse, prec, rnd);
  }
  if (s.man === 1n) return { sign: 0, man: 1n, exp: s.exp * Number(n) };
  const bc = bitLength(s.man);
  if (BigInt(bc) * n < 1000n)
    return mpfNormalize(0, s.man ** n, s.exp * Number(n), prec, rnd);
  const workprec = prec + 4 * bitLength(n) + 4;
  const floor = rnd !== 'u';
  const truncate = (man: bigint, exp: number): [bigint, number] => {
    const excess = bitLength(man) - workprec;
    if (excess <= 0) return [man, exp];
    const shift = BigInt(excess);
    const kept = man >> shift;
    return [floor || kept << shift === man ? kept : kept + 1n, exp + excess];
  };
  let [pm, pe] = [1n, 0];
  let [man, exp] = [s.man, s.exp];
  let count = n;
  for (;;) {
    if (count & 1n) {
      [pm, pe] = truncate(pm * man, pe + exp);
      count -= 1n;
      if (count === 0n) break;
    }
    [man, exp] = truncate(man * man, exp + exp);
    count /= 2n;
  }
  return mpfNormalize(0, pm, pe, prec, rnd);
}

// ---------------------------------------------------------------------------
// Fixed-point constants and series. A fixed-point number is a bigint A
// standing for A * 2^-bits.

let ln2Cache: { bits: number; value: bigint } | undefined;
let piCache: { bits: number; value: bigint } | undefined;

/** ln 2 * 2^bits, within 2 units. */
function ln2Fixed(bits: number): bigint {
  if (ln2Cache && ln2Cache.bits >= bits)
    return ln2Cache.value >> BigInt(ln2Cache.bits - bits);
  const guard = 32;
  const work = BigInt(bits + guard);
  // ln 2 = 2 atanh(1/3) = 2 * sum 1 / ((2k+1) 3^(2k+1))
  let power = (1n << work) / 3n;
  let sum = 0n;
  for (let k = 1n; power > 0n; k += 2n) {
    sum += power / k;
    power /= 9n;
  }
  const value = (2n * sum) >> BigInt(guard);
  ln2Cache = { bits, value };
  return value;
}

/** atan(1/n) * 2^bits (n >= 2), within a few units. */
function atanInverseFixed(n: bigint, bits: bigint): bigint {
  let power = (1n << bits) / n;
  const square = n * n;
  let sum = power;
  let negative = true;
  for (let k = 3n; power > 0n; k += 2n) {
    power /= square;
    sum += negative ? -(power / k) : power / k;
    negative = !negative;
  }
  return sum;
}

/** pi * 2^bits, within 2 units (Machin's formula). */
function piFixed(bits: number): bigint {
  if (piCache && piCache.bits >= bits)
    return piCache.value >> BigInt(piCache.bits - bits);
  const guard = 32;
  const work = BigInt(bits + guard);
  const value =
    (16n * atanInverseFixed(5n, work) - 4n * atanInverseFixed(239n, work)) >>
    BigInt(guard);
  piCache = { bits, value };
  return value;
}

/**
 * Rounds the fixed-point approximation `approx * 2^-bits` (true value within
 * `error` units) to `prec` bits; undefined when the error interval straddles
 * a rounding boundary (the caller retries with more bits).
 */
function roundApproximation(
  approx: bigint,
  error: bigint,
  bits: number,
  prec: number,
  rnd: MpRounding,
): Mpf | undefined {
  const low = approx - error;
  const high = approx + error;
  if (low <= 0n && high >= 0n) return undefined;
  const round = (value: bigint) =>
    value < 0n
      ? mpfNormalize(1, -value, -bits, prec, rnd)
      : mpfNormalize(0, value, -bits, prec, rnd);
  const a = round(low);
  const b = round(high);
  return mpfEqual(a, b) ? a : undefined;
}

/** Runs a fixed-point evaluation with growing guard bits until it rounds unambiguously. */
function correctlyRounded(
  evaluate: (guard: number) => { approx: bigint; error: bigint; bits: number },
  prec: number,
  rnd: MpRounding,
): Mpf {
  for (let guard = 32; ; guard *= 2) {
    const { approx, error, bits } = evaluate(guard);
    const rounded = roundApproximation(approx, error, bits, prec, rnd);
    if (rounded !== undefined) return rounded;
    if (guard > 1 << 16) throw memoryError();
  }
}

function checkPrecision(prec: number): void {
  if (prec > maxPrecisionBits) throw memoryError();
}

/** `mpf_log` of a positive finite value, correctly rounded. */
function logPositive(x: MpfFinite, prec: number, rnd: MpRounding): Mpf {
  if (x.man === 1n && x.exp === 0) return 'zero';
  checkPrecision(prec);
  const bc = bitLength(x.man);
  // x = (man / denominator) * 2^k with the fraction in [1/sqrt(2), sqrt(2)).
  let denominator = 1n << BigInt(bc);
  let k = x.exp + bc;
  if (2n * x.man * x.man < denominator * denominator) {
    denominator >>= 1n;
    k -= 1;
  }
  const numerator = x.man - denominator;
  const sum = x.man + denominator;
  const magnitude = numerator < 0n ? -numerator : numerator;
  // Close to 1 the result is tiny: carry as many more bits as it lacks.
  const cancellation = k === 0 ? bitLength(sum) - bitLength(magnitude) : 0;
  // At high precision, first take r square roots (ln f = 2^r ln f^(1/2^r))
  // so that the series converges faster.
  const roots = prec > 1500 ? Math.floor(Math.sqrt(prec) / 3) : 0;
  return correctlyRounded(
    (guard) => {
      const bits = prec + cancellation + guard + roots;
      const big = BigInt(bits);
      const one = 1n << big;
      let z: bigint;
      let negative = numerator < 0n;
      if (roots === 0) {
        // ln(fraction) = 2 atanh(z), z = (f - 1) / (f + 1), |z| < 0.18
        z = (magnitude << big) / sum;
      } else {
        let f = (x.man << big) / denominator;
        for (let i = 0; i < roots; i++) f = isqrt(f << big);
        negative = f < one;
        z = ((negative ? one - f : f - one) << big) / (f + one);
      }
      const zSquared = (z * z) >> big;
      let power = z;
      let series = 0n;
      let terms = 0n;
      for (let d = 1n; power > 0n; d += 2n) {
        series += power / d;
        power = (power * zSquared) >> big;
        terms += 1n;
      }
      const scale = BigInt(roots + 1);
      let approx = negative ? -(series << scale) : series << scale;
      let error = (4n * terms + 16n + 4n * BigInt(roots)) << scale;
      if (k !== 0) {
        const kBits = bitLength(BigInt(Math.abs(k))) + 2;
        approx += (BigInt(k) * ln2Fixed(bits + kBits)) >> BigInt(kBits);
        error += 8n;
      }
      return { approx, error, bits };
    },
    prec,
    rnd,
  );
}

/** `mpf_log(x)` for x >= 0 or special; negative input has a complex logarithm (see {@link mpLog}). */
export function mpfLog(x: Mpf, prec: number, rnd: MpRounding): Mpf {
  if (x === 'zero') return '-inf';
  if (x === '+inf' || x === 'nan') return x;
  if (x === '-inf' || x.sign === 1)
    throw new Error('mpfLog of a negative number');
  return logPositive(x, prec, rnd);
}

/** `mpf_pi(prec, rnd)`, correctly rounded. */
export function mpfPi(prec: number, rnd: MpRounding): Mpf {
  checkPrecision(prec);
  return correctlyRounded(
    (guard) => {
      const bits = prec + guard;
      return { approx: piFixed(bits), error: 4n, bits };
    },
    prec,
    rnd,
  );
}

/** Integer square root (floor): from the root of the top half, then Newton from above. */
export function isqrt(n: bigint): bigint {
  if (n < 1n << 52n) {
    let root = BigInt(Math.floor(Math.sqrt(Number(n))));
    while (root * root > n) root -= 1n;
    while ((root + 1n) * (root + 1n) <= n) root += 1n;
    return root;
  }
  const shift = BigInt(Math.floor((bitLength(n) - 1) / 4));
  let x = (isqrt(n >> (2n * shift)) + 1n) << shift;
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) return x;
    x = y;
  }
}

/** `mpf_atan(x)`, correctly rounded. */
export function mpfAtan(x: Mpf, prec: number, rnd: MpRounding): Mpf {
  if (x === 'zero' || x === 'nan') return x;
  if (x === '+inf' || x === '-inf') {
    const half = mpfShift(mpfPi(prec, rnd), -1);
    return x === '+inf' ? half : mpfNeg(half);
  }
  checkPrecision(prec);
  const magnitude = x.exp + bitLength(x.man);
  // atan(x) ~ x for tiny x: work relative to x's own size.
  const tiny = magnitude < 0 ? -magnitude : 0;
  const halvings = Math.max(4, Math.floor(Math.sqrt(prec + tiny) / 2));
  return correctlyRounded(
    (guard) => {
      const bits = prec + tiny + guard + halvings + 16;
      const big = BigInt(bits);
      const one = 1n << big;
      // t = |x| in fixed point; for |x| > 1 use atan(x) = pi/2 - atan(1/x).
      const reciprocal = magnitude > 0;
      let t: bigint;
      if (!reciprocal) {
        t =
          x.exp + bits >= 0
            ? x.man << BigInt(x.exp + bits)
            : x.man >> BigInt(-(x.exp + bits));
      } else {
        // 1/|x| = 2^-exp / man
        const shift = bits - x.exp;
        t = shift >= 0 ? (1n << BigInt(shift)) / x.man : 0n;
      }
      // Halve the argument r times: atan(t) = 2 atan(t / (1 + sqrt(1 + t^2))).
      for (let i = 0; i < halvings; i++) {
        const root = isqrt(one * one + t * t);
        t = (t << big) / (one + root);
      }
      const tSquared = (t * t) >> big;
      let power = t;
      let series = 0n;
      let terms = 0n;
      let negative = false;
      for (let d = 1n; power > 0n; d += 2n) {
        series += negative ? -(power / d) : power / d;
        power = (power * tSquared) >> big;
        negative = !negative;
        terms += 1n;
      }
      let approx = series << BigInt(halvings);
      let error = (4n * terms + 64n) << BigInt(halvings);
      if (reciprocal) {
        approx = (piFixed(bits) >> 1n) - approx;
        error += 4n;
      }
      return { approx: x.sign ? -approx : approx, error, bits };
    },
    prec,
    rnd,
  );
}

/** `mpf_atan2(y, x)`, with mpmath's special cases and its intermediate roundings. */
export function mpfAtan2(y: Mpf, x: Mpf, prec: number, rnd: MpRounding): Mpf {
  if (!isFinite(y)) {
    if (y === 'zero' && x !== 'nan')
      return mpfSign(x) >= 0 ? 'zero' : mpfPi(prec, rnd);
    if (y === '+inf' || y === '-inf') {
      if (x === '+inf' || x === '-inf') return 'nan';
      const half = mpfShift(mpfPi(prec, rnd), -1);
      return y === '+inf' ? half : mpfNeg(half);
    }
    return 'nan';
  }
  if (y.sign === 1) return mpfNeg(mpfAtan2(mpfNeg(y), x, prec, rnd));
  if (!isFinite(x)) {
    if (x === 'nan') return 'nan';
    if (x === '+inf') return 'zero';
    if (x === '-inf') return mpfPi(prec, rnd);
    return mpfShift(mpfPi(prec, rnd), -1);
  }
  const quotient = mpfAtan(mpfDiv(y, x, prec + 4, 'd'), prec + 4, 'd');
  if (x.sign === 1) return mpfAdd(mpfPi(prec + 4, 'd'), quotient, prec, rnd);
  return mpfRound(quotient, prec, rnd);
}

/** `mpf_log_hypot(a, b)`: log(sqrt(a^2 + b^2)), as mpmath computes it. */
export function mpfLogHypot(
  a0: Mpf,
  b0: Mpf,
  prec: number,
  rnd: MpRounding,
): Mpf {
  let a = a0;
  let b = b0;
  if (!isFinite(b)) [a, b] = [b, a];
  if (!isFinite(a)) {
    if (!isFinite(b)) {
      if (a === 'zero' && b === 'zero') return '-inf';
      if (a === 'nan' || b === 'nan') return 'nan';
      return '+inf';
    }
    if (a === 'zero') return mpfLog(mpfAbs(b), prec, rnd);
    if (a === 'nan') return 'nan';
    return '+inf';
  }
  const extra = 20;
  const a2 = mpfMul(a, a, 0, 'n');
  const b2 = mpfMul(b, b, 0, 'n');
  let h2 = mpfAdd(a2, b2, prec + extra, 'd');
  const cancelled = mpfAdd(h2, mpfFromInt(-1n), 10, 'd');
  if (
    cancelled === 'zero' ||
    (isFinite(cancelled) &&
      cancelled.exp + bitLength(cancelled.man) < -extra / 2)
  ) {
    h2 = mpfAdd(a2, b2, 0, 'd');
  }
  return mpfShift(mpfLog(h2, prec, rnd), -1);
}

/** An mpmath number: real or complex. */
export type MpNumber = Mpf | Mpc;

export function isMpc(value: MpNumber): value is Mpc {
  return typeof value === 'object' && 're' in value;
}

/** `mp.ln(x)` at the context precision: a negative real gives an `mpc`. */
export function mpLog(x: MpNumber, prec: number): MpNumber {
  if (!isMpc(x)) {
    if (x !== '-inf' && !(isFinite(x) && x.sign === 1))
      return mpfLog(x, prec, 'n');
    return mpLog({ re: x, im: 'zero' }, prec);
  }
  return {
    re: mpfLogHypot(x.re, x.im, prec, 'n'),
    im: mpfAtan2(x.im, x.re, prec, 'n'),
  };
}

/** `a / b` on mpmath numbers at the context precision (`mpf_div`, `mpc_div_mpf`, `mpc_mpf_div`, `mpc_div`). */
export function mpDivide(a: MpNumber, b: MpNumber, prec: number): MpNumber {
  if (!isMpc(a) && !isMpc(b)) return mpfDiv(a, b, prec, 'n');
  if (isMpc(a) && !isMpc(b))
    return { re: mpfDiv(a.re, b, prec, 'n'), im: mpfDiv(a.im, b, prec, 'n') };
  if (!isMpc(a) && isMpc(b)) {
    const m = mpfAdd(
      mpfMul(b.re, b.re, 0, 'n'),
      mpfMul(b.im, b.im, 0, 'n'),
      prec + 10,
      'd',
    );
    return {
      re: mpfDiv(mpfMul(b.re, a, 0, 'n'), m, prec, 'n'),
      im: mpfDiv(mpfNeg(mpfMul(b.im, a, 0, 'n')), m, prec, 'n'),
    };
  }
  const { re: p, im: q } = a as Mpc;
  const { re: c, im: d } = b as Mpc;
  const wp = prec + 10;
  const magnitude = mpfAdd(mpfMul(c, c, 0, 'n'), mpfMul(d, d, 0, 'n'), wp, 'd');
  const t = mpfAdd(mpfMul(p, c, 0, 'n'), mpfMul(q, d, 0, 'n'), wp, 'd');
  const u = mpfAdd(mpfMul(q, c, 0, 'n'), mpfMul(p, d, 0, 'n'), wp, 'd', true);
  return {
    re: mpfDiv(t, magnitude, prec, 'n'),
    im: mpfDiv(u, magnitude, prec, 'n'),
  };
}

// ---------------------------------------------------------------------------
// Decimal text in and out.

/** Python's `round(x)` for a float: nearest int, ties to even. */
function pythonRound(x: number): number {
  if (!Number.isFinite(x)) {
    throw new PyException({
      pyType: 'OverflowError',
      message: 'cannot convert float infinity to integer',
    });
  }
  const floor = Math.floor(x);
  const diff = x - floor;
  if (diff > 0.5) return floor + 1;
  if (diff < 0.5) return floor;
  return floor % 2 === 0 ? floor : floor + 1;
}

/** `prec_to_dps(n)`. */
export function precToDps(prec: number): number {
  return Math.max(1, pythonRound(prec / log2Of10) - 1);
}

/** `repr_dps(prec)`: the digits `repr(mpf)` shows. */
export function reprDps(prec: number): number {
  const dps = precToDps(prec);
  return dps === 15 ? 17 : dps + 3;
}

/** `to_digits_exp(s, dps)`: truncated decimal digits and the decimal exponent. */
function toDigitsExp(
  value: MpfFinite,
  dps: number,
): { sign: string; digits: string; exponent: number } {
  const sign = value.sign ? '-' : '';
  let x: MpfFinite = { sign: 0, man: value.man, exp: value.exp };
  const bitprec = Math.trunc(dps * log2Of10) + 10;
  let exponent = 0;
  if (Math.abs(x.exp + bitLength(x.man)) > 3500) {
    // Far from 1: divide by a nearby power of ten first, as mpmath does
    // (b = int(exp * log(2) / log(10)) at a few bits).
    const expprec = bitLength(BigInt(Math.abs(x.exp))) + 5;
    const ln2 = mpfLog(mpfFromInt(2n), expprec, 'd');
    const ln10 = mpfLog(mpfFromInt(10n), expprec, 'd');
    const ratio = mpfDiv(
      mpfMul(mpfFromInt(BigInt(x.exp)), ln2, 0, 'n'),
      ln10,
      expprec,
      'd',
    ) as MpfFinite;
    const magnitude =
      ratio.exp >= 0
        ? ratio.man << BigInt(ratio.exp)
        : ratio.man >> BigInt(-ratio.exp);
    const b = ratio.sign ? -magnitude : magnitude;
    const ten: MpfFinite = { sign: 0, man: 5n, exp: 1 };
    x = mpfDiv(x, mpfPowInt(ten, b, bitprec, 'd'), bitprec, 'd') as MpfFinite;
    exponent = Number(b);
  }
  const bc = bitLength(x.man);
  const fixprec = Math.max(bitprec - x.exp - bc, 0);
  const fixdps = Math.trunc(fixprec / log2Of10 + 0.5);
  const offset = x.exp + fixprec;
  const fixed =
    offset >= 0 ? x.man << BigInt(offset) : x.man >> BigInt(-offset);
  const decimal = (fixed * 10n ** BigInt(fixdps)) >> BigInt(fixprec);
  const digits = decimal.toString();
  return { sign, digits, exponent: exponent + digits.length - fixdps - 1 };
}

/** `to_str(s, dps)`: mpmath's decimal text of a value with `dps` digits. */
export function mpfToStr(x: Mpf, dps: number): string {
  if (x === 'zero') return dps ? '0.0' : '.0';
  if (x === '+inf') return '+inf';
  if (x === '-inf') return '-inf';
  if (x === 'nan') return 'nan';
  const minFixed = Math.min(-Math.floor(dps / 3), -5);
  const maxFixed = dps;
  const converted = toDigitsExp(x, dps + 3);
  const sign = converted.sign;
  let digits = converted.digits;
  let exponent = converted.exponent;
  if (!dps) {
    if ('56789'.includes(digits[0]!)) exponent += 1;
    digits = '.0';
  } else {
    // Round half up on the truncated digits.
    if (digits.length > dps && '56789'.includes(digits[dps]!)) {
      digits = digits.slice(0, dps);
      let i = dps - 1;
      while (i >= 0 && digits[i] === '9') i -= 1;
      if (i >= 0) {
        digits =
          digits.slice(0, i) +
          String(Number(digits[i]) + 1) +
          '0'.repeat(dps - i - 1);
      } else {
        digits = '1' + '0'.repeat(dps - 1);
        exponent += 1;
      }
    } else {
      digits = digits.slice(0, dps);
    }
    let split: number;
    if (minFixed < exponent && exponent < maxFixed) {
      if (exponent < 0) {
        digits = '0'.repeat(-exponent) + digits;
        split = 1;
      } else {
        split = exponent + 1;
        if (split > dps) digits += '0'.repeat(split - dps);
      }
      exponent = 0;
    } else {
      split = 1;
    }
    digits = `${digits.slice(0, split)}.${digits.slice(split)}`;
    digits = digits.replace(/0+$/, '');
    if (digits.endsWith('.')) digits += '0';
  }
  if (exponent === 0 && dps) return sign + digits;
  if (exponent >= 0) return `${sign}${digits}e+${exponent}`;
  return `${sign}${digits}e${exponent}`;
}

/** Python's `str.strip()` whitespace (it includes the separators U+001C–U+001F). */
const pythonWhitespace =
  // eslint-disable-next-line no-control-regex -- Python strips these control characters too.
  /^[\s\u001c-\u001f\u0085]+|[\s\u001c-\u001f\u0085]+$/gu;

class ParseFailure extends Error {}

/** Runs a Python conversion; its ValueError becomes a {@link ParseFailure}. */
function orParseFailure<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (PyException.isInstance(error) && error.pyType === 'ValueError')
      throw new ParseFailure();
    throw error;
  }
}

/**
 * `from_str(text, prec, rnd)`: a decimal literal (Python float syntax),
 * `inf`/`nan`, or a fraction `p/q`. Throws {@link ParseFailure} where mpmath
 * raises ValueError.
 */
function mpfFromStr(text: string, prec: number, rnd: MpRounding): Mpf {
  const x = text.toLowerCase().replace(pythonWhitespace, '');
  if (x === 'inf' || x === '+inf') return '+inf';
  if (x === '-inf') return '-inf';
  if (x === 'nan') return 'nan';
  if (x.includes('/')) {
    const parts = x.split('/');
    if (parts.length !== 2) throw new ParseFailure();
    const p = orParseFailure(() => pyInt(parts[0]!.replace(/l+$/, '')));
    const q = orParseFailure(() => pyInt(parts[1]!.replace(/l+$/, '')));
    return mpfDiv(mpfFromInt(p), mpfFromInt(q), prec, rnd);
  }
  // str_to_man_exp: validate as a Python float literal, then split.
  let body = x.replace(/l+$/, '');
  orParseFailure(() => pyFloat(body));
  let exp = 0n;
  const eParts = body.split('e');
  if (eParts.length > 1) {
    if (eParts.length !== 2) throw new ParseFailure();
    body = eParts[0]!;
    exp = orParseFailure(() => pyInt(eParts[1]!));
  }
  const dotParts = body.split('.');
  if (dotParts.length === 2) {
    const fraction = dotParts[1]!.replace(/0+$/, '');
    exp -= BigInt(fraction.length);
    body = dotParts[0]! + fraction;
  }
  const man = orParseFailure(() => pyInt(body));
  if (exp > 400n || exp < -400n) {
    // Not correctly rounded in mpmath: the mantissa and a power of ten are
    // each cut to a few extra bits, then multiplied.
    if (exp > 1n << 40n || exp < -(1n << 40n)) throw memoryError();
    const ten: MpfFinite = { sign: 0, man: 5n, exp: 1 };
    const scaled = mpfRound(mpfFromInt(man), prec + 10, 'd');
    return mpfMul(scaled, mpfPowInt(ten, exp, prec + 10, 'd'), prec, rnd);
  }
  if (exp >= 0n) return mpfRound(mpfFromInt(man * 10n ** exp), prec, rnd);
  return mpfDiv(mpfFromInt(man), mpfFromInt(10n ** -exp), prec, rnd);
}

/** mpmath's pattern for complex literals (`get_complex`). */
const complexLiteral =
  /^\(?(?<re>[+-]?\d*(\.\d*)?(e[+-]?\d+)?)??(?<im>[+-]?\d*(\.\d*)?(e[+-]?\d+)?j)?\)?$/;

/**
 * `mp.convert(value)`: ints and floats exactly, strings rounded to the
 * context precision (complex literals included), anything else a TypeError.
 */
export function mpConvert(value: PyValue, prec: number): MpNumber {
  if (typeof value === 'boolean') return mpfFromInt(value ? 1n : 0n);
  if (typeof value === 'bigint') return mpfFromInt(value);
  if (typeof value === 'number') return mpfFromFloat(value);
  if (value instanceof PyMpf) return value.value;
  if (value instanceof PyMpc) return value.value;
  if (typeof value === 'string') {
    try {
      return mpfFromStr(value, prec, 'n');
    } catch (error) {
      if (!(error instanceof ParseFailure)) throw error;
    }
    // `_convert_fallback`: a string with a `j` is read as a complex literal.
    if (value.toLowerCase().includes('j')) {
      const text = value.toLowerCase().replace(/ /g, '');
      const match = complexLiteral.exec(text);
      if (!match) {
        throw PyException.attributeError(
          "'NoneType' object has no attribute 'group'",
        );
      }
      const re = match.groups?.['re'] ? match.groups['re'] : 0n;
      const im = (match.groups?.['im'] ?? '').replace(/j+$/, '');
      return { re: mpConvert(re, prec) as Mpf, im: mpConvert(im, prec) as Mpf };
    }
  }
  throw PyException.typeError(`cannot create mpf from ${pyRepr(value)}`);
}

// ---------------------------------------------------------------------------
// Python objects.

/**
 * mpmath's global context `mp`. BFCL sets `mp.dps` and never resets it, so
 * it lives in the realm (one Python process) and later calls see it.
 */
export class MpContext extends PyObject {
  readonly pyTypeName = 'MPContext';
  /** Working precision in bits (`mp.prec`). */
  prec = 53;
  /** Decimal digits (`mp.dps`). */
  dps = 15;

  pyRepr(): string {
    return `Mpmath settings:\n  mp.prec = ${this.prec}\n  mp.dps = ${this.dps}`;
  }

  /** `mp.dps = n`: `int(n)` digits, `dps_to_prec` bits; nothing changes if either fails. */
  setDps(n: PyValue): void {
    const digits = pyInt(n);
    const prec = Math.max(1, pythonRound(pyIntToFloat(digits + 1n) * log2Of10));
    this.prec = prec;
    this.dps = Math.max(1, Number(digits));
  }
}

/** An `mpf`: its repr follows the context's precision, like mpmath. */
export class PyMpf extends PyObject {
  readonly pyTypeName = 'mpf';
  readonly value: Mpf;
  private readonly context: MpContext;

  constructor(value: Mpf, context: MpContext) {
    super();
    this.value = value;
    this.context = context;
  }

  pyRepr(): string {
    return `mpf('${mpfToStr(this.value, reprDps(this.context.prec))}')`;
  }

  override pyStr(): string {
    return mpfToStr(this.value, this.context.dps);
  }

  override pyEquals(other: PyValue): boolean {
    if (other instanceof PyMpf)
      return this.value !== 'nan' && mpfEqual(this.value, other.value);
    if (typeof other === 'bigint' || typeof other === 'boolean') {
      return mpfEqual(
        this.value,
        mpfFromInt(typeof other === 'boolean' ? BigInt(other) : other),
      );
    }
    if (typeof other === 'number')
      return this.value !== 'nan' && mpfEqual(this.value, mpfFromFloat(other));
    return false;
  }
}

/** An `mpc`: `mpc(real='…', imag='…')`. */
export class PyMpc extends PyObject {
  readonly pyTypeName = 'mpc';
  readonly value: Mpc;
  private readonly context: MpContext;

  constructor(value: Mpc, context: MpContext) {
    super();
    this.value = value;
    this.context = context;
  }

  pyRepr(): string {
    const dps = reprDps(this.context.prec);
    return `mpc(real='${mpfToStr(this.value.re, dps)}', imag='${mpfToStr(this.value.im, dps)}')`;
  }

  override pyEquals(other: PyValue): boolean {
    if (other instanceof PyMpc) {
      return (
        mpfEqual(this.value.re, other.value.re) &&
        mpfEqual(this.value.im, other.value.im)
      );
    }
    return false;
  }
}

/** Wraps a result as the Python object mpmath returns. */
export function mpObject(value: MpNumber, context: MpContext): PyMpf | PyMpc {
  return isMpc(value) ? new PyMpc(value, context) : new PyMpf(value, context);
}
