import {
  PyDict,
  PyException,
  PyRandom,
  assertHashable,
  expectStr,
  freezePyValue,
  pyAdd,
  pyContains,
  pyDeepCopy,
  pyEquals,
  pyFloat,
  pyFormatValue,
  pyGetItem,
  pyIter,
  pyLt,
  pyMod,
  pyMul,
  pyRound,
  pySub,
  pyTrueDiv,
  pyTypeName,
  type PyKey,
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
import { pyIntOfDigits, pyIsDigit, strptimeYearMonthDay } from './travel-date';
import {
  travelAirports,
  travelCityAirports,
  travelExchangeRates,
  travelRouteCosts,
  travelRoutes,
} from './travel-tables';
import type { BfclToolSpecs } from './tool-spec';

const defaultSeed = 141053n;

/** Python `random.Random(seed)` for the int-like seeds BFCL scenarios can hold. */
/**
 * `sum(int(c) for c in text if c.isdigit())` for an ASCII text, where the
 * only digits are 0-9; undefined for any other text (the general loop then
 * follows Python's Unicode rules).
 */
function asciiDigitSum(text: string): bigint | undefined {
  let sum = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x80) return undefined;
    if (code >= 0x30 && code <= 0x39) sum += code - 0x30;
  }
  return BigInt(sum);
}

/** `value in AIRPORTS` (a list: compared with `==`, so any type is accepted). */
function isTravelAirport(value: PyValue): boolean {
  if (typeof value === 'string') return travelAirportSet.has(value);
  return travelAirports.some((code) => pyEquals(code, value));
}

const travelAirportSet: ReadonlySet<string> = new Set(travelAirports);

/**
 * Long-context `get_flight_cost`: every route's `base * factor * multiplier`
 * (left to right, as Python multiplies), in table order. There are a few
 * (factor, multiplier) pairs, so each list is built once and frozen: callers
 * only render it, and the JSON of a frozen list is rendered once.
 */
function allFlightCosts(factor: number, multiplier: number): number[] {
  const key = `${factor}|${multiplier}`;
  let costs = flightCostLists.get(key);
  if (costs === undefined) {
    costs = freezePyValue(
      travelRoutes.map((route) => route.baseCost * factor * multiplier),
    );
    flightCostLists.set(key, costs);
  }
  return costs;
}

const flightCostLists = new Map<string, number[]>();

function createRandom(seed: PyValue): PyRandom {
  if (typeof seed === 'bigint') return new PyRandom(seed);
  if (typeof seed === 'boolean') return new PyRandom(seed ? 1n : 0n);
  // `Random(float)` seeds from `hash(float)`, which is the integer itself for
  // integral floats of ordinary size.
  if (
    typeof seed === 'number' &&
    Number.isInteger(seed) &&
    Math.abs(seed) < 2 ** 53
  ) {
    return new PyRandom(BigInt(seed));
  }
  throw new Error(`TravelAPI: unsupported random_seed ${pyFormatValue(seed)}`);
}

/**
 * An augmented assignment `a op= b`. CPython names the augmented operator in
 * its TypeError (`unsupported operand type(s) for -=: 'NoneType' and 'int'`),
 * which BFCL shows when a wrong token meets a `None` `token_expires_in`.
 */
function augmented(operator: '+' | '-', a: PyValue, b: PyValue): PyValue {
  try {
    return operator === '+' ? pyAdd(a, b) : pySub(a, b);
  } catch (caught) {
    const plain = `unsupported operand type(s) for ${operator}:`;
    if (PyException.isInstance(caught) && caught.message.startsWith(plain)) {
      throw PyException.typeError(
        caught.message.replace(
          plain,
          `unsupported operand type(s) for ${operator}=:`,
        ),
      );
    }
    throw caught;
  }
}

