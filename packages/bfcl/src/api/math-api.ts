import {
  PyDict,
  PyException,
  pyAbs,
  pyAdd,
  pyContains,
  pyEquals,
  pyFormatValue,
  pyGt,
  pyIter,
  pyLen,
  pyLt,
  pyMul,
  pyPow,
  pySub,
  pyTrueDiv,
  pyTruthy as truthy,
  type PyValue,
} from '@seal/python';
import * as z from 'zod';
import { errorResult as error, pyDict as dict } from './api-helpers';
import {
  BfclApi,
  type BfclClassDefinition,
  type BfclMethodTable,
} from './bfcl-api';
import type { BfclRealm } from './bfcl-realm';
import {
  DecimalContext,
  PyDecimal,
  decimalFrom,
  decimalSqrt,
} from './math-decimal';
import { mathSqrt, pyExtreme, pyRoundBuiltin, pySum } from './math-builtins';
import { MpContext, mpConvert, mpDivide, mpLog, mpObject } from './math-mpmath';
import type { BfclToolSpecs } from './tool-spec';

/** Runs `body`; a Python exception of type `pyType` becomes `fallback()` (a `try/except`). */
function excepting(
  pyType: string | readonly string[],
  body: () => PyValue,
  fallback: (error: PyException) => PyValue,
): PyValue {
  try {
    return body();
  } catch (caught) {
    const types = typeof pyType === 'string' ? [pyType] : pyType;
    if (
      PyException.isInstance(caught) &&
      (types.includes(caught.pyType) || types.includes('Exception'))
    ) {
      return fallback(caught);
    }
    throw caught;
  }
}

/** `isinstance(value, (int, float))` (bool is an int). */
function isRealNumber(value: PyValue): boolean {
  return (
    typeof value === 'bigint' ||
    typeof value === 'number' ||
    typeof value === 'boolean'
  );
}

const notNumbers = 'All elements in the list must be numbers';
const bothNumbers = 'Both inputs must be numbers';

/** Metres per unit (`si_unit_conversion`); ints stay ints, as in BFCL's table. */
const toMeters: readonly (readonly [string, bigint | number])[] = [
  ['km', 1000n],
  ['m', 1n],
  ['cm', 0.01],
  ['mm', 0.001],
  ['um', 1e-6],
  ['nm', 1e-9],
];

/** Factors of `imperial_si_conversion`, by `"<in>_to_<out>"`. */
const imperialFactors = new Map<string, number>([
  ['cm_to_in', 0.393701],
  ['in_to_cm', 2.54],
  ['m_to_ft', 3.28084],
  ['ft_to_m', 0.3048],
  ['m_to_yd', 1.09361],
  ['yd_to_m', 0.9144],
  ['km_to_miles', 0.621371],
  ['miles_to_km', 1.60934],
  ['kg_to_lb', 2.20462],
  ['lb_to_kg', 0.453592],
  ['celsius_to_fahrenheit', 1.8],
  ['fahrenheit_to_celsius', 5 / 9],
]);

/**
 * BFCL's `MathAPI`: stateless arithmetic, statistics and unit conversions.
 * Results keep Python's numeric types (int vs float), its float formatting,
 * and the `mpf`/`Decimal` objects of `logarithm`/`square_root`. The mpmath
 * and decimal precisions are process-global in Python, so they live in the
 * realm: a later call sees what an earlier one set.
 */
export class MathApi extends BfclApi {
  readonly className = 'MathAPI' as const;
  protected readonly attributeNames: readonly string[] = [];

  constructor(realm: BfclRealm) {
    super(realm);
  }

  /** BFCL never loads a scenario into MathAPI (a stateless class). */
  loadScenario(): void {}

  /** mpmath's global `mp` context of this realm. */
  private mpContext(): MpContext {
    return this.realm.global('mpmath.mp', () => new MpContext());
  }

  /** The `decimal` module's current context of this realm. */
  private decimalContext(): DecimalContext {
    return this.realm.global('decimal.context', () => new DecimalContext());
  }

