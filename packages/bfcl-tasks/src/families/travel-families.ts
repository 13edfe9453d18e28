import type { PyRandom } from '@seal/python';
import {
  travelCityAirports,
  travelExchangeRates,
  travelRoutes,
  type TravelRoute,
} from '@seal/bfcl';
import {
  between,
  chance,
  distractors,
  isoDate,
  money,
  pick,
  pickSome,
} from '../draw';
import { defineIntent } from '../phrasing';
import { callText, int } from '../py-build';
import { travelState, type Booking, type Card } from '../states';
import {
  resultField,
  type FamilyContext,
  type TaskDraftBuilder,
  type TaskFamily,
} from '../task-family';
import { firstNames, lastNames } from '../word-lists';
import { supplyIntents } from './supply-intents';

const classes = ['TravelAPI'] as const;

/** Cabin classes a generated request may name. */
const cabinClasses = ['economy', 'business', 'first'] as const;

/** Routes whose origin is a city `get_nearest_airport_by_city` knows. */
const cityRoutes: readonly (TravelRoute & { city: string })[] =
  travelRoutes.flatMap((route) =>
    [...travelCityAirports]
      .filter(([, code]) => code === route.from)
      .map(([city]) => ({ ...route, city })),
  );

/** A route of BFCL's table (both airports are in `list_all_airports`). */
export function pickRoute(random: PyRandom): TravelRoute {
  return pick(random, travelRoutes);
}

/** The traveller and a fresh login token (six digits, as `authenticate_travel` makes them). */
export function traveller(random: PyRandom): {
  firstName: string;
  lastName: string;
  token: string;
} {
  return {
    firstName: pick(random, firstNames),
    lastName: pick(random, lastNames),
    token: String(between(random, 100_000, 999_999)),
  };
}

/**
 * A draft over a fresh traveller's TravelAPI state: not logged in, no
 * bookings, a few cards of their own.
 */
export function beginTravellerDraft(context: FamilyContext): TaskDraftBuilder {
  const { random } = context;
  const person = traveller(random);
  return context.begin({
    TravelAPI: travelState({
      cards: noiseCards(context, `${person.firstName} ${person.lastName}`),
      bookings: [],
      ...person,
      token: null,
      seed: random.randint(1, 999_999),
    }),
  });
}

/** A registered card with a balance in `[low, high]`. */
function card(
  random: PyRandom,
  holder: string,
  [low, high]: [number, number],
): Card {
  return {
    id: String(random.randint(100_000_000_000n, 999_999_999_999n)),
    number: String(
      random.randint(4_000_000_000_000_000n, 4_999_999_999_999_999n),
    ),
    expiration: `${String(between(random, 1, 12)).padStart(2, '0')}/${between(random, 2026, 2030)}`,
    holder,
    verification: between(random, 100, 999),
    balance: money(random, low, high),
  };
}

/** Distractor cards (noise stream); `long` overrides how many the long form adds. */
export function noiseCards(
  context: FamilyContext,
  holder: string,
  long: [number, number] = [4, 6],
): Card[] {
  const count = distractors(context, { base: [0, 1], long });
  return Array.from({ length: count }, () =>
    card(context.noise, holder, [500, 9000]),
  );
}

/** A past booking paid with `cardId` (random unless given). */
function booking(random: PyRandom, cardId: string): Booking {
  const route = pickRoute(random);
  const travelClass = pick(random, cabinClasses);
  return {
    id: String(between(random, 1_000_000, 9_999_999)),
    cardId,
    date: isoDate(random),
    from: route.from,
    to: route.to,
    travelClass,
    cost:
      route.baseCost *
      (travelClass === 'economy' ? 1 : travelClass === 'business' ? 2 : 5),
    transactionId: String(between(random, 10_000_000, 99_999_999)),
  };
}

/** Distractor bookings on the given cards (noise stream). */
function noiseBookings(
  context: FamilyContext,
  cards: readonly Card[],
  avoid: ReadonlySet<string>,
): Booking[] {
  if (cards.length === 0) return [];
  const count = distractors(context, { base: [0, 1], long: [4, 6] });
  const out: Booking[] = [];
  while (out.length < count) {
    const next = booking(context.noise, pick(context.noise, cards).id);
    if (!avoid.has(next.id) && !out.some((other) => other.id === next.id))
      out.push(next);
  }
  return out;
}