/** `container[key] = value` for the dicts this class writes into. */
function setItem(container: PyValue, key: PyKey, value: PyValue): void {
  if (container instanceof PyDict) {
    container.set(key, value);
    return;
  }
  if (Array.isArray(container)) {
    throw PyException.typeError(
      `list indices must be integers or slices, not ${pyTypeName(key)}`,
    );
  }
  throw PyException.typeError(
    `'${pyTypeName(container)}' object does not support item assignment`,
  );
}

/** `{"booking_status": False, "error": message}` and its siblings. */
function failure(statusKey: string, message: string): PyDict {
  return dict({ [statusKey]: false, error: message });
}

/**
 * The message `book_flight` gives for an unknown class prints the Python set
 * `{"economy", "business", "first"}`, whose order follows the string hash
 * seed. This is the order under `PYTHONHASHSEED=0`, which BFCL's golden
 * files use; a run with another seed may print another order.
 */
const validClassesText = "{'first', 'business', 'economy'}";
const validClasses: ReadonlySet<string> = new Set([
  'economy',
  'business',
  'first',
]);

const classFactors: ReadonlyMap<string, number> = new Map([
  ['economy', 1],
  ['business', 2],
  ['first', 5],
]);

/**
 * BFCL's `TravelAPI`: log in, register credit cards, price and book flights,
 * buy insurance, cancel bookings, convert currencies. Behaviour, messages,
 * random ids and state follow BFCL v3 (gorilla `cd9429cc`).
 */
export class TravelApi extends BfclApi {
  readonly className = 'TravelAPI' as const;
  protected readonly attributeNames = [
    'credit_card_list',
    'booking_record',
    'access_token',
    'token_type',
    'token_expires_in',
    'token_scope',
    'user_first_name',
    'user_last_name',
    'budget_limit',
    'long_context',
  ] as const;

  /** Card id → `{card_number, expiration_date, cardholder_name, card_verification_number, balance}`. */
  credit_card_list!: PyValue;
  /** Booking id → `{card_id, travel_date, travel_from, travel_to, travel_class, travel_cost, transaction_id}`. */
  booking_record!: PyValue;
  /** The current access token (a 6-digit string after login), or `None`. */
  access_token!: PyValue;
  /** `"Bearer"` after login, or `None`. */
  token_type!: PyValue;
  /** Wrong tokens left before the token expires (2 after login), or `None`. */
  token_expires_in!: PyValue;
  /** The grant type given at login, or `None`. */
  token_scope!: PyValue;
  /** The logged-in traveller's first name, or `None`. */
  user_first_name!: PyValue;
  /** The logged-in traveller's last name, or `None`. */
  user_last_name!: PyValue;
  /** The budget limit in USD (a float once set), or `None`. */
  budget_limit!: PyValue;
  /** Whether the long-context padding is loaded. */
  long_context!: PyValue;

  /** `_random`: ids and balances are drawn from it, in call order. */
  private random = new PyRandom(defaultSeed);
  /**
   * `_flight_cost_lookup`, from the last `get_flight_cost`: `from|to|class|date`
   * → cost. Held as the rule that makes it (one route, or in long-context
   * mode every route with one class and date) rather than as a 153-entry map
   * rebuilt on every call; {@link lookupFlightCost} answers the same keys.
   */
  private flightCostLookup:
    | { kind: 'one'; key: string; cost: number }
    | { kind: 'all'; suffix: string; factor: number; multiplier: number }
    | undefined;

  constructor(realm: BfclRealm) {
    super(realm);
  }

  loadScenario(scenario: PyDict, longContext: boolean): void {
    const fields = this.realm.scenarioFields({
      className: 'TravelAPI',
      scenario,
    });
    const get = (key: string): PyValue => fields.get(key);
    this.random = createRandom(get('random_seed'));
    this.credit_card_list = get('credit_card_list');
    this.booking_record = get('booking_record');
    this.access_token = get('access_token');
    this.token_type = get('token_type');
    this.token_expires_in = get('token_expires_in');
    this.token_scope = get('token_scope');
    this.user_first_name = get('user_first_name');
    this.user_last_name = get('user_last_name');
    this.budget_limit = get('budget_limit');
    this.long_context = longContext;
    if (longContext) {
      this.mergeExtension(this.credit_card_list, 'CREDIT_CARD_EXTENSION');
      this.mergeExtension(this.booking_record, 'BOOKING_RECORD_EXTENSION');
    }
  }

