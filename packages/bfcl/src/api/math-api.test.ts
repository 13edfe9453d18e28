import { PyDict } from '@seal/python';
import { describe, expect, it } from 'vitest';
import { BfclSession } from '../session/bfcl-session';
import {
  hasSharedBfclData,
  loadSharedBfclData,
  sharedDataSkipMessage,
} from '../test';
import { BfclRealm } from './bfcl-realm';
import { MpContext } from './math-mpmath';

// Every expected string below was produced by BFCL's own Python (gorilla
// cd9429cc, CPython 3.11, mpmath 1.3).

async function createSession(realm?: BfclRealm): Promise<BfclSession> {
  const dataset = await loadSharedBfclData();
  return new BfclSession({
    realm: realm ?? new BfclRealm({ data: dataset.runtime }),
    initialConfig: new PyDict(),
    involvedClasses: ['MathAPI'],
    longContext: false,
  });
}

const cases: Record<string, [string, string][]> = {
  logarithm: [
    ['logarithm(value=36.0, base=6.0, precision=4)', "{'result': mpf('2.0')}"],
    ['logarithm(value=20, base=10, precision=2)', "{'result': mpf('1.3027')}"],
    [
      'logarithm(value=3287.0, base=6.0, precision=0)',
      "{'result': mpf('5.0')}",
    ],
    [
      'logarithm(value=980.0, base=20, precision=-10)',
      "{'result': mpf('4.0')}",
    ],
    [
      'logarithm(value=3, base=7, precision=60)',
      "{'result': mpf('0.564575034053579613804550167174908536143227911186792595045409219')}",
    ],
    [
      'logarithm(value=1e-300, base=10, precision=20)',
      "{'result': mpf('-299.99999999999999998916')}",
    ],
    [
      'logarithm(value=-5, base=10, precision=5)',
      "{'result': mpc(real='0.69896984', imag='1.3643761')}",
    ],
    [
      'logarithm(value=5, base=-10, precision=5)',
      "{'result': mpc(real='0.24426484', imag='-0.3332696')}",
    ],
    [
      'logarithm(value=0, base=-1, precision=5)',
      "{'result': mpc(real='nan', imag='+inf')}",
    ],
    ['logarithm(value=630.0, base=1, precision=5)', '{"error": ""}'],
    ['logarithm(value=0, base=0, precision=5)', "{'result': mpf('nan')}"],
    ['logarithm(value=0.0, base=6.0, precision=4)', "{'result': mpf('-inf')}"],
    [
      "logarithm(value='2j', base=2, precision=5)",
      "{'result': mpc(real='1.0', imag='2.2661819')}",
    ],
    [
      "logarithm(value='1+1j', base='(1+2j)', precision=12)",
      "{'result': mpc(real='0.613044207862004', imag='0.132551934918069')}",
    ],
    [
      "logarithm(value='jump', base=2, precision=5)",
      '{"error": "\'NoneType\' object has no attribute \'group\'"}',
    ],
    [
      "logarithm(value='1/3', base=2, precision=5)",
      "{'result': mpf('-1.5849628')}",
    ],
    ["logarithm(value='1/0', base=2, precision=5)", '{"error": ""}'],
    [
      "logarithm(value='1e500', base=10, precision=30)",
      "{'result': mpf('500.00000000000000000000000000005')}",
    ],
    [
      'logarithm(value=980.0, base=[20], precision=10)',
      '{"error": "cannot create mpf from [20]"}',
    ],
    [
      'logarithm(value=36.0, base=6.0, precision=None)',
      '{"error": "int() argument must be a string, a bytes-like object or a real number, not \'NoneType\'"}',
    ],
    [
      "logarithm(value=2, base=8, precision='3.0')",
      '{"error": "invalid literal for int() with base 10: \'3.0\'"}',
    ],
    [
      'logarithm(value=2, base=8, precision=1e999)',
      '{"error": "cannot convert float infinity to integer"}',
    ],
    [
      'logarithm(value=2, base=8, precision=15)',
      "{'result': mpf('0.33333333333333337')}",
    ],
    [
      'logarithm(value=2, base=8, precision=16)',
      "{'result': mpf('0.3333333333333333356')}",
    ],
  ],
  square_root: [
    [
      'square_root(number=2, precision=10)',
      "{'result': Decimal('1.414213562')}",
    ],
    ['square_root(number=4, precision=10)', "{'result': Decimal('2')}"],
    [
      'square_root(number=10000000000, precision=3)',
      "{'result': Decimal('1.00E+5')}",
    ],
    ['square_root(number=0.25, precision=5)', "{'result': Decimal('0.5')}"],
    [
      'square_root(number=0.1, precision=30)',
      "{'result': Decimal('0.316227766016837941976973025885')}",
    ],
    ['square_root(number=99, precision=1)', "{'result': Decimal('1E+1')}"],
    ['square_root(number=-0.0, precision=5)', "{'result': Decimal('-0')}"],
    [
      'square_root(number=1e999, precision=5)',
      "{'result': Decimal('Infinity')}",
    ],
    [
      'square_root(number=-1, precision=5)',
      '{"error": "Cannot calculate square root of a negative number"}',
    ],
    [
      "square_root(number='4', precision=5)",
      '{"error": "Input must be a number or computation resulted in an invalid operation"}',
    ],
    [
      'square_root(number=2, precision=1.5)',
      '{"error": "Input must be a number or computation resulted in an invalid operation"}',
    ],
    [
      'square_root(number=2, precision=0)',
      'Error during execution: valid range for prec is [1, MAX_PREC]',
    ],
    [
      'square_root(number=2, precision=100000000000000000000)',
      'Error during execution: Python int too large to convert to C ssize_t',
    ],
    [
      'square_root(number=16, precision=999999999999999999)',
      "{'result': Decimal('4')}",
    ],
    [
      'square_root(number=2, precision=999999999999999999)',
      'Error during execution: ',
    ],
    [
      'square_root(number=1e-320, precision=5)',
      "{'result': Decimal('9.9999E-161')}",
    ],
  ],
  'statistics and min/max': [
    ['mean(numbers=[])', '{"error": "Cannot calculate mean of an empty list"}'],
    ['mean(numbers=[3, 16, 60])', '{"result": 26.333333333333332}'],
    [
      "mean(numbers=[1, 'a'])",
      '{"error": "All elements in the list must be numbers"}',
    ],
    [
      'mean(numbers=5)',
      '{"error": "All elements in the list must be numbers"}',
    ],
    ["mean(numbers={1: 'a', 2: 'b'})", '{"result": 1.5}'],
    [
      'mean(numbers=[10000000000000000000000000000001, 3])',
      '{"result": 5e+30}',
    ],
    [
      'standard_deviation(numbers=[100, 95, 85, 90, 88, 92])',
      '{"result": 4.85340659285368}',
    ],
    [
      'standard_deviation(numbers=[1e200, -1e200])',
      "Error during execution: (34, 'Numerical result out of range')",
    ],
    [
      'standard_deviation(numbers=[])',
      '{"error": "Cannot calculate standard deviation of an empty list"}',
    ],
    [
      'sum_values(numbers=[0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1])',
      '{"result": 0.9999999999999999}',
    ],
    [
      "sum_values(numbers='abc')",
      '{"error": "All elements in the list must be numbers"}',
    ],
    ["min_value(numbers='cab')", '{"result": "a"}'],
    ['max_value(numbers=[1, 1.0])', '{"result": 1}'],
    ['min_value(numbers=[[2], [1, 5]])', '{"result": [1, 5]}'],
    [
      'max_value(numbers=[1, None])',
      '{"error": "All elements in the list must be numbers"}',
    ],
    [
      'min_value(numbers=[])',
      '{"error": "Cannot find minimum of an empty list"}',
    ],
  ],
  round_number: [
    ['round_number(number=2.675, decimal_places=2)', '{"result": 2.67}'],
    ['round_number(number=0.5)', '{"result": 0.0}'],
    ['round_number(number=2.5, decimal_places=None)', '{"result": 2}'],
    ['round_number(number=1.5, decimal_places=0)', '{"result": 2.0}'],
    ['round_number(number=25, decimal_places=-1)', '{"result": 20}'],
    ['round_number(number=35, decimal_places=-1)', '{"result": 40}'],
    ['round_number(number=-0.0)', '{"result": -0.0}'],
    [
      'round_number(number=1e999, decimal_places=None)',
      'Error during execution: cannot convert float infinity to integer',
    ],
    [
      'round_number(number=1.7976931348623157e308, decimal_places=-308)',
      'Error during execution: rounded value too large to represent',
    ],
    [
      'round_number(number=3.7, decimal_places=1.0)',
      '{"error": "First input must be a number, second input must be an integer"}',
    ],
    [
      "round_number(number='3.7')",
      '{"error": "First input must be a number, second input must be an integer"}',
    ],
    ['round_number(number=True, decimal_places=3)', '{"result": 1}'],
  ],
  'arithmetic and conversions': [
    ["add(a='ab', b='c')", '{"result": "abc"}'],
    ['add(a=[1], b=[2])', '{"result": [1, 2]}'],
    ["add(a=1, b='c')", '{"error": "Both inputs must be numbers"}'],
    [
      'add(a=1000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000, b=0.5)',
      'Error during execution: int too large to convert to float',
    ],
    ['subtract(a=True, b=0.5)', '{"result": 0.5}'],
    ["multiply(a='ab', b=3)", '{"error": "Both inputs must be numbers"}'],
    ['multiply(a=3, b=2.5)', '{"result": 7.5}'],
    ['divide(a=1, b=0)', '{"error": "Cannot divide by zero"}'],
    ['divide(a=1, b=False)', '{"error": "Cannot divide by zero"}'],
    ['divide(a=1, b=3)', '{"result": 0.3333333333333333}'],
    ["divide(a='x', b=2)", '{"error": "Both inputs must be numbers"}'],
    ['power(base=2, exponent=10)', '{"result": 1024}'],
    ['power(base=2, exponent=-0.5)', '{"result": 0.7071067811865476}'],
    [
      'power(base=-8, exponent=0.3333333333333333)',
      "{'result': (1.0000000000000002+1.7320508075688772j)}",
    ],
    [
      'power(base=1e308, exponent=2)',
      "Error during execution: (34, 'Numerical result out of range')",
    ],
    [
      'power(base=0, exponent=-1)',
      'Error during execution: 0.0 cannot be raised to a negative power',
    ],
    [
      'power(base=10, exponent=5000)',
      'Error during execution: Exceeds the limit (4300 digits) for integer string conversion; use sys.set_int_max_str_digits() to increase the limit',
    ],
    ["power(base='2', exponent=2)", '{"error": "Both inputs must be numbers"}'],
    ['absolute_value(number=-3)', '{"result": 3}'],
    ["absolute_value(number='x')", '{"error": "Input must be a number"}'],
    ['percentage(part=1, whole=3)', '{"result": 33.33333333333333}'],
    [
      'percentage(part=1, whole=0.0)',
      '{"error": "Whole value cannot be zero"}',
    ],
    [
      "si_unit_conversion(value=5, unit_in='km', unit_out='m')",
      '{"result": 5000.0}',
    ],
    [
      "si_unit_conversion(value=5, unit_in='um', unit_out='nm')",
      '{"result": 4999.999999999999}',
    ],
    [
      "si_unit_conversion(value='5', unit_in='km', unit_out='m')",
      '{"error": "Value must be a number"}',
    ],
    [
      "si_unit_conversion(value=5, unit_in='km', unit_out='in')",
      '{"error": "Conversion from \'km\' to \'in\' is not supported"}',
    ],
    [
      "si_unit_conversion(value=1000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000, unit_in='cm', unit_out='m')",
      '{"error": "Conversion resulted in a value too large to represent"}',
    ],
    [
      "si_unit_conversion(value=5, unit_in=['km'], unit_out='m')",
      "Error during execution: unhashable type: 'list'",
    ],
    [
      "imperial_si_conversion(value=100, unit_in='celsius', unit_out='fahrenheit')",
      '{"result": 212.0}',
    ],
    [
      "imperial_si_conversion(value=100, unit_in='fahrenheit', unit_out='celsius')",
      '{"result": 37.77777777777778}',
    ],
    [
      "imperial_si_conversion(value=7, unit_in='kg', unit_out='kg')",
      '{"result": 7}',
    ],
    [
      "imperial_si_conversion(value=7, unit_in='kg', unit_out='oz')",
      '{"error": "Conversion from \'kg\' to \'oz\' is not supported"}',
    ],
    [
      "imperial_si_conversion(value=True, unit_in='kg', unit_out='lb')",
      '{"result": 2.20462}',
    ],
  ],
};

