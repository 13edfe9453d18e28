import type { PyRandom } from '@seal/python';
import {
  between,
  chance,
  distractors,
  handle,
  money,
  password,
  pick,
  pickSome,
} from '../draw';
import { defineIntent } from '../phrasing';
import { callText, int } from '../py-build';
import { tradingState, type Order, type Stock } from '../states';
import type { FamilyContext, TaskFamily } from '../task-family';
import { supplyIntents } from './supply-intents';

const classes = ['TradingBot'] as const;

/**
 * The company names `get_symbol_by_name` knows, with their symbols (BFCL's
 * fixed table; a test checks every pair against the class).
 */
export const tradingCompanies = [
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
] as const;

/** Every symbol of {@link tradingCompanies}. */
const tradingSymbols: readonly string[] = tradingCompanies.map(
  ([, symbol]) => symbol,
);

/** A quote with plausible numbers around a price. */
export function quote(random: PyRandom, symbol: string): Stock {
  const price = money(random, 20, 900);
  return {
    symbol,
    price,
    percentChange: money(random, -4, 4),
    volume: between(random, 500, 9999) / 1000,
    movingAverage5:
      Math.round(price * (0.97 + between(random, 0, 60) / 1000) * 100) / 100,
    movingAverage20:
      Math.round(price * (0.95 + between(random, 0, 100) / 1000) * 100) / 100,
  };
}

/** The core quotes plus distractor quotes (noise stream), shuffled. */
export function market(
  context: FamilyContext,
  core: readonly Stock[],
): Stock[] {
  const taken = new Set(core.map((stock) => stock.symbol));
  const count = distractors(context, { base: [1, 2], long: [6, 8] });
  const others = pickSome(context.noise, tradingSymbols, count, (symbol) =>
    taken.has(symbol),
  ).map((symbol) => quote(context.noise, symbol));
  return context.noise.shuffle([...core, ...others]);
}

/** Draws order ids (10000–99999) without repeats. */
export class OrderIds {
  private readonly used = new Set<number>();
  /** A fresh id. */
  next(random: PyRandom): number {
    for (;;) {
      const id = between(random, 10_000, 99_999);
      if (!this.used.has(id)) {
        this.used.add(id);
        return id;
      }
    }
  }
}

/** Distractor orders on the given stocks (noise stream). */
function noiseOrders(
  context: FamilyContext,
  ids: OrderIds,
  stocks: readonly Stock[],
): Order[] {
  const count = distractors(context, { base: [0, 2], long: [5, 8] });
  return Array.from({ length: count }, () => {
    const stock = pick(context.noise, stocks);
    return {
      id: ids.next(context.noise),
      type: pick(context.noise, ['Buy', 'Sell'] as const),
      symbol: stock.symbol,
      price: stock.price,
      amount: between(context.noise, 1, 50),
      status: pick(context.noise, ['Completed', 'Open', 'Pending']),
    };
  });
}

/** The rest of a trading account (noise stream for the numbers nobody asks about). */
function account(context: FamilyContext): {
  accountId: number;
  balance: number;
  bindingCard: bigint;
} {
  return {
    accountId: between(context.random, 10_000, 99_999),
    balance: money(context.random, 2000, 20_000),
    bindingCard: context.noise.randint(
      1_000_000_000_000_000n,
      9_999_999_999_999_999n,
    ),
  };
}

const symbolOf = defineIntent('trading.symbol', [
  'What is the ticker symbol of {company}?',
  'Look up the symbol for {company}.',
  'Which symbol does {company} trade under?',
  'I want to invest in {company}; find its ticker.',
]);
const buyShares = defineIntent('trading.buy', [
  'Buy {amount} shares of it at {price}.',
  'Place a Buy order for {amount} shares at {price} each.',
  'I want to buy {amount} shares of it, price {price}.',
  'Go ahead and buy {amount} of those at a limit of {price}.',
]);
const buySharesNoPrice = defineIntent('trading.buy.no-price', [
  'Buy {amount} shares of it.',
  'Place a Buy order for {amount} shares.',
  'I want to buy {amount} shares of it.',
  'Go ahead and buy {amount} of those.',
]);