  /**
   * Adds the long-context padding entries whose keys are absent. BFCL inserts
   * the module-level entry dicts themselves, not copies, so every instance in
   * one process shares them: a booking paid with a padding card lowers that
   * card's balance for the model and the ground-truth instance alike. The
   * realm holds our process-wide copy of the constant.
   */
  private mergeExtension(target: PyValue, name: string): void {
    const extension = this.realm.global(`long_context.${name}`, () =>
      pyDeepCopy(this.realm.longContextConstant(name)),
    );
    if (!(extension instanceof PyDict)) return;
    for (const [key, value] of extension) {
      if (!pyContains(target, key)) setItem(target, key, value);
    }
  }

  /**
   * The token check shared by the protected methods: `'expired'` when
   * `token_expires_in == 0`; `'invalid'` when the token differs, after
   * decrementing `token_expires_in` (a state change on an error path, and a
   * TypeError when it is `None`).
   */
  private checkToken(accessToken: PyValue): 'expired' | 'invalid' | undefined {
    if (pyEquals(this.token_expires_in, 0n)) return 'expired';
    if (!pyEquals(accessToken, this.access_token)) {
      this.token_expires_in = augmented('-', this.token_expires_in, 1n);
      return 'invalid';
    }
    return undefined;
  }

  /** `get_flight_cost`'s body; `ValueError`s propagate to the caller. */
  private flightCost(
    from: PyValue,
    to: PyValue,
    date: PyValue,
    travelClass: PyValue,
  ): PyValue[] {
    // `(travel_from, travel_to) in base_costs` hashes the pair (its items, in order) first.
    assertHashable(from);
    assertHashable(to);
    const baseCost =
      typeof from === 'string' && typeof to === 'string'
        ? travelRouteCosts.get(`${from}|${to}`)
        : undefined;
    if (baseCost === undefined)
      throw PyException.valueError(
        'No available route for the given airports.',
      );
    const factor =
      typeof travelClass === 'string'
        ? classFactors.get(travelClass)
        : undefined;
    if (factor === undefined) {
      throw PyException.valueError(
        'Invalid travel class. Options are: economy, business, first.',
      );
    }
    // `sum(int(c) for c in travel_date if c.isdigit())`: any iterable works,
    // and its items must be strings.
    let digitSum: PyValue | undefined =
      typeof date === 'string' ? asciiDigitSum(date) : undefined;
    if (digitSum === undefined) {
      digitSum = 0n;
      for (const item of pyIter(date)) {
        if (!pyIsDigit(expectStr(item, 'isdigit'))) continue;
        digitSum = pyAdd(digitSum, pyIntOfDigits(item as string));
      }
    }
    const multiplier = pyEquals(pyMod(digitSum, 2n), 0n) ? 2 : 1;
    const suffix = `${travelClass as string}|${pyFormatValue(date)}`;
    if (this.long_context === true) {
      this.flightCostLookup = { kind: 'all', suffix, factor, multiplier };
      return allFlightCosts(factor, multiplier);
    }
    const cost = baseCost * factor * multiplier;
    this.flightCostLookup = {
      kind: 'one',
      key: `${from as string}|${to as string}|${suffix}`,
      cost,
    };
    return [cost];
  }

  /** `self._flight_cost_lookup.get(key)` for a `from|to|class|date` key. */
  private lookupFlightCost(key: string): number | undefined {
    const lookup = this.flightCostLookup;
    if (lookup === undefined) return undefined;
    if (lookup.kind === 'one')
      return key === lookup.key ? lookup.cost : undefined;
    // Every key is `from|to|suffix` for a route of the table; airport codes
    // have no '|', so the key names a route exactly when its head does.
    if (!key.endsWith(`|${lookup.suffix}`)) return undefined;
    const base = travelRouteCosts.get(
      key.slice(0, key.length - lookup.suffix.length - 1),
    );
    if (base === undefined) return undefined;
    return base * lookup.factor * lookup.multiplier;
  }

