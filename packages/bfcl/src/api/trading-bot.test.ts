import { PyDict, parsePyJson, type PyValue } from '@seal/python';
import { describe, expect, it } from 'vitest';
import { BfclSession } from '../session/bfcl-session';
import {
  hasSharedBfclData,
  loadSharedBfclData,
  sharedDataSkipMessage,
} from '../test';
import { BfclRealm } from './bfcl-realm';
import type { TradingBot } from './trading-bot';

// Expected strings below were produced by BFCL's own Python (gorilla
// cd9429cc, CPython 3.11), under TZ=Asia/Tokyo to show that the transaction
// timestamps do not depend on the machine's time zone.

/** The `orders` of many BFCL scenarios: a digit-string key and a stray "order_type" key. */
const strayOrders = JSON.stringify({
  orders: {
    '12345': {
      symbol: 'AAPL',
      price: 210.65,
      num_shares: 10,
      status: 'Completed',
    },
    order_type: 'Buy',
  },
});

async function createSession({
  config = '{}',
  longContext = false,
}: { config?: string; longContext?: boolean } = {}): Promise<BfclSession> {
  const dataset = await loadSharedBfclData();
  const initialConfig = new PyDict([['TradingBot', parsePyJson(config)]]);
  return new BfclSession({
    realm: new BfclRealm({ data: dataset.runtime }),
    initialConfig,
    involvedClasses: ['TradingBot'],
    longContext,
  });
}

function run(session: BfclSession, calls: string[]): string[] {
  return calls.map((call) => session.execute(call).result);
}

function bot(session: BfclSession): TradingBot {
  return session.instances.get('TradingBot') as TradingBot;
}