/** Look up a company's symbol, then buy shares of it. */
export const buyByNameFamily: TaskFamily = {
  id: 'trading.buy-by-name',
  longContext: false,
  classes,
  difficulty: 'medium',
  pool: 'in-distribution',
  summary: 'Find the ticker of a company by name and place a buy order for it.',
  intents: [symbolOf, buyShares, buySharesNoPrice, supplyIntents.price],
  build(context) {
    const { random } = context;
    const [company, symbol] = pick(random, tradingCompanies);
    const stock = quote(random, symbol);
    const amount = between(random, 2, 60);
    const price =
      Math.round(stock.price * (0.95 + between(random, 0, 10) / 100) * 100) /
      100;
    const stocks = market(context, [stock]);
    const draft = context.begin({
      TradingBot: tradingState({
        stocks,
        orders: noiseOrders(context, new OrderIds(), stocks),
        ...account(context),
        authenticated: true,
        marketOpen: true,
        watchList: [],
        seed: random.randint(1, 999_999),
      }),
    });
    draft.turn({
      request: context.phrase(symbolOf, { company }),
      calls: [callText('get_symbol_by_name', { name: company })],
    });
    const priceText = String(price);
    draft.turn({
      request: context.phrase(buyShares, {
        amount: String(amount),
        price: priceText,
      }),
      calls: [
        callText('place_order', {
          order_type: 'Buy',
          symbol,
          price,
          amount: int(amount),
        }),
      ],
      missing: {
        request: context.phrase(buySharesNoPrice, { amount: String(amount) }),
        supply: context.phrase(supplyIntents.price, { value: priceText }),
        slot: 'price',
        withheld: [priceText],
      },
    });
    return draft.finish();
  },
};

const stockInfo = defineIntent('trading.stock-info', [
  'How is {symbol} doing today?',
  'Show me the stock info for {symbol}.',
  'Get the latest numbers for {symbol}.',
  'Give me a quick look at {symbol}.',
]);
const stockInfoNoSymbol = defineIntent('trading.stock-info.no-symbol', [
  'How is my favourite stock doing today?',
  'Show me the stock info for a company I like.',
  'Get the latest numbers for a stock.',
  'Give me a quick look at a stock.',
]);
const watchIt = defineIntent('trading.watch-add', [
  'Add it to my watchlist.',
  'Put {symbol} on my watchlist.',
  'Watch that stock for me.',
  'Keep an eye on {symbol} from now on.',
]);
const showWatchlist = defineIntent('trading.watch-show', [
  'Show my watchlist.',
  'What is on my watchlist now?',
  'List the stocks I watch.',
  'Remind me which stocks I follow.',
]);

/** Check a stock, watch it, maybe list the watchlist. */
export const watchFamily: TaskFamily = {
  id: 'trading.watch',
  longContext: true,
  classes,
  difficulty: 'medium',
  pool: 'in-distribution',
  summary:
    'Look at a stock, add it to the watchlist and optionally show the list.',
  intents: [
    stockInfo,
    stockInfoNoSymbol,
    watchIt,
    showWatchlist,
    supplyIntents.symbol,
  ],
  build(context) {
    const { random } = context;
    const [, symbol] = pick(random, tradingCompanies);
    const show = chance(random, 0.5);
    const stocks = market(context, [quote(random, symbol)]);
    const share = context.scale === 'long' ? 0.9 : 0.5;
    const watched = stocks
      .filter(
        (stock) => stock.symbol !== symbol && chance(context.noise, share),
      )
      .map((stock) => stock.symbol);
    const draft = context.begin({
      TradingBot: tradingState({
        stocks,
        orders: [],
        ...account(context),
        authenticated: true,
        marketOpen: true,
        watchList: watched,
        seed: random.randint(1, 999_999),
      }),
    });
    draft.turn({
      request: context.phrase(stockInfo, { symbol }),
      calls: [callText('get_stock_info', { symbol })],
      missing: {
        request: context.phrase(stockInfoNoSymbol, {}),
        supply: context.phrase(supplyIntents.symbol, { value: symbol }),
        slot: 'symbol',
        withheld: [symbol],
      },
    });
    draft.turn({
      request: context.phrase(watchIt, { symbol }),
      calls: [callText('add_to_watchlist', { stock: symbol })],
    });
    if (show)
      draft.turn({
        request: context.phrase(showWatchlist, {}),
        calls: [callText('get_watchlist')],
      });
    return draft.finish();
  },
};

const orderDetails = defineIntent('trading.order-details', [
  'Show me the details of order {order}.',
  'What is the status of order {order}?',
  'Look up order {order}.',
  'Pull up order number {order} for me.',
]);
const orderDetailsNoId = defineIntent('trading.order-details.no-id', [
  'Show me the details of my order.',
  'What is the status of my order?',
  'Look up my order.',
  'Pull up my order for me.',
]);
const cancelIt = defineIntent('trading.cancel', [
  'Cancel it.',
  'Please cancel that order.',
  'Call that order off.',
  'I changed my mind; withdraw that order.',
]);