const nearestAirport = defineIntent('travel.nearest-airport', [
  'What is the nearest airport to {city}?',
  'Which airport serves {city}?',
  'Find the airport closest to {city}.',
  'I am based in {city}; where do I fly from?',
]);
const quoteFare = defineIntent('travel.quote', [
  'How much is a {cabin} flight from there to {to} on {date}?',
  'Quote a {cabin} fare from that airport to {to} for {date}.',
  'Get the {cabin} price from there to {to} on {date}.',
  'Price out {cabin} from that airport to {to}, flying {date}.',
]);
const quoteFareNoDate = defineIntent('travel.quote.no-date', [
  'How much is a {cabin} flight from there to {to}?',
  'Quote a {cabin} fare from that airport to {to}.',
  'Get the {cabin} price from there to {to}.',
  'Price out {cabin} from that airport to {to}.',
]);

/** Find a city's airport, then quote a fare from it (code copied from the result). */
export const quoteFamily: TaskFamily = {
  id: 'travel.quote',
  longContext: false,
  classes,
  difficulty: 'medium',
  pool: 'in-distribution',
  summary: "Find a city's airport and quote a fare from it to another airport.",
  intents: [nearestAirport, quoteFare, quoteFareNoDate, supplyIntents.date],
  build(context) {
    const { random } = context;
    const route = pick(random, cityRoutes);
    const cabin = pick(random, cabinClasses);
    const date = isoDate(random);
    const person = traveller(random);
    const holder = `${person.firstName} ${person.lastName}`;
    const cards = noiseCards(context, holder);
    const draft = context.begin({
      TravelAPI: travelState({
        cards,
        bookings: noiseBookings(context, cards, new Set()),
        ...person,
        token: null,
        seed: random.randint(1, 999_999),
      }),
    });
    draft.turn({
      request: context.phrase(nearestAirport, { city: route.city }),
      calls: [
        callText('get_nearest_airport_by_city', { location: route.city }),
      ],
    });
    draft.turn({
      request: context.phrase(quoteFare, { cabin, to: route.to, date }),
      calls: [
        callText('get_flight_cost', {
          travel_from: route.from,
          travel_to: route.to,
          travel_date: date,
          travel_class: cabin,
        }),
      ],
      missing: {
        request: context.phrase(quoteFareNoDate, { cabin, to: route.to }),
        supply: context.phrase(supplyIntents.date, { value: date }),
        slot: 'travel date',
        withheld: [date],
      },
    });
    return draft.finish();
  },
};

const cardBalance = defineIntent('travel.card-balance', [
  'Using my token {token}, what is the balance of card {card}?',
  'Check the balance of card {card} with token {token}.',
  'Token {token}: how much is left on card {card}?',
  'My access token is {token}. Can card {card} cover a trip?',
]);
const bookFlight = defineIntent('travel.book', [
  'Book a {cabin} flight from {from} to {to} on {date} with that card.',
  'Reserve a {cabin} seat {from} to {to} on {date}, paid with that card.',
  'Use that card to book {cabin} from {from} to {to} on {date}.',
  'Put a {cabin} trip {from} to {to} on that card, departing {date}.',
]);
const bookFlightNoDate = defineIntent('travel.book.no-date', [
  'Book a {cabin} flight from {from} to {to} with that card.',
  'Reserve a {cabin} seat {from} to {to}, paid with that card.',
  'Use that card to book {cabin} from {from} to {to}.',
  'Put a {cabin} trip {from} to {to} on that card.',
]);
const invoice = defineIntent('travel.invoice', [
  'Show me the invoice for it.',
  'Get the invoice of that booking.',
  'I need the invoice for this booking.',
  'Send over the paperwork for that booking.',
]);

