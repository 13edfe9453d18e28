import { between, chance, pick, pickSome, numberText } from '../draw';
import { defineIntent } from '../phrasing';
import { callText, int } from '../py-build';
import { resultField, type TaskFamily } from '../task-family';
import { supplyIntents } from './supply-intents';

const classes = ['MathAPI'] as const;

const addNumbers = defineIntent('math.add', [
  'What is {a} plus {b}?',
  'Add {a} and {b}.',
  'Compute the sum of {a} and {b}.',
  'Quick question: {a} + {b} comes to what?',
]);
const multiplyPrevious = defineIntent('math.multiply-previous', [
  'Multiply that by {c}.',
  'Now times {c}.',
  'Take the result and multiply it by {c}.',
  'Scale the answer by a factor of {c}.',
]);
const multiplyPreviousNoFactor = defineIntent(
  'math.multiply-previous.no-factor',
  [
    'Multiply that by another number.',
    'Now multiply the result by something.',
    'Take the result and multiply it.',
    'Scale the answer by a factor.',
  ],
);

/** Add two numbers, then multiply the sum (copied from the result). */
export const addMultiplyFamily: TaskFamily = {
  id: 'math.add-multiply',
  longContext: false,
  classes,
  difficulty: 'medium',
  pool: 'in-distribution',
  summary: 'Add two integers, then multiply the sum by a third.',
  intents: [
    addNumbers,
    multiplyPrevious,
    multiplyPreviousNoFactor,
    supplyIntents.number,
  ],
  build(context) {
    const { random } = context;
    const a = between(random, 10, 999);
    const b = between(random, 10, 999);
    const c = between(random, 2, 19);
    const draft = context.begin({});
    draft.turn({
      request: context.phrase(addNumbers, { a: String(a), b: String(b) }),
      calls: [callText('add', { a: int(a), b: int(b) })],
    });
    draft.turn({
      request: context.phrase(multiplyPrevious, { c: String(c) }),
      calls: [callText('multiply', { a: int(a + b), b: int(c) })],
      missing: {
        request: context.phrase(multiplyPreviousNoFactor, {}),
        supply: context.phrase(supplyIntents.number, { value: String(c) }),
        slot: 'factor',
        withheld: [String(c)],
      },
    });
    return draft.finish();
  },
};

const meanOf = defineIntent('math.mean', [
  'What is the average of {numbers}?',
  'Compute the mean of {numbers}.',
  'Find the mean value of {numbers}.',
  'Average these out for me: {numbers}.',
]);
const meanOfNothing = defineIntent('math.mean.no-numbers', [
  'What is the average of my numbers?',
  'Compute a mean for me.',
  'Find the mean value of a list.',
  'Average some numbers out for me.',
]);
const maxOf = defineIntent('math.max', [
  'Which of them is the largest?',
  'And what is the maximum?',
  'What is the biggest of those numbers?',
  'Tell me the top value among them.',
]);
const minOf = defineIntent('math.min', [
  'And the smallest one?',
  'What is the minimum?',
  'Which of them is the lowest?',
  'Tell me the bottom value too.',
]);

/** Statistics over one list of numbers given in the request. */
export const statsFamily: TaskFamily = {
  id: 'math.stats',
  longContext: false,
  classes,
  difficulty: 'medium',
  pool: 'in-distribution',
  summary: 'Mean, then maximum and maybe minimum, of a list of integers.',
  intents: [meanOf, meanOfNothing, maxOf, minOf, supplyIntents.numbers],
  build(context) {
    const { random } = context;
    const count = between(random, 3, 5);
    const numbers = Array.from({ length: count }, () => between(random, 1, 99));
    const values = numbers.map(int);
    const listed = numbers.join(', ');
    const withMin = chance(random, 0.5);
    const draft = context.begin({});
    draft.turn({
      request: context.phrase(meanOf, { numbers: listed }),
      calls: [callText('mean', { numbers: values })],
      missing: {
        request: context.phrase(meanOfNothing, {}),
        supply: context.phrase(supplyIntents.numbers, { value: listed }),
        slot: 'numbers',
        withheld: [listed],
      },
    });
    draft.turn({
      request: context.phrase(maxOf, {}),
      calls: [callText('max_value', { numbers: values })],
    });
    if (withMin)
      draft.turn({
        request: context.phrase(minOf, {}),
        calls: [callText('min_value', { numbers: values })],
      });
    return draft.finish();
  },
};