  static readonly methods: BfclMethodTable<MathApi> = {
    logarithm: {
      parameters: [{ name: 'value' }, { name: 'base' }, { name: 'precision' }],
      call(self, [value, base, precision]) {
        const context = self.mpContext();
        // Any exception becomes {"error": str(e)}, like BFCL's `except Exception`.
        return excepting(
          'Exception',
          () => {
            context.setDps(precision!);
            const logValue = mpLog(
              mpConvert(value!, context.prec),
              context.prec,
            );
            const logBase = mpLog(mpConvert(base!, context.prec), context.prec);
            return dict({
              result: mpObject(
                mpDivide(logValue, logBase, context.prec),
                context,
              ),
            });
          },
          (caught) => error(caught.message),
        );
      },
    },
    mean: {
      parameters: [{ name: 'numbers' }],
      call(_self, [numbers]) {
        if (!truthy(numbers!))
          return error('Cannot calculate mean of an empty list');
        return excepting(
          'TypeError',
          () => dict({ result: pyTrueDiv(pySum(numbers!), pyLen(numbers!)) }),
          () => error(notNumbers),
        );
      },
    },
    standard_deviation: {
      parameters: [{ name: 'numbers' }],
      call(_self, [numbers]) {
        if (!truthy(numbers!))
          return error('Cannot calculate standard deviation of an empty list');
        return excepting(
          'TypeError',
          () => {
            const count = pyLen(numbers!);
            const mean = pyTrueDiv(pySum(numbers!), count);
            const squares = pyIter(numbers!).map((x) =>
              pyPow(pySub(x, mean), 2n),
            );
            const variance = pyTrueDiv(pySum(squares), count);
            return dict({ result: mathSqrt(variance) });
          },
          () => error(notNumbers),
        );
      },
    },
    si_unit_conversion: {
      parameters: [
        { name: 'value' },
        { name: 'unit_in' },
        { name: 'unit_out' },
      ],
      call(_self, [value, unitIn, unitOut]) {
        if (!isRealNumber(value!)) return error('Value must be a number');
        const factors = new PyDict(toMeters);
        const inverse = new PyDict(
          toMeters.map(([unit, factor]) => [unit, pyTrueDiv(1n, factor)]),
        );
        if (!pyContains(factors, unitIn!) || !pyContains(inverse, unitOut!)) {
          return error(
            `Conversion from '${pyFormatValue(unitIn!)}' to '${pyFormatValue(unitOut!)}' is not supported`,
          );
        }
        return excepting(
          'OverflowError',
          () => {
            const meters = pyMul(value!, factors.get(unitIn as string)!);
            return dict({
              result: pyMul(meters, inverse.get(unitOut as string)!),
            });
          },
          () => error('Conversion resulted in a value too large to represent'),
        );
      },
    },
    imperial_si_conversion: {
      parameters: [
        { name: 'value' },
        { name: 'unit_in' },
        { name: 'unit_out' },
      ],
      call(_self, [value, unitIn, unitOut]) {
        if (!isRealNumber(value!)) return error('Value must be a number');
        if (pyEquals(unitIn!, unitOut!)) return dict({ result: value! });
        const key = `${pyFormatValue(unitIn!)}_to_${pyFormatValue(unitOut!)}`;
        const factor = imperialFactors.get(key);
        if (factor === undefined) {
          return error(
            `Conversion from '${pyFormatValue(unitIn!)}' to '${pyFormatValue(unitOut!)}' is not supported`,
          );
        }
        return excepting(
          'OverflowError',
          () => {
            if (
              pyEquals(unitIn!, 'celsius') &&
              pyEquals(unitOut!, 'fahrenheit')
            ) {
              return dict({ result: pyAdd(pyMul(value!, factor), 32n) });
            }
            if (
              pyEquals(unitIn!, 'fahrenheit') &&
              pyEquals(unitOut!, 'celsius')
            ) {
              return dict({ result: pyMul(pySub(value!, 32n), factor) });
            }
            return dict({ result: pyMul(value!, factor) });
          },
          () => error('Conversion resulted in a value too large to represent'),
        );
      },
    },
    add: {
      parameters: [{ name: 'a' }, { name: 'b' }],
      call(_self, [a, b]) {
        // Any operands Python can add: strings and lists concatenate.
        return excepting(
          'TypeError',
          () => dict({ result: pyAdd(a!, b!) }),
          () => error(bothNumbers),
        );
      },
    },
    subtract: {
      parameters: [{ name: 'a' }, { name: 'b' }],
      call(_self, [a, b]) {
        return excepting(
          'TypeError',
          () => dict({ result: pySub(a!, b!) }),
          () => error(bothNumbers),
        );
      },
    },
    multiply: {
      parameters: [{ name: 'a' }, { name: 'b' }],
      call(_self, [a, b]) {
        if (!isRealNumber(a!) || !isRealNumber(b!)) return error(bothNumbers);
        return excepting(
          'TypeError',
          () => dict({ result: pyMul(a!, b!) }),
          () => error(bothNumbers),
        );
      },
    },
    divide: {
      parameters: [{ name: 'a' }, { name: 'b' }],
      call(_self, [a, b]) {
        return excepting(
          'TypeError',
          () => {
            if (pyEquals(b!, 0n)) return error('Cannot divide by zero');
            return dict({ result: pyTrueDiv(a!, b!) });
          },
          () => error(bothNumbers),
        );
      },
    },
    power: {
      parameters: [{ name: 'base' }, { name: 'exponent' }],
      call(_self, [base, exponent]) {
        return excepting(
          'TypeError',
          () => dict({ result: pyPow(base!, exponent!) }),
          () => error(bothNumbers),
        );
      },
    },
    square_root: {
      parameters: [{ name: 'number' }, { name: 'precision' }],
      call(self, [number, precision]) {
        return excepting(
          ['TypeError', 'InvalidOperation'],
          () => {
            if (pyLt(number!, 0n))
              return error('Cannot calculate square root of a negative number');
            const context = self.decimalContext();
            context.setPrec(precision!);
            const decimal = decimalFrom(number as bigint | number | boolean);
            return dict({
              result: new PyDecimal(decimalSqrt(decimal, context.prec)),
            });
          },
          () =>
            error(
              'Input must be a number or computation resulted in an invalid operation',
            ),
        );
      },
    },
    absolute_value: {
      parameters: [{ name: 'number' }],
      call(_self, [number]) {
        return excepting(
          'TypeError',
          () => dict({ result: pyAbs(number!) }),
          () => error('Input must be a number'),
        );
      },
    },
    round_number: {
      parameters: [{ name: 'number' }, { name: 'decimal_places', default: 0n }],
      call(_self, [number, decimalPlaces]) {
        return excepting(
          'TypeError',
          () => dict({ result: pyRoundBuiltin(number!, decimalPlaces!) }),
          () =>
            error(
              'First input must be a number, second input must be an integer',
            ),
        );
      },
    },
    percentage: {
      parameters: [{ name: 'part' }, { name: 'whole' }],
      call(_self, [part, whole]) {
        return excepting(
          'TypeError',
          () => {
            if (pyEquals(whole!, 0n))
              return error('Whole value cannot be zero');
            return dict({ result: pyMul(pyTrueDiv(part!, whole!), 100n) });
          },
          () => error(bothNumbers),
        );
      },
    },
    min_value: {
      parameters: [{ name: 'numbers' }],
      call(_self, [numbers]) {
        if (!truthy(numbers!))
          return error('Cannot find minimum of an empty list');
        return excepting(
          'TypeError',
          () => dict({ result: pyExtreme(numbers!, pyLt) }),
          () => error(notNumbers),
        );
      },
    },
    max_value: {
      parameters: [{ name: 'numbers' }],
      call(_self, [numbers]) {
        if (!truthy(numbers!))
          return error('Cannot find maximum of an empty list');
        return excepting(
          'TypeError',
          () => dict({ result: pyExtreme(numbers!, pyGt) }),
          () => error(notNumbers),
        );
      },
    },
    sum_values: {
      parameters: [{ name: 'numbers' }],
      call(_self, [numbers]) {
        if (!truthy(numbers!))
          return error('Cannot calculate sum of an empty list');
        return excepting(
          'TypeError',
          () => dict({ result: pySum(numbers!) }),
          () => error(notNumbers),
        );
      },
    },
  };
}