  static readonly methods: BfclMethodTable<TravelApi> = {
    authenticate_travel: {
      parameters: [
        { name: 'client_id' },
        { name: 'client_secret' },
        { name: 'refresh_token' },
        { name: 'grant_type' },
        { name: 'user_first_name' },
        { name: 'user_last_name' },
      ],
      call(self, [, , , grantType, firstName, lastName]) {
        self.token_expires_in = 2n;
        self.access_token = self.random.randint(100000, 999999).toString();
        self.token_type = 'Bearer';
        self.token_scope = grantType!;
        self.user_first_name = firstName!;
        self.user_last_name = lastName!;
        return dict({
          expires_in: 2n,
          access_token: self.access_token,
          token_type: 'Bearer',
          scope: grantType!,
        });
      },
    },
    travel_get_login_status: {
      parameters: [],
      call(self) {
        const loggedOut =
          self.token_expires_in === null || pyEquals(self.token_expires_in, 0n);
        return dict({ status: !loggedOut });
      },
    },
    get_budget_fiscal_year: {
      parameters: [
        { name: 'lastModifiedAfter', default: null },
        { name: 'includeRemoved', default: null },
      ],
      call() {
        return dict({ budget_fiscal_year: '2018' });
      },
    },
    register_credit_card: {
      parameters: [
        { name: 'access_token' },
        { name: 'card_number' },
        { name: 'expiration_date' },
        { name: 'cardholder_name' },
        { name: 'card_verification_number' },
      ],
      call(
        self,
        [
          accessToken,
          cardNumber,
          expirationDate,
          cardholderName,
          verificationNumber,
        ],
      ) {
        // Unlike the other protected methods, this one checks for a missing
        // token first, so a wrong token never meets `None - 1` here.
        if (self.token_expires_in === null)
          return error('Token not initialized');
        const token = self.checkToken(accessToken!);
        if (token === 'expired') return error('Token expired');
        if (token === 'invalid') return error('Invalid access token');
        if (pyContains(self.credit_card_list, cardNumber!))
          return error('Card already registered');
        const cardId = self.random
          .randint(100000000000n, 999999999999n)
          .toString();
        const card = dict({
          card_number: cardNumber!,
          expiration_date: expirationDate!,
          cardholder_name: cardholderName!,
          card_verification_number: verificationNumber!,
          balance: self.random.randint(10000, 99999),
        });
        setItem(self.credit_card_list, cardId, card);
        return dict({ card_id: cardId });
      },
    },
    get_flight_cost: {
      parameters: [
        { name: 'travel_from' },
        { name: 'travel_to' },
        { name: 'travel_date' },
        { name: 'travel_class' },
      ],
      call(self, [from, to, date, travelClass]) {
        return dict({
          travel_cost_list: self.flightCost(from!, to!, date!, travelClass!),
        });
      },
    },
    get_credit_card_balance: {
      parameters: [{ name: 'access_token' }, { name: 'card_id' }],
      call(self, [accessToken, cardId]) {
        const token = self.checkToken(accessToken!);
        if (token === 'expired') return error('Token expired');
        if (token === 'invalid') return error('Invalid access token');
        if (!pyContains(self.credit_card_list, cardId!)) {
          const ids =
            self.credit_card_list instanceof PyDict
              ? [...self.credit_card_list.keys()]
              : [];
          return error(
            `Card not registered. Here are a list of card_id's: ${pyFormatValue(ids)}`,
          );
        }
        return dict({
          card_balance: pyGetItem(
            pyGetItem(self.credit_card_list, cardId!),
            'balance',
          ),
        });
      },
    },
    book_flight: {
      parameters: [
        { name: 'access_token' },
        { name: 'card_id' },
        { name: 'travel_date' },
        { name: 'travel_from' },
        { name: 'travel_to' },
        { name: 'travel_class' },
      ],
      call(self, [accessToken, cardId, date, from, to, travelClass]) {
        const fail = (message: string): PyDict =>
          failure('booking_status', message);
        const token = self.checkToken(accessToken!);
        if (token === 'expired') return fail('Token expired');
        if (token === 'invalid') return fail('Invalid access token');
        if (!pyContains(self.credit_card_list, cardId!))
          return fail('Card not registered');
        const card = pyGetItem(self.credit_card_list, cardId!);
        if (!pyContains(card, 'balance')) return fail('Balance not found');
        // `x not in list` compares with `==`, so any type is accepted here.
        if (!isTravelAirport(from!)) {
          return fail(
            `Invalid departure airport code: ${pyFormatValue(from!)}`,
          );
        }
        if (!isTravelAirport(to!)) {
          return fail(
            `Invalid destination airport code: ${pyFormatValue(to!)}`,
          );
        }
        if (strptimeYearMonthDay(date!) === undefined)
          return fail('Invalid date format. Use YYYY-MM-DD.');
        // Set membership hashes the class first (TypeError for a list).
        assertHashable(travelClass!);
        if (typeof travelClass !== 'string' || !validClasses.has(travelClass)) {
          return fail(
            `Invalid travel class. Must be one of ${validClassesText}`,
          );
        }
        let travelCost: number;
        try {
          self.flightCost(from!, to!, date!, travelClass);
          const cost = self.lookupFlightCost(
            `${from as string}|${to as string}|${travelClass}|${date as string}`,
          );
          if (cost === undefined)
            return fail('No available route for the given parameters');
          travelCost = cost;
        } catch (caught) {
          if (PyException.isInstance(caught) && caught.pyType === 'ValueError')
            return fail(caught.message);
          throw caught;
        }
        const balance = pyGetItem(card, 'balance');
        if (pyLt(balance, travelCost)) return fail('Insufficient funds');
        if (self.budget_limit !== null && pyLt(balance, self.budget_limit)) {
          return fail('Balance is less than budget limit');
        }
        setItem(card, 'balance', augmented('-', balance, travelCost));
        const bookingId = self.random.randint(1000000, 9999999).toString();
        const transactionId = self.random
          .randint(10000000, 99999999)
          .toString();
        setItem(
          self.booking_record,
          bookingId,
          dict({
            card_id: cardId!,
            travel_date: date!,
            travel_from: from!,
            travel_to: to!,
            travel_class: travelClass,
            travel_cost: travelCost,
            transaction_id: transactionId,
          }),
        );
        return dict({
          booking_id: bookingId,
          transaction_id: transactionId,
          booking_status: true,
          // Long context returns the live record, in insertion order (a
          // PyDict, so the numeric-looking ids are not reordered).
          booking_history:
            self.long_context === true ? self.booking_record : new PyDict(),
        });
      },
    },
    retrieve_invoice: {
      parameters: [
        { name: 'access_token' },
        { name: 'booking_id', default: null },
        { name: 'insurance_id', default: null },
      ],
      call(self, [accessToken, bookingId]) {
        const token = self.checkToken(accessToken!);
        if (token === 'expired') return error('Token expired');
        if (token === 'invalid') return error('Invalid access token');
        if (!pyContains(self.booking_record, bookingId!))
          return error('Booking not found');
        const field = (name: string): PyValue =>
          pyGetItem(pyGetItem(self.booking_record, bookingId!), name);
        const invoice = dict({
          booking_id: bookingId!,
          travel_date: field('travel_date'),
          travel_from: field('travel_from'),
          travel_to: field('travel_to'),
          travel_class: field('travel_class'),
          travel_cost: field('travel_cost'),
          transaction_id: field('transaction_id'),
        });
        return dict({ invoice });
      },
    },
    list_all_airports: {
      parameters: [],
      call() {
        return [...travelAirports];
      },
    },
    cancel_booking: {
      parameters: [{ name: 'access_token' }, { name: 'booking_id' }],
      call(self, [accessToken, bookingId]) {
        const fail = (message: string): PyDict =>
          failure('cancel_status', message);
        const token = self.checkToken(accessToken!);
        if (token === 'expired') return fail('Token expired');
        if (token === 'invalid') return fail('Invalid access token');
        if (!pyContains(self.booking_record, bookingId!))
          return fail('Booking not found');
        const booking = pyGetItem(self.booking_record, bookingId!);
        const cardId = pyGetItem(booking, 'card_id');
        const travelCost = pyGetItem(booking, 'travel_cost');
        const card = pyGetItem(self.credit_card_list, cardId);
        setItem(
          card,
          'balance',
          augmented('+', pyGetItem(card, 'balance'), travelCost),
        );
        if (self.booking_record instanceof PyDict)
          self.booking_record.delete(bookingId as PyKey);
        return dict({ cancel_status: true });
      },
    },
    compute_exchange_rate: {
      parameters: [
        { name: 'base_currency' },
        { name: 'target_currency' },
        { name: 'value' },
      ],
      call(_self, [base, target, value]) {
        for (const { base: from, target: to, rate } of travelExchangeRates) {
          if (pyEquals(base!, from) && pyEquals(target!, to)) {
            return dict({ exchanged_value: pyMul(value!, rate) });
          }
          // The reverse direction divides and rounds to cents; the forward
          // one multiplies and keeps every digit (and an int stays an int).
          if (pyEquals(base!, to) && pyEquals(target!, from)) {
            return dict({
              exchanged_value: pyRound(pyTrueDiv(value!, rate) as number, 2),
            });
          }
        }
        throw PyException.valueError(
          'No available exchange rate for the given currencies.',
        );
      },
    },
    verify_traveler_information: {
      parameters: [
        { name: 'first_name' },
        { name: 'last_name' },
        { name: 'date_of_birth' },
        { name: 'passport_number' },
      ],
      call(self, [firstName, lastName, dateOfBirth, passportNumber]) {
        const fail = (message: string): PyDict =>
          dict({ verification_status: false, verification_failure: message });
        if (
          !pyEquals(self.user_first_name, firstName!) ||
          !pyEquals(self.user_last_name, lastName!)
        ) {
          // BFCL joins the two sentences without a space.
          return fail(
            'Cannot book flight information for another user.' +
              `Expected ${pyFormatValue(self.user_first_name)} ${pyFormatValue(self.user_last_name)}, ` +
              `got ${pyFormatValue(firstName!)} ${pyFormatValue(lastName!)}`,
          );
        }
        const birth = strptimeYearMonthDay(dateOfBirth!);
        if (birth === undefined)
          return fail('Invalid date of birth format. Please use YYYY-MM-DD.');
        // `datetime.today()`: the age depends on the day the call runs.
        const today = self.realm.now();
        const month = today.getMonth() + 1;
        const day = today.getDate();
        const birthdayAhead =
          month < birth.month || (month === birth.month && day < birth.day);
        const age = today.getFullYear() - birth.year - (birthdayAhead ? 1 : 0);
        if (age < 18) return fail('Traveler must be at least 18 years old.');
        if (!expectStr(passportNumber!, 'startswith').startsWith('US')) {
          return fail('Passport must be issued by the United States.');
        }
        return dict({ verification_status: true });
      },
    },
    set_budget_limit: {
      parameters: [{ name: 'access_token' }, { name: 'budget_limit' }],
      call(self, [accessToken, budgetLimit]) {
        const token = self.checkToken(accessToken!);
        if (token === 'expired') return error('Token expired');
        if (token === 'invalid') return error('Invalid access token');
        // Stored as a float: `set_budget_limit(..., 1000)` prints `1000.0`.
        const limit = pyFloat(budgetLimit!);
        self.budget_limit = limit;
        return dict({ budget_limit: limit });
      },
    },
    get_nearest_airport_by_city: {
      parameters: [{ name: 'location' }],
      call(_self, [location]) {
        assertHashable(location!);
        const airport =
          typeof location === 'string'
            ? travelCityAirports.get(location)
            : undefined;
        return dict({ nearest_airport: airport ?? 'Unknown' });
      },
    },
    purchase_insurance: {
      parameters: [
        { name: 'access_token' },
        { name: 'insurance_type' },
        { name: 'booking_id' },
        { name: 'insurance_cost' },
        { name: 'card_id' },
      ],
      call(self, [accessToken, , bookingId, insuranceCost, cardId]) {
        const fail = (message: string): PyDict =>
          failure('insurance_status', message);
        const token = self.checkToken(accessToken!);
        if (token === 'expired') return fail('Token expired');
        if (token === 'invalid') return fail('Invalid access token');
        if (
          self.budget_limit !== null &&
          pyLt(self.budget_limit, insuranceCost!)
        ) {
          return fail('Exceeded budget limit');
        }
        if (!pyContains(self.booking_record, bookingId!))
          return fail('Booking not found');
        if (!pyContains(self.credit_card_list, cardId!))
          return fail('Credit card not registered');
        const card = pyGetItem(self.credit_card_list, cardId!);
        setItem(
          card,
          'balance',
          augmented('-', pyGetItem(card, 'balance'), insuranceCost!),
        );
        return dict({
          insurance_id: self.random.randint(100000000, 999999999).toString(),
          insurance_status: true,
        });
      },
    },
    contact_customer_support: {
      parameters: [{ name: 'booking_id' }, { name: 'message' }],
      call(self, [bookingId]) {
        if (!pyContains(self.booking_record, bookingId!))
          return error('Booking not found');
        return dict({
          customer_support_message:
            'Thank you for contacting customer support. Your message has been received and we will get back to you shortly.',
        });
      },
    },
    get_all_credit_cards: {
      parameters: [],
      call(self) {
        return dict({ credit_card_list: self.credit_card_list });
      },
    },
  };
}