const percentOf = defineIntent('math.percentage', [
  'What percent of {whole} is {part}?',
  'Express {part} as a percentage of {whole}.',
  'How many percent is {part} out of {whole}?',
  'Give me {part} over {whole} in percent.',
]);
const percentOfNoWhole = defineIntent('math.percentage.no-whole', [
  'What percent of the total is {part}?',
  'Express {part} as a percentage.',
  'How many percent is {part} out of the whole?',
  'Give me {part} over the total in percent.',
]);
const roundPrevious = defineIntent('math.round-previous', [
  'Round that to {places} decimal places.',
  'Round the result to {places} decimals.',
  'Now round it to {places} digits after the point.',
  'Keep only {places} decimals of that answer.',
]);

/** A percentage, then the result rounded (copied from the result). */
export const percentageFamily: TaskFamily = {
  id: 'math.percentage',
  longContext: false,
  classes,
  difficulty: 'medium',
  pool: 'in-distribution',
  summary: 'What percent one number is of another, then round the answer.',
  intents: [percentOf, percentOfNoWhole, roundPrevious, supplyIntents.number],
  build(context) {
    const { random } = context;
    const whole = pick(
      random,
      [8, 12, 16, 30, 40, 60, 80, 120, 160, 300, 400, 600],
    );
    const part = between(random, 1, whole - 1);
    const places = between(random, 0, 2);
    const draft = context.begin({});
    const [result] = draft.turn({
      request: context.phrase(percentOf, {
        part: String(part),
        whole: String(whole),
      }),
      calls: [callText('percentage', { part: int(part), whole: int(whole) })],
      missing: {
        request: context.phrase(percentOfNoWhole, { part: String(part) }),
        supply: context.phrase(supplyIntents.number, { value: String(whole) }),
        slot: 'whole',
        withheld: [String(whole)],
      },
    });
    const percent = resultField(result!, 'result') as number;
    draft.turn({
      request: context.phrase(roundPrevious, { places: String(places) }),
      calls: [
        callText('round_number', {
          number: percent,
          decimal_places: int(places),
        }),
      ],
    });
    return draft.finish();
  },
};

const conversions = [
  { from: 'km', to: 'miles' },
  { from: 'miles', to: 'km' },
  { from: 'kg', to: 'lb' },
  { from: 'lb', to: 'kg' },
  { from: 'm', to: 'ft' },
  { from: 'ft', to: 'm' },
  { from: 'celsius', to: 'fahrenheit' },
  { from: 'in', to: 'cm' },
] as const;

const convertUnits = defineIntent('math.convert', [
  'Convert {value} {from} to {to}.',
  'How many {to} is {value} {from}?',
  'Express {value} {from} in {to}.',
  'I have {value} {from}; what is that in {to}?',
]);
const convertUnitsNoTarget = defineIntent('math.convert.no-target', [
  'Convert {value} {from} to another unit.',
  'How much is {value} {from} in other units?',
  'Express {value} {from} differently.',
  'I have {value} {from}; what is that in the other unit?',
]);
const convertAgain = defineIntent('math.convert-again', [
  'And {value} {from} to {to}?',
  'Also convert {value} {from} to {to}.',
  'Do the same for {value} {from} into {to}.',
  'One more: {value} {from} in {to}, please.',
]);

/** One or two unit conversions, all values in the requests. */
export const convertFamily: TaskFamily = {
  id: 'math.convert',
  longContext: false,
  classes,
  difficulty: 'easy',
  pool: 'in-distribution',
  summary:
    'Convert a quantity between imperial and metric units, maybe a second one too.',
  intents: [
    convertUnits,
    convertUnitsNoTarget,
    convertAgain,
    supplyIntents.unit,
  ],
  build(context) {
    const { random } = context;
    const [first, second] = pickSome(random, conversions, 2);
    const value = between(random, 2, 250);
    const again = chance(random, 0.4);
    const secondValue = between(random, 2, 250);
    const draft = context.begin({});
    draft.turn({
      request: context.phrase(convertUnits, {
        value: String(value),
        from: first!.from,
        to: first!.to,
      }),
      calls: [
        callText('imperial_si_conversion', {
          value: int(value),
          unit_in: first!.from,
          unit_out: first!.to,
        }),
      ],
      missing: {
        request: context.phrase(convertUnitsNoTarget, {
          value: String(value),
          from: first!.from,
        }),
        supply: context.phrase(supplyIntents.unit, { value: first!.to }),
        slot: 'target unit',
        withheld: [first!.to],
      },
    });
    if (again) {
      draft.turn({
        request: context.phrase(convertAgain, {
          value: numberText(int(secondValue)),
          from: second!.from,
          to: second!.to,
        }),
        calls: [
          callText('imperial_si_conversion', {
            value: int(secondValue),
            unit_in: second!.from,
            unit_out: second!.to,
          }),
        ],
      });
    }
    return draft.finish();
  },
};

/** The MathAPI families. */
export const mathFamilies: readonly TaskFamily[] = [
  addMultiplyFamily,
  statsFamily,
  percentageFamily,
  convertFamily,
];