/** Look up an order and cancel it. */
export const cancelOrderFamily: TaskFamily = {
  id: 'trading.cancel',
  longContext: false,
  classes,
  difficulty: 'easy',
  pool: 'in-distribution',
  summary: 'Look up an open order by id and cancel it.',
  intents: [orderDetails, orderDetailsNoId, cancelIt, supplyIntents.order],
  build(context) {
    const { random } = context;
    const [, symbol] = pick(random, tradingCompanies);
    const stock = quote(random, symbol);
    const ids = new OrderIds();
    const order: Order = {
      id: ids.next(random),
      type: pick(random, ['Buy', 'Sell'] as const),
      symbol,
      price: stock.price,
      amount: between(random, 1, 80),
      status: pick(random, ['Open', 'Pending']),
    };
    const stocks = market(context, [stock]);
    const orders = context.noise.shuffle([
      order,
      ...noiseOrders(context, ids, stocks),
    ]);
    const draft = context.begin({
      TradingBot: tradingState({
        stocks,
        orders,
        ...account(context),
        authenticated: true,
        marketOpen: true,
        watchList: [],
        seed: random.randint(1, 999_999),
      }),
    });
    const id = String(order.id);
    draft.turn({
      request: context.phrase(orderDetails, { order: id }),
      calls: [callText('get_order_details', { order_id: int(order.id) })],
      missing: {
        request: context.phrase(orderDetailsNoId, {}),
        supply: context.phrase(supplyIntents.order, { value: id }),
        slot: 'order id',
        withheld: [id],
      },
    });
    draft.turn({
      request: context.phrase(cancelIt, {}),
      calls: [callText('cancel_order', { order_id: int(order.id) })],
    });
    return draft.finish();
  },
};

const loginTrading = defineIntent('trading.login', [
  'Log in to my trading account as {user} with password {password}.',
  'Sign in to the trading platform: user {user}, password {password}.',
  'Please log me in to trading, {user} and {password}.',
  'Trading login: my name is {user} and my password is {password}.',
]);
const fund = defineIntent('trading.fund', [
  'Add {amount} dollars to my account.',
  'Deposit {amount} into the trading account.',
  'Fund my account with {amount}.',
  'Top up my balance by {amount} dollars.',
]);
const fundNoAmount = defineIntent('trading.fund.no-amount', [
  'Add some money to my account.',
  'Deposit money into the trading account.',
  'Fund my account.',
  'Top up my balance.',
]);
const accountInfo = defineIntent('trading.account-info', [
  'What is my balance now?',
  'Show my account info.',
  'How much cash do I have?',
  'Give me my account summary.',
]);

/** Log in, fund the account, maybe check the balance. */
export const fundFamily: TaskFamily = {
  id: 'trading.fund',
  longContext: false,
  classes,
  difficulty: 'medium',
  pool: 'in-distribution',
  summary:
    'Log in to trading, add money to the account and optionally show the account.',
  intents: [
    loginTrading,
    fund,
    fundNoAmount,
    accountInfo,
    supplyIntents.amount,
  ],
  build(context) {
    const { random } = context;
    const user = handle(random);
    const secret = password(random);
    const amount = between(random, 5, 200) * 25;
    const check = chance(random, 0.5);
    const stocks = market(context, [
      quote(random, pick(random, tradingSymbols)),
    ]);
    const draft = context.begin({
      TradingBot: tradingState({
        stocks,
        orders: noiseOrders(context, new OrderIds(), stocks),
        ...account(context),
        authenticated: false,
        marketOpen: false,
        watchList: [],
        seed: random.randint(1, 999_999),
      }),
    });
    draft.turn({
      request: context.phrase(loginTrading, { user, password: secret }),
      calls: [callText('trading_login', { username: user, password: secret })],
    });
    draft.turn({
      request: context.phrase(fund, { amount: String(amount) }),
      calls: [callText('fund_account', { amount: int(amount) })],
      missing: {
        request: context.phrase(fundNoAmount, {}),
        supply: context.phrase(supplyIntents.amount, { value: String(amount) }),
        slot: 'amount',
        withheld: [String(amount)],
      },
    });
    if (check)
      draft.turn({
        request: context.phrase(accountInfo, {}),
        calls: [callText('get_account_info')],
      });
    return draft.finish();
  },
};

/** The TradingBot families. */
export const tradingFamilies: readonly TaskFamily[] = [
  buyByNameFamily,
  watchFamily,
  cancelOrderFamily,
  fundFamily,
];