const number = (what: string) => z.number().describe(what);
const numberList = (what: string) => z.array(z.number()).describe(what);

/** Our descriptions and argument schemas of the MathAPI methods. */
export const mathApiTools: BfclToolSpecs = {
  logarithm: {
    description:
      'Logarithm of a value to any base, computed with a chosen number of significant digits.',
    parameters: z.object({
      value: number('The number whose logarithm is wanted.'),
      base: number('Base of the logarithm.'),
      precision: z
        .int()
        .describe('Significant decimal digits to compute with.'),
    }),
  },
  mean: {
    description: 'Arithmetic average of a list of numbers.',
    parameters: z.object({ numbers: numberList('The values to average.') }),
  },
  standard_deviation: {
    description: 'Population standard deviation of a list of numbers.',
    parameters: z.object({
      numbers: numberList('The values to measure the spread of.'),
    }),
  },
  si_unit_conversion: {
    description:
      'Convert a length between metric units: km, m, cm, mm, um and nm.',
    parameters: z.object({
      value: number('The length to convert.'),
      unit_in: z.string().describe('Unit of the given length.'),
      unit_out: z.string().describe('Unit wanted.'),
    }),
  },
  imperial_si_conversion: {
    description:
      'Convert between imperial and metric units (cm/in, m/ft, m/yd, km/miles, kg/lb) or between celsius and fahrenheit.',
    parameters: z.object({
      value: number('The quantity to convert.'),
      unit_in: z.string().describe('Unit of the given quantity.'),
      unit_out: z.string().describe('Unit wanted.'),
    }),
  },
  add: {
    description: 'Sum of two numbers.',
    parameters: z.object({
      a: number('First addend.'),
      b: number('Second addend.'),
    }),
  },
  subtract: {
    description: 'Difference a minus b.',
    parameters: z.object({
      a: number('The number to take from.'),
      b: number('The number taken away.'),
    }),
  },
  multiply: {
    description: 'Product of two numbers.',
    parameters: z.object({
      a: number('First factor.'),
      b: number('Second factor.'),
    }),
  },
  divide: {
    description: 'Quotient a divided by b; b must not be zero.',
    parameters: z.object({ a: number('Dividend.'), b: number('Divisor.') }),
  },
  power: {
    description: 'A base raised to an exponent.',
    parameters: z.object({
      base: number('The base.'),
      exponent: number('The exponent.'),
    }),
  },
  square_root: {
    description:
      'Square root of a non-negative number, computed to a chosen number of significant digits.',
    parameters: z.object({
      number: number('The number to take the root of.'),
      precision: z.int().describe('Significant decimal digits of the result.'),
    }),
  },
  absolute_value: {
    description: 'Magnitude of a number, without its sign.',
    parameters: z.object({ number: number('The number.') }),
  },
  round_number: {
    description:
      'Round a number to a number of decimal places, halves going to the even neighbour.',
    parameters: z.object({
      number: number('The number to round.'),
      decimal_places: z
        .int()
        .default(0)
        .describe('Decimal places to keep. Default: 0.'),
    }),
  },
  percentage: {
    description:
      'What percent one number (the part) is of another (the whole).',
    parameters: z.object({
      part: number('The portion.'),
      whole: number('The total; must not be zero.'),
    }),
  },
  min_value: {
    description: 'Smallest value in a list of numbers.',
    parameters: z.object({ numbers: numberList('The values to search.') }),
  },
  max_value: {
    description: 'Largest value in a list of numbers.',
    parameters: z.object({ numbers: numberList('The values to search.') }),
  },
  sum_values: {
    description: 'Total of a list of numbers.',
    parameters: z.object({ numbers: numberList('The values to add up.') }),
  },
};

/** Registry entry for {@link MathApi}. */
export const mathApiDefinition: BfclClassDefinition = {
  className: 'MathAPI',
  create: (realm) => new MathApi(realm),
  methods: MathApi.methods as BfclMethodTable<never>,
  stateless: true,
  description:
    'A calculator: arithmetic, logarithms and roots at chosen precision, statistics and unit conversions.',
  tools: mathApiTools,
};