const accessToken = z
  .string()
  .describe('Token returned by authenticate_travel.');
const bookingId = z.string().describe('Id of an existing booking.');
const cardId = z.string().describe('Id of a registered credit card.');
const currency = z
  .string()
  .describe(
    'Currency code: USD, RMB, EUR, JPY, GBP, CAD, AUD, INR, RUB, BRL or MXN.',
  );

/** Our descriptions and argument schemas of the TravelAPI methods. */
export const travelApiTools: BfclToolSpecs = {
  authenticate_travel: {
    description:
      'Log a traveller in and receive an access token for the protected travel calls.',
    parameters: z.object({
      client_id: z.string().describe('Client application id.'),
      client_secret: z.string().describe('Client application secret.'),
      refresh_token: z
        .string()
        .describe('Refresh token from an earlier login.'),
      grant_type: z
        .string()
        .describe('Requested scope: read_write, read or write.'),
      user_first_name: z.string().describe("Traveller's first name."),
      user_last_name: z.string().describe("Traveller's last name."),
    }),
  },
  travel_get_login_status: {
    description: 'Tell whether a valid travel login token is held.',
    parameters: z.object({}),
  },
  get_budget_fiscal_year: {
    description: 'Return the fiscal year that travel budgets are tracked in.',
    parameters: z.object({
      lastModifiedAfter: z
        .string()
        .optional()
        .describe(
          'Only fiscal years changed after this UTC timestamp (YYYY-MM-DDTHH:MM:SS).',
        ),
      includeRemoved: z
        .string()
        .optional()
        .describe('Whether removed fiscal years are included too.'),
    }),
  },
  register_credit_card: {
    description:
      'Add a credit card to the traveller account; returns the id the card is known by.',
    parameters: z.object({
      access_token: accessToken,
      card_number: z.string().describe('Card number.'),
      expiration_date: z.string().describe('Expiry as MM/YYYY.'),
      cardholder_name: z.string().describe('Name printed on the card.'),
      card_verification_number: z
        .int()
        .describe('Security code on the back of the card.'),
    }),
  },
  get_flight_cost: {
    description:
      'Quote the USD fare of a flight between two airports for a date and cabin class.',
    parameters: z.object({
      travel_from: z
        .string()
        .describe('Departure airport, 3-letter IATA code.'),
      travel_to: z.string().describe('Arrival airport, 3-letter IATA code.'),
      travel_date: z.string().describe('Date of travel, YYYY-MM-DD.'),
      travel_class: z.string().describe('Cabin: economy, business or first.'),
    }),
  },
  get_credit_card_balance: {
    description: 'Read the remaining balance of a registered credit card.',
    parameters: z.object({ access_token: accessToken, card_id: cardId }),
  },
  book_flight: {
    description:
      'Reserve a flight and charge its fare to a registered card; returns booking and transaction ids.',
    parameters: z.object({
      access_token: accessToken,
      card_id: cardId,
      travel_date: z.string().describe('Date of travel, YYYY-MM-DD.'),
      travel_from: z.string().describe('Departure airport, IATA code.'),
      travel_to: z.string().describe('Arrival airport, IATA code.'),
      travel_class: z.string().describe('Cabin: economy, business or first.'),
    }),
  },
  retrieve_invoice: {
    description: 'Fetch the invoice details of a booking.',
    parameters: z.object({
      access_token: accessToken,
      booking_id: z
        .string()
        .optional()
        .describe('Id of the booking to invoice.'),
      insurance_id: z
        .string()
        .optional()
        .describe('Id of a purchased insurance.'),
    }),
  },
  list_all_airports: {
    description: 'List the codes of every airport the travel system serves.',
    parameters: z.object({}),
  },
  cancel_booking: {
    description:
      'Cancel a booking and refund its fare to the card it was paid with.',
    parameters: z.object({ access_token: accessToken, booking_id: bookingId }),
  },
  compute_exchange_rate: {
    description: 'Convert an amount of money from one currency into another.',
    parameters: z.object({
      base_currency: currency,
      target_currency: currency,
      value: z.number().describe('Amount in the base currency.'),
    }),
  },
  verify_traveler_information: {
    description:
      'Check that a traveller is the logged-in user, an adult, and holds a US passport.',
    parameters: z.object({
      first_name: z.string().describe("Traveller's first name."),
      last_name: z.string().describe("Traveller's last name."),
      date_of_birth: z.string().describe('Birth date, YYYY-MM-DD.'),
      passport_number: z.string().describe('Passport number.'),
    }),
  },
  set_budget_limit: {
    description: 'Set the USD spending limit for travel bookings.',
    parameters: z.object({
      access_token: accessToken,
      budget_limit: z.number().describe('Limit in USD.'),
    }),
  },
  get_nearest_airport_by_city: {
    description: 'Give the code of the airport that serves a city.',
    parameters: z.object({
      location: z
        .string()
        .describe('City name, for example Rivermist, London or Tokyo.'),
    }),
  },
  purchase_insurance: {
    description:
      'Buy travel insurance for a booking, charged to a registered card.',
    parameters: z.object({
      access_token: accessToken,
      insurance_type: z.string().describe('Kind of insurance.'),
      booking_id: bookingId,
      insurance_cost: z.number().describe('Price of the insurance in USD.'),
      card_id: cardId,
    }),
  },
  contact_customer_support: {
    description: 'Send a message about a booking to travel customer support.',
    parameters: z.object({
      booking_id: bookingId,
      message: z.string().describe('What to tell support.'),
    }),
  },
  get_all_credit_cards: {
    description: 'List every credit card registered on the travel account.',
    parameters: z.object({}),
  },
};

/** Registry entry for {@link TravelApi}. */
export const travelApiDefinition: BfclClassDefinition = {
  className: 'TravelAPI',
  create: (realm) => new TravelApi(realm),
  methods: TravelApi.methods as BfclMethodTable<never>,
  stateless: false,
  description:
    'A travel booking system: log in, manage credit cards, price, book and cancel flights, buy insurance.',
  tools: travelApiTools,
};