describe.skipIf(!hasSharedBfclData)('TradingBot', () => {
  describe('loadScenario', () => {
    it('should turn digit-string order ids into ints and keep other keys', async () => {
      const session = await createSession({ config: strayOrders });
      expect([...bot(session).orders.keys()]).toEqual([12345n, 'order_type']);
      const defaults = await createSession();
      expect([...bot(defaults).orders.keys()]).toEqual([12345n, 12446n]);
      expect(
        bot(defaults)
          .publicAttributes()
          .map(([name]) => name),
      ).toEqual([
        'orders',
        'account_info',
        'authenticated',
        'market_status',
        'order_counter',
        'stocks',
        'watch_list',
        'transaction_history',
        'long_context',
      ]);
    });
  });

  describe('when not logged in', () => {
    it('should answer with the Python repr of a list for list-shaped errors', async () => {
      const session = await createSession();
      expect(
        run(session, [
          'get_watchlist()',
          'get_order_history()',
          'get_order_details(order_id=1)',
        ]),
      ).toEqual([
        "['Error: User not authenticated. Please log in to view the watchlist.']",
        "[{'error': 'User not authenticated. Please log in to view order history.'}]",
        '{"error": "Order with ID 1 not found.Here is the list of orders_id: [12345, 12446]"}',
      ]);
    });
  });

  describe('update_market_status', () => {
    it('should parse %I:%M %p like strptime and keep 4:00 PM inside the market hours', async () => {
      const session = await createSession();
      expect(
        run(session, [
          "update_market_status(current_time_str='13:00 PM')",
          "update_market_status(current_time_str='4:00 PM')",
          "update_market_status(current_time_str='4:01 pm')",
          "update_market_status(current_time_str='9:30 am')",
        ]),
      ).toEqual([
        "Error during execution: time data '13:00 PM' does not match format '%I:%M %p'",
        '{"status": "Open"}',
        '{"status": "Closed"}',
        '{"status": "Open"}',
      ]);
    });
  });

  describe('orders and money', () => {
    it('should reproduce results, errors, random timestamps and state', async () => {
      const session = await createSession();
      expect(
        run(session, [
          "make_transaction(account_id=12345, xact_type='deposit', amount=10)",
          "trading_login(username='a', password='b')",
          "place_order(order_type='Buy', symbol='AAPL', price=150, amount=10)",
          "place_order(order_type='Buy', symbol='AAPL', price='5', amount=10)",
          'fund_account(amount=100)',
          'fund_account(amount=2.5)',
          "get_transaction_history(start_date='2024-02-30')",
          'get_transaction_history(start_date=5)',
          "get_transaction_history(end_date='2024-09-02')",
          "update_stock_price(symbol='AAPL', new_price=250)",
          "filter_stocks_by_price(stocks=[['x']], min_price=1, max_price=2)",
          "notify_price_change(stocks=['AAPL', 'TSLA', 'ZZZ'], threshold=0.1)",
          "get_symbol_by_name(name='Amazon')",
          "get_stock_info(symbol='AMZN')",
          'cancel_order(order_id=12345)',
          'cancel_order(order_id=12446)',
          "update_market_status(current_time_str='9:30 am')",
          "make_transaction(account_id=12345, xact_type='withdrawal', amount=20000)",
          "make_transaction(account_id=12345, xact_type='withdrawal', amount=50)",
          "make_transaction(account_id=12345.0, xact_type='transfer', amount=50)",
          "add_to_watchlist(stock='AMZN')",
          "add_to_watchlist(stock='TSLA')",
          "remove_stock_from_watchlist(symbol='NVDA')",
          'get_watchlist()',
        ]),
      ).toEqual([
        '{"error": "User not authenticated. Please log in to make a transaction."}',
        '{"status": "Logged in successfully"}',
        '{"order_id": 12446, "order_type": "Buy", "status": "Pending", "price": 150.0, "amount": 10}',
        "Error during execution: '<=' not supported between instances of 'str' and 'int'",
        '{"status": "Account funded successfully", "new_balance": 10100.0}',
        '{"status": "Account funded successfully", "new_balance": 10102.5}',
        'Error during execution: day is out of range for month',
        'Error during execution: strptime() argument 1 must be str, not int',
        '{"transaction_history": [{"type": "deposit", "amount": 2.5, "timestamp": "2024-09-01 12:26:34"}]}',
        '{"symbol": "AAPL", "old_price": 227.16, "new_price": 250}',
        "Error during execution: unhashable type: 'list'",
        '{"notification": "Stocks AAPL, TSLA have significant price changes."}',
        '{"symbol": "AMZN"}',
        '{"error": "Stock with symbol \'AMZN\' not found."}',
        '{"error": "Can\'t cancel order 12345. Order is already completed."}',
        '{"order_id": 12446, "status": "Cancelled"}',
        '{"status": "Open"}',
        '{"error": "Insufficient funds for withdrawal."}',
        '{"status": "Withdrawal successful", "new_balance": 10052.5}',
        '{"error": "Invalid transaction type. Use \'deposit\' or \'withdrawal\'."}',
        '{"symbol": ["NVDA"]}',
        '{"symbol": ["NVDA", "TSLA"]}',
        '{"status": "Stock NVDA removed from watchlist successfully."}',
        '{"watchlist": ["TSLA"]}',
      ]);
      const state = bot(session);
      // The default order_counter collides with order 12446, which the new
      // order replaces in place; it is stored as "Open" (then cancelled here).
      const order = state.orders.get(12446n) as PyDict;
      expect(order.get('price')).toBe(150);
      expect(order.get('order_type')).toBe('Buy');
      expect(state.order_counter).toBe(12447n);
      const aapl = (state.stocks as PyDict).get('AAPL') as PyDict;
      expect(aapl.get('price')).toBe(250n);
      expect(aapl.get('percent_change')).toBe(10.054587075189296);
      expect(
        (state.transaction_history as PyValue[]).map((t) =>
          (t as PyDict).get('timestamp'),
        ),
      ).toEqual([
        '2024-09-02 05:40:15',
        '2024-09-01 12:26:34',
        '2024-09-02 04:29:48',
      ]);
    });

    it('should store a placed order as Open while reporting it as Pending', async () => {
      const session = await createSession();
      run(session, [
        "trading_login(username='a', password='b')",
        "place_order(order_type='Sell', symbol='TSLA', price=700, amount=3)",
      ]);
      expect(run(session, ['get_order_details(order_id=12446)'])).toEqual([
        '{"id": 12446, "order_type": "Sell", "symbol": "TSLA", "price": 700.0, "amount": 3, "status": "Open"}',
      ]);
    });
  });

  describe('a scenario whose orders hold a stray string value', () => {
    it('should return the string raw and fail on it like Python', async () => {
      const session = await createSession({ config: strayOrders });
      expect(
        run(session, [
          "get_order_details(order_id='order_type')",
          "cancel_order(order_id='order_type')",
          "trading_login(username='a', password='b')",
          'get_order_history()',
          'get_order_details(order_id=12345)',
        ]),
      ).toEqual([
        'Buy',
        "Error during execution: string indices must be integers, not 'str'",
        '{"status": "Logged in successfully"}',
        '{"history": [12345, "order_type"]}',
        '{"symbol": "AAPL", "price": 210.65, "num_shares": 10, "status": "Completed"}',
      ]);
    });
  });

  describe('long context', () => {
    it('should pad the outputs of the read methods and leave the state alone', async () => {
      const session = await createSession({
        config: strayOrders,
        longContext: true,
      });
      const [stray, details, , watchlist, stock, automobile, , history] = run(
        session,
        [
          "get_order_details(order_id='order_type')",
          'get_order_details(order_id=12345)',
          "trading_login(username='a', password='b')",
          'get_watchlist()',
          "get_stock_info(symbol='NVDA')",
          "get_available_stocks(sector='Automobile')",
          'fund_account(amount=1)',
          "get_transaction_history(start_date='2024-09-01')",
        ],
      );
      expect(stray).toBe(
        "Error during execution: 'str' object has no attribute 'copy'",
      );
      expect(details).toHaveLength(7321);
      expect(details).toContain(
        '"metadata": {"company_overview": "\\n    AAPL is one of the most influential',
      );
      expect(watchlist).toHaveLength(7006);
      expect(watchlist!.startsWith("['NVDA', 'JHGUN', ")).toBe(true);
      expect(watchlist!.endsWith(', Ellipsis]')).toBe(true);
      expect(stock).toHaveLength(31704);
      expect(
        automobile!.startsWith(
          '{"stock_list": ["TSLA", "F", "GM", "TSLA", "F", "GM", "UNUGJ", ',
        ),
      ).toBe(true);
      expect(automobile).toHaveLength(7056);
      expect(history).toHaveLength(84440);
      expect(
        history!.startsWith(
          '{"transaction_history": [{"type": "deposit", "amount": 1, "timestamp": "2024-09-02 05:40:15"}, ' +
            '{"type": "deposit", "amount": 9933.53, "timestamp": "2024-05-01 22:14:05.858817"}',
        ),
      ).toBe(true);
      expect(bot(session).watch_list).toEqual(['NVDA']);
    });
  });
});

describe.skipIf(hasSharedBfclData)(
  'TradingBot without the shared BFCL data',
  () => {
    it.skip(`${sharedDataSkipMessage}`, () => {});
  },
);
