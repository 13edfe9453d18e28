import {
  PyDict,
  PyException,
  PyRandom,
  assertHashable,
  freezePyValue,
  noAttribute,
  pyAbs,
  pyAdd,
  pyContains,
  pyDictGet,
  pyEquals,
  pyFloat,
  pyFormatValue,
  pyGe,
  pyGetItem,
  pyGt,
  pyIter,
  pyLe,
  pyListRemove,
  pyMul,
  pyRepr,
  pySub,
  pyTrueDiv,
  pyTruthy,
  pyTypeName,
  type PyValue,
} from '@seal/python';
import * as z from 'zod';
import {
  errorResult as error,
  expectDict,
  pyAppend,
  pyDict as dict,
  withStr,
} from './api-helpers';
import {
  BfclApi,
  type BfclClassDefinition,
  type BfclMethodTable,
} from './bfcl-api';
import type { BfclRealm } from './bfcl-realm';
import {
  compareDateTimes,
  datetimeMax,
  datetimeMin,
  pyStrptime,
  transactionTimestamp,
} from './trading-bot-time';
import type { BfclToolSpecs } from './tool-spec';

/** Company names `get_symbol_by_name` knows. Amazon maps to a symbol that no default stock has. */
const symbolsByName: readonly (readonly [string, string])[] = [
  ['Apple', 'AAPL'],
  ['Google', 'GOOG'],
  ['Tesla', 'TSLA'],
  ['Microsoft', 'MSFT'],
  ['Nvidia', 'NVDA'],
  ['Zeta Corp', 'ZETA'],
  ['Alpha Tech', 'ALPH'],
  ['Omega Industries', 'OMEG'],
  ['Quasar Ltd.', 'QUAS'],
  ['Neptune Systems', 'NEPT'],
  ['Synex Solutions', 'SYNX'],
  ['Amazon', 'AMZN'],
];

/** The sectors of `get_available_stocks` (rebuilt on every call). */
const technologyStocks = ['AAPL', 'GOOG', 'MSFT', 'NVDA'] as const;
const automobileStocks = ['TSLA', 'F', 'GM'] as const;

/**
 * A sector's long-context list: its own symbols, then the padding constant
 * (`extend`). Python builds it on every call; it is only ever rendered, so
 * it is built once per constant and frozen, and its JSON is rendered once.
 */
function paddedSector(
  own: readonly string[],
  extension: PyValue,
  cache: WeakMap<object, PyValue[]>,
): PyValue[] {
  const cacheable = extension !== null && typeof extension === 'object';
  let list = cacheable ? cache.get(extension) : undefined;
  if (list === undefined) {
    list = freezePyValue([...own, ...pyIter(extension)]);
    if (cacheable) cache.set(extension, list);
  }
  return list;
}

const paddedTechnology = new WeakMap<object, PyValue[]>();
const paddedAutomobile = new WeakMap<object, PyValue[]>();

/**
 * `repr(own + list(extension))`, with the padding constant's part rendered
 * once per constant (its items are immutable: the text never changes).
 */
function paddedListRepr(own: PyValue[], extension: PyValue): string {
  const cacheable = extension !== null && typeof extension === 'object';
  let tail = cacheable ? paddingReprs.get(extension) : undefined;
  if (tail === undefined) {
    tail = pyRepr(pyIter(extension)).slice(1, -1);
    if (cacheable) paddingReprs.set(extension, tail);
  }
  if (tail === '') return pyRepr(own);
  if (own.length === 0) return `[${tail}]`;
  return `${pyRepr(own).slice(0, -1)}, ${tail}]`;
}

/** The items part (no brackets) of `repr(list(constant))`, by constant. */
const paddingReprs = new WeakMap<object, string>();

/** Market hours of `update_market_status`, in minutes after midnight, both ends open. */
const marketOpensAt = 9 * 60 + 30;
const marketClosesAt = 16 * 60;

/** `randint(start, start + 86400)`: only the width of the range affects the draw. */
const secondsPerDay = 86_400n;