/** Check a card, book a flight with it, maybe fetch the invoice (booking id from the result). */
export const bookFamily: TaskFamily = {
  id: 'travel.book',
  longContext: false,
  classes,
  difficulty: 'hard',
  pool: 'in-distribution',
  summary:
    'Check a card balance with a token, book a flight on it, optionally get the invoice.',
  intents: [
    cardBalance,
    bookFlight,
    bookFlightNoDate,
    invoice,
    supplyIntents.date,
  ],
  build(context) {
    const { random } = context;
    const person = traveller(random);
    const holder = `${person.firstName} ${person.lastName}`;
    const payWith = card(random, holder, [15_000, 40_000]);
    const route = pickRoute(random);
    const cabin = pick(random, ['economy', 'business'] as const);
    const date = isoDate(random);
    const withInvoice = chance(random, 0.4);
    const cards = context.noise.shuffle([
      payWith,
      ...noiseCards(context, holder),
    ]);
    const draft = context.begin({
      TravelAPI: travelState({
        cards,
        bookings: noiseBookings(context, cards, new Set()),
        ...person,
        seed: random.randint(1, 999_999),
      }),
    });
    const token = person.token;
    draft.turn({
      request: context.phrase(cardBalance, { token, card: payWith.id }),
      calls: [
        callText('get_credit_card_balance', {
          access_token: token,
          card_id: payWith.id,
        }),
      ],
    });
    const [booked] = draft.turn({
      request: context.phrase(bookFlight, {
        cabin,
        from: route.from,
        to: route.to,
        date,
      }),
      calls: [
        callText('book_flight', {
          access_token: token,
          card_id: payWith.id,
          travel_date: date,
          travel_from: route.from,
          travel_to: route.to,
          travel_class: cabin,
        }),
      ],
      missing: {
        request: context.phrase(bookFlightNoDate, {
          cabin,
          from: route.from,
          to: route.to,
        }),
        supply: context.phrase(supplyIntents.date, { value: date }),
        slot: 'travel date',
        withheld: [date],
      },
    });
    if (withInvoice) {
      const bookingId = resultField(booked!, 'booking_id') as string;
      draft.turn({
        request: context.phrase(invoice, {}),
        calls: [
          callText('retrieve_invoice', {
            access_token: token,
            booking_id: bookingId,
          }),
        ],
      });
    }
    return draft.finish();
  },
};

const currencies = travelExchangeRates.map((rate) => rate.target);

const exchange = defineIntent('travel.exchange', [
  'Convert {value} USD to {currency}.',
  'How much is {value} USD in {currency}?',
  'Exchange {value} USD into {currency}.',
  'If I swap {value} USD for {currency}, what do I get?',
]);
const exchangeNoCurrency = defineIntent('travel.exchange.no-currency', [
  'Convert {value} USD for my trip.',
  'How much is {value} USD in the local money?',
  'Exchange {value} USD for me.',
  'If I swap {value} USD, what do I get?',
]);
const exchangeAgain = defineIntent('travel.exchange-again', [
  'And {value} USD to {currency}?',
  'Also convert {value} USD to {currency}.',
  'Now do {value} USD in {currency}.',
  'One more: {value} USD into {currency}.',
]);

/** One or two currency conversions from USD. */
export const exchangeFamily: TaskFamily = {
  id: 'travel.exchange',
  longContext: false,
  classes,
  difficulty: 'easy',
  pool: 'in-distribution',
  summary: 'Convert US dollars into one currency, maybe a second.',
  intents: [
    exchange,
    exchangeNoCurrency,
    exchangeAgain,
    supplyIntents.currency,
  ],
  build(context) {
    const { random } = context;
    const [first, second] = pickSome(random, currencies, 2);
    const value = between(random, 2, 400) * 5;
    const again = chance(random, 0.4);
    const secondValue = between(random, 2, 400) * 5;
    const draft = beginTravellerDraft(context);
    draft.turn({
      request: context.phrase(exchange, {
        value: String(value),
        currency: first!,
      }),
      calls: [
        callText('compute_exchange_rate', {
          base_currency: 'USD',
          target_currency: first!,
          value: int(value),
        }),
      ],
      missing: {
        request: context.phrase(exchangeNoCurrency, { value: String(value) }),
        supply: context.phrase(supplyIntents.currency, { value: first! }),
        slot: 'currency',
        withheld: [first!],
      },
    });
    if (again) {
      draft.turn({
        request: context.phrase(exchangeAgain, {
          value: String(secondValue),
          currency: second!,
        }),
        calls: [
          callText('compute_exchange_rate', {
            base_currency: 'USD',
            target_currency: second!,
            value: int(secondValue),
          }),
        ],
      });
    }
    return draft.finish();
  },
};

/**
 * The currencies of BFCL's rate table as a traveller names them (plural
 * forms, the way amounts are spoken); the API only takes the codes.
 */
