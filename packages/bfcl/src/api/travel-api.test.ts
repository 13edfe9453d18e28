import { PyDict, parsePyJson } from '@seal/python';
import { describe, expect, it } from 'vitest';
import { BfclSession } from '../session/bfcl-session';
import {
  hasSharedBfclData,
  loadSharedBfclData,
  sharedDataSkipMessage,
} from '../test';
import { BfclRealm } from './bfcl-realm';
import type { TravelApi } from './travel-api';

// Every expected string below was produced by BFCL's own Python (gorilla
// cd9429cc, CPython 3.11, PYTHONHASHSEED=0).

async function createSession({
  config = {},
  longContext = false,
  realm,
  now,
}: {
  config?: Record<string, unknown>;
  longContext?: boolean;
  realm?: BfclRealm;
  now?: () => Date;
} = {}): Promise<BfclSession> {
  const dataset = await loadSharedBfclData();
  return new BfclSession({
    realm: realm ?? new BfclRealm({ data: dataset.runtime, now }),
    initialConfig: new PyDict([
      ['TravelAPI', parsePyJson(JSON.stringify(config))],
    ]),
    involvedClasses: ['TravelAPI'],
    longContext,
  });
}

function run(session: BfclSession, calls: string[]): string[] {
  return calls.map((call) => session.execute(call).result);
}

function travel(session: BfclSession): TravelApi {
  return session.instances.get('TravelAPI') as TravelApi;
}

const login =
  "authenticate_travel(client_id='c', client_secret='s', refresh_token='r', grant_type='read_write', user_first_name='Ann', user_last_name='Lee')";