/** `container[key] = value` for a dict or list, with CPython's errors otherwise. */
function setItem(container: PyValue, key: PyValue, value: PyValue): void {
  if (container instanceof PyDict) {
    assertHashable(key);
    container.set(key, value);
    return;
  }
  if (Array.isArray(container)) {
    if (typeof key !== 'bigint' && typeof key !== 'boolean') {
      throw PyException.typeError(
        `list indices must be integers or slices, not ${pyTypeName(key)}`,
      );
    }
    let index = Number(key);
    if (index < 0) index += container.length;
    if (index < 0 || index >= container.length) {
      throw PyException.indexError('list assignment index out of range');
    }
    container[index] = value;
    return;
  }
  throw PyException.typeError(
    `'${pyTypeName(container)}' object does not support item assignment`,
  );
}

/** `value.copy()`: a shallow copy of a dict or list. */
function shallowCopy(value: PyValue): PyValue {
  if (value instanceof PyDict) return new PyDict(value.entries());
  if (Array.isArray(value)) return [...value];
  throw noAttribute(value, 'copy');
}

/** `', '.join(items)`. */
function joinStrings(items: readonly PyValue[]): string {
  return items
    .map((item, index) => {
      if (typeof item !== 'string') {
        throw PyException.typeError(
          `sequence item ${index}: expected str instance, ${pyTypeName(item)} found`,
        );
      }
      return item;
    })
    .join(', ');
}

/**
 * `template.format(symbol=symbol)` for the long-context order metadata:
 * `{{`/`}}` escape braces and `{symbol}` is replaced; any other named field
 * is missing, which BFCL turns into an error result (the name is returned).
 */
function formatWithSymbol(
  template: string,
  symbol: PyValue,
): { text: string } | { missing: string } {
  const parts = templateParts(template);
  if ('missing' in parts) return parts;
  const value = pyFormatValue(symbol);
  // The same few symbols come back call after call: the same text object
  // each time, so its JSON encoding is found in the encoder's cache.
  let text = parts.formatted.get(value);
  if (text === undefined) {
    text = parts.literals[0]!;
    for (let i = 1; i < parts.literals.length; i++)
      text += value + parts.literals[i]!;
    if (parts.formatted.size >= 64) parts.formatted.clear();
    parts.formatted.set(value, text);
  }
  return { text };
}

/**
 * A template split at its `{symbol}` fields (braces unescaped), or the first
 * other field name. The templates are the long-context constants, a handful
 * of long strings, so each is split once.
 */
function templateParts(template: string): TemplateParts | { missing: string } {
  let parts = parsedTemplates.get(template);
  if (parts === undefined) {
    parts = splitTemplate(template);
    if (parsedTemplates.size >= 1024) parsedTemplates.clear();
    parsedTemplates.set(template, parts);
  }
  return parts;
}

const parsedTemplates = new Map<string, TemplateParts | { missing: string }>();

/** A template's literal runs around its `{symbol}` fields, and its texts by symbol (bounded). */
type TemplateParts = { literals: string[]; formatted: Map<string, string> };

function splitTemplate(template: string): TemplateParts | { missing: string } {
  const literals: string[] = [];
  let text = '';
  let start = 0;
  for (let i = 0; i < template.length; i++) {
    const char = template[i]!;
    if (char !== '{' && char !== '}') continue;
    text += template.slice(start, i);
    if (template[i + 1] === char) {
      text += char;
      i++;
    } else if (char === '{') {
      const close = template.indexOf('}', i);
      const field = template.slice(i + 1, close < 0 ? undefined : close);
      const name = field.split(/[.[:!]/)[0]!;
      if (name !== 'symbol') return { missing: name };
      literals.push(text);
      text = '';
      // An unclosed `{symbol` takes the rest of the template.
      i = close < 0 ? template.length : close;
    } else {
      text += char;
    }
    start = i + 1;
  }
  literals.push(text + template.slice(start));
  return { literals, formatted: new Map() };
}

/**
 * Python's `str.isdigit()` key test of `_load_scenario` (JSON object keys are
 * strings; order ids are ints). Only decimal digits are accepted here:
 * Python's other "digits" (superscripts) make its `int()` fail at load.
 */
function orderKey(key: PyValue): PyValue {
  if (typeof key === 'string' && /^\p{Nd}+$/u.test(key)) {
    if (/^[0-9]+$/.test(key)) return BigInt(key);
    let value = 0n;
    for (const char of key) {
      const code = char.codePointAt(0)!;
      let start = code;
      while (/\p{Nd}/u.test(String.fromCodePoint(start - 1))) start--;
      value = value * 10n + BigInt((code - start) % 10);
    }
    return value;
  }
  return key;
}

/** The int seed `random.Random(seed)` uses (bools are ints; an integral float hashes to itself). */
function seedOf(value: PyValue): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'boolean') return value ? 1n : 0n;
  if (typeof value === 'number' && Number.isInteger(value))
    return BigInt(value);
  // Python would seed from the OS (None) or a hash (other values); neither is
  // reproducible, and no BFCL scenario sets such a seed.
  return 1_053_520n;
}