const currencyNames: Readonly<Record<string, string>> = {
  RMB: 'Chinese yuan',
  EUR: 'euros',
  JPY: 'Japanese yen',
  GBP: 'British pounds',
  CAD: 'Canadian dollars',
  AUD: 'Australian dollars',
  INR: 'Indian rupees',
  RUB: 'Russian rubles',
  BRL: 'Brazilian reais',
  MXN: 'Mexican pesos',
};

const exchangeNamed = defineIntent('travel.exchange-named', [
  'Convert {value} US dollars to {currency}.',
  'How many {currency} do I get for {value} US dollars?',
  'Change {value} dollars into {currency}, please.',
  'What are {value} US dollars worth in {currency}?',
]);
const exchangeNamedNoCurrency = defineIntent(
  'travel.exchange-named.no-currency',
  [
    'Convert {value} US dollars for my trip.',
    'How much foreign money do I get for {value} US dollars?',
    'Change {value} dollars for me, please.',
    'What are {value} US dollars worth abroad?',
  ],
);

/**
 * A conversion whose request names the currency in words ("euros") while
 * `compute_exchange_rate` takes a code (`EUR`): an enum value not spelled as
 * in the request. The untouched compact docs do not list the codes;
 * φ_schema's `[one of: …]` cue does, and φ_err's hint names the allowed
 * values after a refused call. Hard: not in the default suite's
 * difficulties, so the default's tasks stay as they are.
 */
export const exchangeNamedFamily: TaskFamily = {
  id: 'travel.exchange-named',
  longContext: false,
  classes,
  difficulty: 'hard',
  pool: 'in-distribution',
  summary:
    'Convert US dollars into a currency the user names in words, not by its code.',
  intents: [exchangeNamed, exchangeNamedNoCurrency, supplyIntents.currency],
  spokenForms: { USD: 'dollars', ...currencyNames },
  build(context) {
    const { random } = context;
    const code = pick(random, currencies);
    const name = currencyNames[code]!;
    const value = between(random, 2, 400) * 5;
    const draft = beginTravellerDraft(context);
    draft.turn({
      request: context.phrase(exchangeNamed, {
        value: String(value),
        currency: name,
      }),
      calls: [
        callText('compute_exchange_rate', {
          base_currency: 'USD',
          target_currency: code,
          value: int(value),
        }),
      ],
      missing: {
        request: context.phrase(exchangeNamedNoCurrency, {
          value: String(value),
        }),
        supply: context.phrase(supplyIntents.currency, { value: name }),
        slot: 'currency',
        withheld: [name],
      },
    });
    return draft.finish();
  },
};

const invoiceById = defineIntent('travel.invoice-by-id', [
  'With token {token}, show the invoice for booking {booking}.',
  'Token {token}: get me the invoice of booking {booking}.',
  'Fetch the invoice for booking {booking}; my token is {token}.',
  'I hold token {token}. What did booking {booking} cost?',
]);
const invoiceByIdNoBooking = defineIntent('travel.invoice-by-id.no-booking', [
  'With token {token}, show the invoice for my booking.',
  'Token {token}: get me the invoice of my booking.',
  'Fetch the invoice for my booking; my token is {token}.',
  'I hold token {token}. What did my booking cost?',
]);
const cancelBooking = defineIntent('travel.cancel', [
  'Cancel that booking.',
  'Please cancel it.',
  'Call that trip off.',
  'My plans changed; drop that booking.',
]);

/** Fetch a booking's invoice, then cancel the booking. */
export const cancelBookingFamily: TaskFamily = {
  id: 'travel.cancel',
  longContext: false,
  classes,
  difficulty: 'medium',
  pool: 'in-distribution',
  summary: 'Fetch the invoice of a booking given by id, then cancel it.',
  intents: [
    invoiceById,
    invoiceByIdNoBooking,
    cancelBooking,
    supplyIntents.booking,
  ],
  build(context) {
    const { random } = context;
    const person = traveller(random);
    const holder = `${person.firstName} ${person.lastName}`;
    const paidWith = card(random, holder, [1000, 9000]);
    const target = booking(random, paidWith.id);
    const cards = context.noise.shuffle([
      paidWith,
      ...noiseCards(context, holder),
    ]);
    const bookings = context.noise.shuffle([
      target,
      ...noiseBookings(context, cards, new Set([target.id])),
    ]);
    const draft = context.begin({
      TravelAPI: travelState({
        cards,
        bookings,
        ...person,
        seed: random.randint(1, 999_999),
      }),
    });
    const token = person.token;
    draft.turn({
      request: context.phrase(invoiceById, { token, booking: target.id }),
      calls: [
        callText('retrieve_invoice', {
          access_token: token,
          booking_id: target.id,
        }),
      ],
      missing: {
        request: context.phrase(invoiceByIdNoBooking, { token }),
        supply: context.phrase(supplyIntents.booking, { value: target.id }),
        slot: 'booking id',
        withheld: [target.id],
      },
    });
    draft.turn({
      request: context.phrase(cancelBooking, { booking: target.id }),
      calls: [
        callText('cancel_booking', {
          access_token: token,
          booking_id: target.id,
        }),
      ],
    });
    return draft.finish();
  },
};