describe.skipIf(!hasSharedBfclData)('TravelApi', () => {
  describe('tokens', () => {
    it('should report a missing token, and raise on `None - 1` for a wrong token', async () => {
      const session = await createSession();
      expect(
        run(session, [
          'travel_get_login_status()',
          "register_credit_card(access_token='x', card_number='1', expiration_date='e', cardholder_name='n', card_verification_number=1)",
          "book_flight(access_token='x', card_id='c', travel_date='2024-01-01', travel_from='SFO', travel_to='LAX', travel_class='economy')",
          "cancel_booking(access_token='x', booking_id='c')",
        ]),
      ).toEqual([
        '{"status": false}',
        '{"error": "Token not initialized"}',
        "Error during execution: unsupported operand type(s) for -=: 'NoneType' and 'int'",
        "Error during execution: unsupported operand type(s) for -=: 'NoneType' and 'int'",
      ]);
      expect(travel(session).token_expires_in).toBeNull();
    });

    it('should draw the seeded token and spend one life per wrong token', async () => {
      const session = await createSession();
      expect(run(session, [login])).toEqual([
        '{"expires_in": 2, "access_token": "251675", "token_type": "Bearer", "scope": "read_write"}',
      ]);
      expect(
        run(session, [
          "get_credit_card_balance(access_token='bad', card_id='c')",
          "get_credit_card_balance(access_token='bad', card_id='c')",
          "get_credit_card_balance(access_token='251675', card_id='c')",
          'travel_get_login_status()',
        ]),
      ).toEqual([
        '{"error": "Invalid access token"}',
        '{"error": "Invalid access token"}',
        '{"error": "Token expired"}',
        '{"status": false}',
      ]);
      expect(travel(session).token_expires_in).toBe(0n);
    });
  });

  describe('cards, bookings and insurance', () => {
    it('should draw ids and balances in BFCL order and keep int and float balances apart', async () => {
      const session = await createSession();
      const results = run(session, [
        login,
        "register_credit_card(access_token='251675', card_number='4444', expiration_date='12/2030', cardholder_name='Ann Lee', card_verification_number=123)",
        "get_credit_card_balance(access_token='251675', card_id='391310425148')",
        "book_flight(access_token='251675', card_id='391310425148', travel_date='2024-01-05', travel_from='SFO', travel_to='LAX', travel_class='economy')",
        "purchase_insurance(access_token='251675', insurance_type='full', booking_id='4191922', insurance_cost=50, card_id='391310425148')",
        'get_all_credit_cards()',
        "cancel_booking(access_token='251675', booking_id='4191922')",
        "get_credit_card_balance(access_token='251675', card_id='391310425148')",
        "get_credit_card_balance(access_token='251675', card_id='zzz')",
      ]);
      expect(results.slice(1)).toEqual([
        '{"card_id": "391310425148"}',
        '{"card_balance": 58617}',
        '{"booking_id": "4191922", "transaction_id": "56121276", "booking_status": true, "booking_history": {}}',
        '{"insurance_id": "789652479", "insurance_status": true}',
        '{"credit_card_list": {"391310425148": {"card_number": "4444", "expiration_date": "12/2030", "cardholder_name": "Ann Lee", "card_verification_number": 123, "balance": 58167.0}}}',
        '{"cancel_status": true}',
        '{"card_balance": 58567.0}',
        `{"error": "Card not registered. Here are a list of card_id's: ['391310425148']"}`,
      ]);
    });

    it('should validate book_flight arguments in BFCL order with its messages', async () => {
      const session = await createSession();
      run(session, [
        login,
        "register_credit_card(access_token='251675', card_number='4444', expiration_date='12/2030', cardholder_name='Ann Lee', card_verification_number=123)",
      ]);
      const book = (args: string): string =>
        session.execute(
          `book_flight(access_token='251675', card_id='391310425148', ${args})`,
        ).result;
      expect(
        book(
          "travel_date='2024-01-05', travel_from=['SFO'], travel_to='LAX', travel_class='economy'",
        ),
      ).toBe(
        `{"booking_status": false, "error": "Invalid departure airport code: ['SFO']"}`,
      );
      expect(
        book(
          "travel_date='2023-02-29', travel_from='SFO', travel_to='LAX', travel_class='economy'",
        ),
      ).toBe(
        '{"booking_status": false, "error": "Invalid date format. Use YYYY-MM-DD."}',
      );
      expect(
        book(
          "travel_date=20240105, travel_from='SFO', travel_to='LAX', travel_class='economy'",
        ),
      ).toBe(
        'Error during execution: strptime() argument 1 must be str, not int',
      );
      // The set prints in PYTHONHASHSEED=0 order.
      expect(
        book(
          "travel_date='2024-01-05', travel_from='SFO', travel_to='LAX', travel_class='premium'",
        ),
      ).toBe(
        `{"booking_status": false, "error": "Invalid travel class. Must be one of {'first', 'business', 'economy'}"}`,
      );
      expect(
        book(
          "travel_date='2024-01-05', travel_from='SFO', travel_to='LAX', travel_class=['economy']",
        ),
      ).toBe("Error during execution: unhashable type: 'list'");
      expect(
        book(
          "travel_date='2024-01-05', travel_from='CDG', travel_to='SFO', travel_class='economy'",
        ),
      ).toBe(
        '{"booking_status": false, "error": "No available route for the given airports."}',
      );
      expect(travel(session).booking_record).toEqual(new PyDict());
    });
  });

  describe('get_flight_cost', () => {
    it('should double the fare on an even digit sum and scale by class', async () => {
      const session = await createSession();
      expect(
        run(session, [
          "get_flight_cost(travel_from='SFO', travel_to='LAX', travel_date='2024-01-01', travel_class='economy')",
          "get_flight_cost(travel_from='SFO', travel_to='LAX', travel_date='2024-01-02', travel_class='first')",
          "get_flight_cost(travel_from='SFO', travel_to='LAX', travel_date=['2024', '11', 'x'], travel_class='economy')",
          "get_flight_cost(travel_from='SFO', travel_to='LAX', travel_date='²', travel_class='economy')",
          "get_flight_cost(travel_from='SFO', travel_to='LAX', travel_date=[1], travel_class='economy')",
          "get_flight_cost(travel_from='SFO', travel_to='XXX', travel_date='2024-01-01', travel_class='economy')",
          "get_flight_cost(travel_from='SFO', travel_to='LAX', travel_date='2024-01-01', travel_class='Economy')",
        ]),
      ).toEqual([
        '{"travel_cost_list": [400.0]}',
        '{"travel_cost_list": [1000.0]}',
        '{"travel_cost_list": [200.0]}',
        "Error during execution: invalid literal for int() with base 10: '²'",
        "Error during execution: 'int' object has no attribute 'isdigit'",
        'Error during execution: No available route for the given airports.',
        'Error during execution: Invalid travel class. Options are: economy, business, first.',
      ]);
    });
  });

  describe('compute_exchange_rate and set_budget_limit', () => {
    it('should multiply forward, divide and round in reverse, and store the limit as a float', async () => {
      const session = await createSession();
      expect(
        run(session, [
          "compute_exchange_rate(base_currency='USD', target_currency='RMB', value=100)",
          "compute_exchange_rate(base_currency='RMB', target_currency='USD', value=100)",
          "compute_exchange_rate(base_currency='USD', target_currency='EUR', value=100)",
          "compute_exchange_rate(base_currency='USD', target_currency='RMB', value='10')",
          "compute_exchange_rate(base_currency='JPY', target_currency='JPY', value=1)",
          login,
          "set_budget_limit(access_token='251675', budget_limit='1e3')",
        ]),
      ).toEqual([
        '{"exchanged_value": 700}',
        '{"exchanged_value": 14.29}',
        '{"exchanged_value": 80.0}',
        '{"exchanged_value": "10101010101010"}',
        'Error during execution: No available exchange rate for the given currencies.',
        '{"expires_in": 2, "access_token": "251675", "token_type": "Bearer", "scope": "read_write"}',
        '{"budget_limit": 1000.0}',
      ]);
      expect(travel(session).budget_limit).toBe(1000);
    });
  });

  describe('verify_traveler_information', () => {
    it("should compute the age from the realm's today", async () => {
      const session = await createSession({
        now: () => new Date(2024, 5, 1, 12),
      });
      run(session, [login]);
      const verify = (dob: string, passport = "'US1'"): string =>
        session.execute(
          `verify_traveler_information(first_name='Ann', last_name='Lee', date_of_birth='${dob}', passport_number=${passport})`,
        ).result;
      expect(verify('2006-06-01')).toBe('{"verification_status": true}');
      expect(verify('2006-06-02')).toBe(
        '{"verification_status": false, "verification_failure": "Traveler must be at least 18 years old."}',
      );
      expect(verify('1990-01-01', '123')).toBe(
        "Error during execution: 'int' object has no attribute 'startswith'",
      );
      expect(
        session.execute(
          "verify_traveler_information(first_name='Bob', last_name='Lee', date_of_birth='1990-01-01', passport_number='US1')",
        ).result,
      ).toBe(
        '{"verification_status": false, "verification_failure": "Cannot book flight information for another user.Expected Ann Lee, got Bob Lee"}',
      );
    });
  });

  describe('long context', () => {
    it('should price every route and return the whole booking history in insertion order', async () => {
      const session = await createSession({ longContext: true });
      run(session, [login]);
      const costs = parsePyJson(
        session.execute(
          "get_flight_cost(travel_from='SFO', travel_to='LAX', travel_date='2024-01-01', travel_class='economy')",
        ).result,
      ) as PyDict;
      const list = costs.get('travel_cost_list') as number[];
      expect(list).toHaveLength(153);
      expect([...list.slice(0, 3), ...list.slice(-2)]).toEqual([
        400, 1000, 800, 200, 440,
      ]);
      const result = session.execute(
        "book_flight(access_token='251675', card_id='1234567812345678', travel_date='2024-01-05', travel_from='SFO', travel_to='LAX', travel_class='economy')",
      ).result;
      expect(result).toMatch(
        /^\{"booking_id": "5431449", "transaction_id": "59784505", "booking_status": true, "booking_history": \{"booking_901": /,
      );
      // The numeric new id comes last, as in Python, not first as in a JS object.
      expect(result).toMatch(
        /"booking_400": \{[^}]*\}, "5431449": \{[^}]*\}\}\}$/,
      );
    });

    it('should share the padding cards between instances of one realm, as BFCL shares its module dicts', async () => {
      const dataset = await loadSharedBfclData();
      const realm = new BfclRealm({ data: dataset.runtime });
      const model = await createSession({ longContext: true, realm });
      const truth = await createSession({ longContext: true, realm });
      const other = await createSession({ longContext: true });
      const book =
        "book_flight(access_token='251675', card_id='1234567812345678', travel_date='2024-01-05', travel_from='SFO', travel_to='LAX', travel_class='economy')";
      run(model, [login, book]);
      const card = (session: BfclSession): PyDict =>
        (travel(session).credit_card_list as PyDict).get(
          '1234567812345678',
        ) as PyDict;
      expect(card(model).get('balance')).toBe(4600);
      expect(card(truth).get('balance')).toBe(4600);
      expect(card(other).get('balance')).toBe(5000);
    });
  });
});

describe.skipIf(hasSharedBfclData)(
  'TravelApi without the shared BFCL data',
  () => {
    it.skip(`${sharedDataSkipMessage}`, () => {});
  },
);