/**
 * BFCL's `TradingBot`: a stock-trading account with orders, a watch list and
 * deposits. Behaviour, messages and state follow BFCL v3 (gorilla `cd9429cc`).
 * Long-context mode only pads the outputs of five read methods.
 */
export class TradingBot extends BfclApi {
  readonly className = 'TradingBot' as const;
  protected readonly attributeNames = [
    'orders',
    'account_info',
    'authenticated',
    'market_status',
    'order_counter',
    'stocks',
    'watch_list',
    'transaction_history',
    'long_context',
  ] as const;

  /** Orders by id (int keys), each a dict (`id`, `order_type`, `symbol`, `price`, `amount`, `status`). */
  orders!: PyDict;
  /** `account_id`, `balance`, `binding_card`. */
  account_info!: PyValue;
  /** Whether a user is logged in. */
  authenticated!: PyValue;
  /** `"Open"` or `"Closed"`. */
  market_status!: PyValue;
  /** The id the next order gets. */
  order_counter!: PyValue;
  /**
   * Stocks by symbol: `price`, `percent_change`, `volume`, `MA(5)`, `MA(20)`.
   * Until the first write, the scenario's own (shared, read-only) dict: see
   * {@link TradingBot.writableStocks}.
   */
  stocks!: PyValue;
  /** Makes `stocks` this instance's copy; undefined once it is. */
  private copyStocks: (() => PyValue) | undefined;
  /** Watched symbols. */
  watch_list!: PyValue;
  /** Deposits and withdrawals: `type`, `amount`, `timestamp`. */
  transaction_history!: PyValue;
  /** Whether outputs carry BFCL's long-context padding. */
  long_context!: boolean;
  private random = new PyRandom(1_053_520n);

  constructor(realm: BfclRealm) {
    super(realm);
  }

  loadScenario(scenario: PyDict, longContext: boolean): void {
    const fields = this.realm.scenarioFields({
      className: 'TradingBot',
      scenario,
    });
    const field = (name: string): PyValue => fields.get(name);
    // Python rebuilds the dict so that digit-string keys (as JSON spells
    // them) become int order ids; other keys (e.g. "order_type" in many
    // scenarios) stay as they are.
    const orders = new PyDict();
    for (const [key, value] of expectDict(field('orders'), 'items')) {
      const converted = orderKey(key);
      assertHashable(converted);
      orders.set(converted, value);
    }
    this.orders = orders;
    this.account_info = field('account_info');
    this.authenticated = field('authenticated');
    this.market_status = field('market_status');
    this.order_counter = field('order_counter');
    // BFCL copies the stock table at load; most instances only read it, so
    // it is copied on the first write instead.
    const stocks = fields.getShared('stocks');
    this.stocks = stocks.shared;
    this.copyStocks = stocks.copy;
    this.watch_list = field('watch_list');
    this.transaction_history = field('transaction_history');
    this.long_context = longContext;
    this.random = new PyRandom(seedOf(field('random_seed')));
  }