const listCards = defineIntent('travel.list-cards', [
  'List my registered credit cards.',
  'Show all the cards on my travel account.',
  'Which credit cards do I have on file?',
  'Bring up every card saved for my trips.',
]);
const balanceByEnding = defineIntent('travel.balance-by-ending', [
  'Using token {token}, what is the balance of the card ending in {ending}?',
  'My token is {token}. Check the balance of the card ending {ending}.',
  'With token {token}, how much is left on the card that ends in {ending}?',
  'Token {token} here; is there money left on the {ending} card?',
]);
const balanceOfSomeCard = defineIntent('travel.balance-by-ending.no-card', [
  'Using token {token}, what is the balance of one of my cards?',
  'My token is {token}. Check the balance of a card.',
  'With token {token}, how much is left on my card?',
  'Token {token} here; is there money left on my card?',
]);
const whichCard = defineIntent('travel.which-card', [
  'The one ending in {value}.',
  'The card ending {value}.',
  'It ends in {value}.',
  'Sorry, the card that ends with {value}.',
]);
const budget = defineIntent('travel.budget', [
  'Set my travel budget to {limit} dollars.',
  'Limit my travel spending to {limit} USD.',
  'Make {limit} dollars my budget limit.',
  'Cap the trip budget at {limit}.',
]);

/** List the cards, check the balance of the one with a given ending (id from the listing). */
export const cardsFamily: TaskFamily = {
  id: 'travel.cards',
  longContext: true,
  classes,
  difficulty: 'hard',
  pool: 'in-distribution',
  summary:
    'List the registered cards, check the balance of the one ending in given digits, maybe set a budget.',
  intents: [listCards, balanceByEnding, balanceOfSomeCard, whichCard, budget],
  build(context) {
    const { random } = context;
    const person = traveller(random);
    const holder = `${person.firstName} ${person.lastName}`;
    const target = card(random, holder, [1000, 9000]);
    const ending = target.number.slice(-4);
    const limit = between(random, 10, 80) * 50;
    const withBudget = chance(random, 0.4);
    // At least one other card, so the listing always needs reading; none
    // shares the ending.
    const others = [
      ...noiseCards(context, holder, [2, 3]),
      card(context.noise, holder, [500, 9000]),
    ].filter((other) => other.number.slice(-4) !== ending);
    const draft = context.begin({
      TravelAPI: travelState({
        cards: context.noise.shuffle([target, ...others]),
        bookings: [],
        ...person,
        seed: random.randint(1, 999_999),
      }),
    });
    const token = person.token;
    draft.turn({
      request: context.phrase(listCards, {}),
      calls: [callText('get_all_credit_cards')],
    });
    draft.turn({
      request: context.phrase(balanceByEnding, { token, ending }),
      calls: [
        callText('get_credit_card_balance', {
          access_token: token,
          card_id: target.id,
        }),
      ],
      missing: {
        request: context.phrase(balanceOfSomeCard, { token }),
        supply: context.phrase(whichCard, { value: ending }),
        slot: 'card',
        withheld: [ending],
      },
    });
    if (withBudget) {
      draft.turn({
        request: context.phrase(budget, { limit: String(limit) }),
        calls: [
          callText('set_budget_limit', {
            access_token: token,
            budget_limit: int(limit),
          }),
        ],
      });
    }
    return draft.finish();
  },
};

/** The TravelAPI families. */
export const travelFamilies: readonly TaskFamily[] = [
  quoteFamily,
  bookFamily,
  exchangeFamily,
  cancelBookingFamily,
  cardsFamily,
  exchangeNamedFamily,
];