describe.skipIf(!hasSharedBfclData)('MathApi', () => {
  it.each(Object.entries(cases))(
    'should match Python for %s',
    async (_name, rows) => {
      const session = await createSession();
      const actual = rows.map(([call]) => [call, session.execute(call).result]);
      expect(actual).toEqual(rows);
    },
  );

  it('should keep mpmath precision in the realm, like a Python process', async () => {
    const dataset = await loadSharedBfclData();
    const realm = new BfclRealm({ data: dataset.runtime });
    const session = await createSession(realm);
    session.execute('logarithm(value=3, base=7, precision=60)');
    // A failing conversion after `mp.dps = 25` leaves dps at 25.
    expect(
      session.execute("logarithm(value=2, base='x', precision=25)").result,
    ).toBe('{"error": "cannot create mpf from \'x\'"}');
    const shared = realm.global('mpmath.mp', () => new MpContext());
    expect([shared.dps, shared.prec]).toEqual([25, 86]);
    const other = new BfclRealm({ data: dataset.runtime });
    expect(other.global('mpmath.mp', () => new MpContext()).dps).toBe(15);
  });

  it('should have no state to compare', async () => {
    const session = await createSession();
    expect(session.comparableState().get('MathAPI')).toEqual(new PyDict());
  });
});

describe.skipIf(hasSharedBfclData)('MathApi (shared BFCL data absent)', () => {
  it.skip(sharedDataSkipMessage, () => {});
});