  /** `stocks`, copied first if still shared: what every write goes through. */
  private writableStocks(): PyValue {
    if (this.copyStocks !== undefined) {
      this.stocks = this.copyStocks();
      this.copyStocks = undefined;
    }
    return this.stocks;
  }

  private longContextValue(name: string): PyValue {
    return this.realm.longContextConstant(name);
  }

  /** `self.transaction_history.append({...})` with a fresh timestamp. */
  private recordTransaction(type: string, amount: PyValue): void {
    // The bound method is looked up before the argument (and its random
    // draw) is evaluated.
    if (!Array.isArray(this.transaction_history)) {
      throw noAttribute(this.transaction_history, 'append');
    }
    const offset = this.random.randint(0n, secondsPerDay);
    pyAppend(
      this.transaction_history,
      dict({ type, amount, timestamp: transactionTimestamp(offset) }),
    );
  }

  /** `self.account_info["balance"] = op(self.account_info["balance"], amount)`. */
  private updateBalance(
    operation: (balance: PyValue, amount: PyValue) => PyValue,
    amount: PyValue,
  ): void {
    const balance = operation(pyGetItem(this.account_info, 'balance'), amount);
    setItem(this.account_info, 'balance', balance);
  }

  private balance(): PyValue {
    return pyGetItem(this.account_info, 'balance');
  }

  static readonly methods: BfclMethodTable<TradingBot> = {
    get_current_time: {
      parameters: [],
      call() {
        return dict({ current_time: '10:30 AM' });
      },
    },
    update_market_status: {
      parameters: [{ name: 'current_time_str' }],
      call(self, [currentTime]) {
        const parsed = pyStrptime(currentTime!, '%I:%M %p');
        const minutes = parsed[3] * 60 + parsed[4];
        self.market_status =
          minutes >= marketOpensAt && minutes <= marketClosesAt
            ? 'Open'
            : 'Closed';
        return dict({ status: self.market_status });
      },
    },
    get_symbol_by_name: {
      parameters: [{ name: 'name' }],
      call(_self, [name]) {
        return dict({
          symbol: pyDictGet(
            new PyDict(symbolsByName),
            name!,
            'Stock not found',
          ),
        });
      },
    },
    get_stock_info: {
      parameters: [{ name: 'symbol' }],
      call(self, [symbol]) {
        if (!pyContains(self.stocks, symbol!)) {
          return error(
            `Stock with symbol '${pyFormatValue(symbol!)}' not found.`,
          );
        }
        if (self.long_context) {
          const stock = shallowCopy(pyGetItem(self.stocks, symbol!));
          setItem(stock, 'MA(5)', self.longContextValue('MA_5_EXTENSION'));
          setItem(stock, 'MA(20)', self.longContextValue('MA_20_EXTENSION'));
          return stock;
        }
        return pyGetItem(self.stocks, symbol!);
      },
    },
    get_order_details: {
      parameters: [{ name: 'order_id' }],
      call(self, [orderId]) {
        if (!pyContains(self.orders, orderId!)) {
          // No space before "Here": BFCL concatenates the two sentences.
          return error(
            `Order with ID ${pyFormatValue(orderId!)} not found.` +
              `Here is the list of orders_id: ${pyRepr([...self.orders.keys()])}`,
          );
        }
        if (self.long_context) {
          const order = shallowCopy(pyGetItem(self.orders, orderId!));
          const symbol = pyGetItem(order, 'symbol');
          const metadata = new PyDict();
          const extension = expectDict(
            self.longContextValue('ORDER_DETAIL_EXTENSION'),
            'items',
          );
          for (const [key, template] of extension) {
            const formatted = formatWithSymbol(template as string, symbol);
            if ('missing' in formatted) {
              return error(
                `KeyError during formatting: ${pyRepr(formatted.missing)}`,
              );
            }
            metadata.set(key, formatted.text);
          }
          setItem(order, 'metadata', metadata);
          return order;
        }
        return pyGetItem(self.orders, orderId!);
      },
    },
    cancel_order: {
      parameters: [{ name: 'order_id' }],
      call(self, [orderId]) {
        const id = orderId!;
        if (!pyContains(self.orders, id))
          return error(`Order with ID ${pyFormatValue(id)} not found.`);
        const order = pyGetItem(self.orders, id);
        if (pyEquals(pyGetItem(order, 'status'), 'Completed')) {
          return error(
            `Can't cancel order ${pyFormatValue(id)}. Order is already completed.`,
          );
        }
        setItem(order, 'status', 'Cancelled');
        return dict({ order_id: id, status: 'Cancelled' });
      },
    },
    place_order: {
      parameters: [
        { name: 'order_type' },
        { name: 'symbol' },
        { name: 'price' },
        { name: 'amount' },
      ],
      call(self, [orderType, symbol, price, amount]) {
        if (!pyTruthy(self.authenticated)) {
          return error(
            'User not authenticated. Please log in to place an order.',
          );
        }
        if (!pyContains(self.stocks, symbol!))
          return error(`Invalid stock symbol: ${pyFormatValue(symbol!)}`);
        if (pyLe(price!, 0n) || pyLe(amount!, 0n)) {
          return error('Price and amount must be positive values.');
        }
        const floatPrice = pyFloat(price!);
        const orderId = self.order_counter;
        // The order is stored as "Open" but reported as "Pending".
        setItem(
          self.orders,
          orderId,
          dict({
            id: orderId,
            order_type: orderType!,
            symbol: symbol!,
            price: floatPrice,
            amount: amount!,
            status: 'Open',
          }),
        );
        self.order_counter = pyAdd(self.order_counter, 1n);
        return dict({
          order_id: orderId,
          order_type: orderType!,
          status: 'Pending',
          price: floatPrice,
          amount: amount!,
        });
      },
    },
    make_transaction: {
      parameters: [
        { name: 'account_id' },
        { name: 'xact_type' },
        { name: 'amount' },
      ],
      call(self, [accountId, transactionType, amount]) {
        if (!pyTruthy(self.authenticated)) {
          return error(
            'User not authenticated. Please log in to make a transaction.',
          );
        }
        if (!pyEquals(self.market_status, 'Open')) {
          return error('Market is closed. Transactions are not allowed.');
        }
        if (!pyEquals(accountId!, pyGetItem(self.account_info, 'account_id'))) {
          return error(
            `Account with ID ${pyFormatValue(accountId!)} not found.`,
          );
        }
        if (pyLe(amount!, 0n))
          return error('Transaction amount must be positive.');
        if (pyEquals(transactionType!, 'deposit')) {
          self.updateBalance(pyAdd, amount!);
          self.recordTransaction('deposit', amount!);
          return dict({
            status: 'Deposit successful',
            new_balance: self.balance(),
          });
        }
        if (pyEquals(transactionType!, 'withdrawal')) {
          if (pyGt(amount!, self.balance()))
            return error('Insufficient funds for withdrawal.');
          self.updateBalance(pySub, amount!);
          self.recordTransaction('withdrawal', amount!);
          return dict({
            status: 'Withdrawal successful',
            new_balance: self.balance(),
          });
        }
        return error(
          "Invalid transaction type. Use 'deposit' or 'withdrawal'.",
        );
      },
    },
    get_account_info: {
      parameters: [],
      call(self) {
        if (!pyTruthy(self.authenticated)) {
          return error(
            'User not authenticated. Please log in to view account information.',
          );
        }
        return self.account_info;
      },
    },
    trading_login: {
      parameters: [{ name: 'username' }, { name: 'password' }],
      call(self) {
        // Any credentials are accepted.
        if (pyTruthy(self.authenticated))
          return dict({ status: 'Already logged in' });
        self.authenticated = true;
        return dict({ status: 'Logged in successfully' });
      },
    },
    trading_get_login_status: {
      parameters: [],
      call(self) {
        return dict({ status: pyTruthy(self.authenticated) });
      },
    },
    trading_logout: {
      parameters: [],
      call(self) {
        if (!pyTruthy(self.authenticated))
          return dict({ status: 'No user is currently logged in' });
        self.authenticated = false;
        return dict({ status: 'Logged out successfully' });
      },
    },
    fund_account: {
      parameters: [{ name: 'amount' }],
      call(self, [amount]) {
        if (!pyTruthy(self.authenticated)) {
          return error(
            'User not authenticated. Please log in to fund the account.',
          );
        }
        if (pyLe(amount!, 0n)) return error('Funding amount must be positive.');
        self.updateBalance(pyAdd, amount!);
        self.recordTransaction('deposit', amount!);
        return dict({
          status: 'Account funded successfully',
          new_balance: self.balance(),
        });
      },
    },
    remove_stock_from_watchlist: {
      parameters: [{ name: 'symbol' }],
      call(self, [symbol]) {
        if (!pyTruthy(self.authenticated)) {
          return error(
            'User not authenticated. Please log in to modify the watchlist.',
          );
        }
        if (!pyContains(self.watch_list, symbol!)) {
          return error(
            `Stock ${pyFormatValue(symbol!)} not found in watchlist.`,
          );
        }
        if (!Array.isArray(self.watch_list))
          throw noAttribute(self.watch_list, 'remove');
        pyListRemove(self.watch_list, symbol!);
        return dict({
          status: `Stock ${pyFormatValue(symbol!)} removed from watchlist successfully.`,
        });
      },
    },
    get_watchlist: {
      parameters: [],
      call(self) {
        // Not logged in and long-context results are bare lists, which the
        // executor prints with Python's repr (the padding ends in `Ellipsis`).
        if (!pyTruthy(self.authenticated)) {
          return [
            'Error: User not authenticated. Please log in to view the watchlist.',
          ];
        }
        if (self.long_context) {
          const watchList = shallowCopy(self.watch_list);
          if (!Array.isArray(watchList)) throw noAttribute(watchList, 'extend');
          const own = watchList.length;
          const extension = self.longContextValue('WATCH_LIST_EXTENSION');
          watchList.push(...pyIter(extension));
          return withStr(watchList, () =>
            paddedListRepr(watchList.slice(0, own), extension),
          );
        }
        return dict({ watchlist: self.watch_list });
      },
    },
    get_order_history: {
      parameters: [],
      call(self) {
        if (!pyTruthy(self.authenticated)) {
          return [
            error(
              'User not authenticated. Please log in to view order history.',
            ),
          ];
        }
        return dict({ history: [...self.orders.keys()] });
      },
    },
    get_transaction_history: {
      parameters: [
        { name: 'start_date', default: null },
        { name: 'end_date', default: null },
      ],
      call(self, [startDate, endDate]) {
        if (!pyTruthy(self.authenticated)) {
          return [
            error(
              'User not authenticated. Please log in to view transaction history.',
            ),
          ];
        }
        const start = pyTruthy(startDate!)
          ? pyStrptime(startDate!, '%Y-%m-%d')
          : datetimeMin;
        const end = pyTruthy(endDate!)
          ? pyStrptime(endDate!, '%Y-%m-%d')
          : datetimeMax;
        const filtered = pyIter(self.transaction_history).filter(
          (transaction) => {
            const timestamp = pyStrptime(
              pyGetItem(transaction, 'timestamp'),
              '%Y-%m-%d %H:%M:%S',
            );
            return (
              compareDateTimes(start, timestamp) <= 0 &&
              compareDateTimes(timestamp, end) <= 0
            );
          },
        );
        if (self.long_context) {
          filtered.push(
            ...pyIter(self.longContextValue('TRANSACTION_HISTORY_EXTENSION')),
          );
        }
        return dict({ transaction_history: filtered });
      },
    },
    update_stock_price: {
      parameters: [{ name: 'symbol' }, { name: 'new_price' }],
      call(self, [symbol, newPrice]) {
        if (!pyContains(self.stocks, symbol!)) {
          return error(
            `Stock with symbol '${pyFormatValue(symbol!)}' not found.`,
          );
        }
        if (pyLe(newPrice!, 0n))
          return error('New price must be a positive value.');
        const stock = pyGetItem(self.writableStocks(), symbol!);
        const oldPrice = pyGetItem(stock, 'price');
        // The new price is stored as given (an int stays an int).
        setItem(stock, 'price', newPrice!);
        setItem(
          stock,
          'percent_change',
          pyMul(pyTrueDiv(pySub(newPrice!, oldPrice), oldPrice), 100n),
        );
        return dict({
          symbol: symbol!,
          old_price: oldPrice,
          new_price: newPrice!,
        });
      },
    },
    get_available_stocks: {
      parameters: [{ name: 'sector' }],
      call(self, [sector]) {
        let technology: PyValue[] = [...technologyStocks];
        let automobile: PyValue[] = [...automobileStocks];
        if (self.long_context) {
          technology = paddedSector(
            technologyStocks,
            self.longContextValue('TECHNOLOGY_EXTENSION'),
            paddedTechnology,
          );
          automobile = paddedSector(
            automobileStocks,
            self.longContextValue('AUTOMOBILE_EXTENSION'),
            paddedAutomobile,
          );
        }
        const sectors = dict({
          Technology: technology,
          Automobile: automobile,
        });
        return dict({ stock_list: pyDictGet(sectors, sector!, []) });
      },
    },
    filter_stocks_by_price: {
      parameters: [
        { name: 'stocks' },
        { name: 'min_price' },
        { name: 'max_price' },
      ],
      call(self, [stocks, minPrice, maxPrice]) {
        const priceOf = (symbol: PyValue): PyValue => {
          const stock = pyDictGet(
            expectDict(self.stocks, 'get'),
            symbol,
            new PyDict(),
          );
          return pyDictGet(expectDict(stock, 'get'), 'price', 0n);
        };
        const filtered = pyIter(stocks!).filter(
          (symbol) =>
            pyGe(priceOf(symbol), minPrice!) &&
            pyLe(priceOf(symbol), maxPrice!),
        );
        return dict({ filtered_stocks: filtered });
      },
    },
    add_to_watchlist: {
      parameters: [{ name: 'stock' }],
      call(self, [stock]) {
        // Only known symbols are added, silently; the whole list is returned.
        if (
          !pyContains(self.watch_list, stock!) &&
          pyContains(self.stocks, stock!)
        ) {
          pyAppend(self.watch_list, stock!);
        }
        return dict({ symbol: self.watch_list });
      },
    },
    notify_price_change: {
      parameters: [{ name: 'stocks' }, { name: 'threshold' }],
      call(self, [stocks, threshold]) {
        const changed = pyIter(stocks!).filter(
          (symbol) =>
            pyContains(self.stocks, symbol) &&
            pyGe(
              pyAbs(
                pyGetItem(pyGetItem(self.stocks, symbol), 'percent_change'),
              ),
              threshold!,
            ),
        );
        if (changed.length > 0) {
          return dict({
            notification: `Stocks ${joinStrings(changed)} have significant price changes.`,
          });
        }
        return dict({
          notification: 'No significant price changes in the selected stocks.',
        });
      },
    },
  };
}

const symbol = z.string().describe('Ticker symbol, e.g. AAPL.');
const orderId = z.int().describe('Numeric id of the order.');
const symbolList = z.array(z.string()).describe('Ticker symbols to consider.');

/** Our descriptions and argument schemas of the TradingBot methods. */
export const tradingBotTools: BfclToolSpecs = {
  get_current_time: {
    description: 'Report the current time of day in 12-hour HH:MM AM/PM form.',
    parameters: z.object({}),
  },
  update_market_status: {
    description:
      'Set the market to open or closed from a time of day (open from 9:30 AM to 4:00 PM).',
    parameters: z.object({
      current_time_str: z
        .string()
        .describe('Time of day as HH:MM AM/PM, e.g. 10:30 AM.'),
    }),
  },
  get_symbol_by_name: {
    description: "Look up a company's ticker symbol from its name.",
    parameters: z.object({
      name: z.string().describe('Company name, e.g. Apple.'),
    }),
  },
  get_stock_info: {
    description:
      'Show price, percent change, volume and 5- and 20-day moving averages for a stock.',
    parameters: z.object({ symbol }),
  },
  get_order_details: {
    description:
      'Show one order: type, symbol, price, number of shares and status.',
    parameters: z.object({ order_id: orderId }),
  },
  cancel_order: {
    description: 'Cancel an order unless it has already been completed.',
    parameters: z.object({ order_id: orderId }),
  },
  place_order: {
    description:
      'Submit a buy or sell order for a stock at a limit price (requires login).',
    parameters: z.object({
      order_type: z.string().describe('Buy or Sell.'),
      symbol,
      price: z.number().describe('Price per share.'),
      amount: z.int().describe('Number of shares.'),
    }),
  },
  make_transaction: {
    description:
      'Deposit money into or withdraw money from the trading account while the market is open.',
    parameters: z.object({
      account_id: z.int().describe('The trading account number.'),
      xact_type: z.string().describe('deposit or withdrawal.'),
      amount: z.number().describe('How much money to move.'),
    }),
  },
  get_account_info: {
    description:
      'Show the account number, cash balance and linked card (requires login).',
    parameters: z.object({}),
  },
  trading_login: {
    description: 'Sign in to the trading platform.',
    parameters: z.object({
      username: z.string().describe('Account user name.'),
      password: z.string().describe('Account password.'),
    }),
  },
  trading_get_login_status: {
    description: 'Tell whether someone is signed in to the trading platform.',
    parameters: z.object({}),
  },
  trading_logout: {
    description: 'Sign out of the trading platform.',
    parameters: z.object({}),
  },
  fund_account: {
    description: 'Add money to the trading account balance (requires login).',
    parameters: z.object({
      amount: z.number().describe('How much money to add.'),
    }),
  },
  remove_stock_from_watchlist: {
    description: 'Stop watching a stock (requires login).',
    parameters: z.object({ symbol }),
  },
  get_watchlist: {
    description: 'List the symbols on the watch list (requires login).',
    parameters: z.object({}),
  },
  get_order_history: {
    description: 'List the ids of all orders (requires login).',
    parameters: z.object({}),
  },
  get_transaction_history: {
    description:
      'List deposits and withdrawals, optionally only those between two dates (requires login).',
    parameters: z.object({
      start_date: z
        .string()
        .optional()
        .describe('Earliest date, YYYY-MM-DD. Default: no lower bound.'),
      end_date: z
        .string()
        .optional()
        .describe(
          'Latest date, YYYY-MM-DD (midnight). Default: no upper bound.',
        ),
    }),
  },
  update_stock_price: {
    description:
      "Change a stock's current price; its percent change is recomputed from the old price.",
    parameters: z.object({
      symbol,
      new_price: z.number().describe('The new price per share.'),
    }),
  },
  get_available_stocks: {
    description: 'List the ticker symbols in an industry sector.',
    parameters: z.object({
      sector: z
        .string()
        .describe('Sector name, e.g. Technology or Automobile.'),
    }),
  },
  filter_stocks_by_price: {
    description:
      'Keep only the stocks whose current price lies within a range (inclusive).',
    parameters: z.object({
      stocks: symbolList,
      min_price: z.number().describe('Lowest price to keep.'),
      max_price: z.number().describe('Highest price to keep.'),
    }),
  },
  add_to_watchlist: {
    description:
      'Start watching a stock; unknown symbols are ignored. Returns the whole watch list.',
    parameters: z.object({
      stock: z.string().describe('Ticker symbol to watch.'),
    }),
  },
  notify_price_change: {
    description:
      'Report which of the given stocks moved by at least a percentage threshold.',
    parameters: z.object({
      stocks: symbolList,
      threshold: z
        .number()
        .describe('Minimum absolute percent change to report.'),
    }),
  },
};

/** Registry entry for {@link TradingBot}. */
export const tradingBotDefinition: BfclClassDefinition = {
  className: 'TradingBot',
  create: (realm) => new TradingBot(realm),
  methods: TradingBot.methods as BfclMethodTable<never>,
  stateless: false,
  description:
    'A stock-trading account: log in, look up stocks, place and cancel orders, move money and keep a watch list.',
  tools: tradingBotTools,
};
