import type { PyDict } from '@seal/python';
import { pyDictOf, type PlainPy } from './py-build';

/**
 * Builders of complete initial states, one per stateful class. Every
 * attribute `_load_scenario` reads is written, so a generated task never
 * falls back to BFCL's `DEFAULT_STATE` (the one exception is MessageAPI's
 * `generated_ids`, a Python set that JSON cannot carry: it is left out and
 * starts empty, as BFCL's default does).
 */

/** A file of the generated file system. */
export type FileNode = {
  readonly kind: 'file';
  readonly name: string;
  readonly content: string;
};
/** A folder of the generated file system. */
export type FolderNode = {
  readonly kind: 'folder';
  readonly name: string;
  readonly entries: readonly FileSystemNode[];
};
/** A file or folder. */
export type FileSystemNode = FileNode | FolderNode;

/** A file node. */
export function fileNode(name: string, content: string): FileNode {
  return { kind: 'file', name, content };
}

/** A folder node. */
export function folderNode(
  name: string,
  entries: readonly FileSystemNode[],
): FolderNode {
  return { kind: 'folder', name, entries };
}

function contentsOf(entries: readonly FileSystemNode[]): {
  [key: string]: PlainPy;
} {
  const contents: { [key: string]: PlainPy } = {};
  for (const entry of entries) {
    contents[entry.name] =
      entry.kind === 'file'
        ? { type: 'file', content: entry.content }
        : { type: 'directory', contents: contentsOf(entry.entries) };
  }
  return contents;
}

/** `GorillaFileSystem`: a root folder (its name is part of `pwd`) and its entries. */
export function fileSystemState({
  root,
  entries,
}: {
  root: string;
  entries: readonly FileSystemNode[];
}): PyDict {
  return pyDictOf({
    root: { [root]: { type: 'directory', contents: contentsOf(entries) } },
  });
}

/** `MessageAPI`: users (name → id), the inbox (receiver id, text), the signed-in user. */
export function messageState({
  users,
  inbox,
  currentUser,
  seed,
}: {
  users: readonly (readonly [string, string])[];
  inbox: readonly (readonly [string, string])[];
  currentUser: string | null;
  seed: bigint;
}): PyDict {
  return pyDictOf({
    random_seed: seed,
    user_count: BigInt(users.length),
    user_map: Object.fromEntries(users),
    inbox: inbox.map(([receiver, text]) => ({ [receiver]: text })),
    message_count: BigInt(inbox.length),
    current_user: currentUser,
  });
}

/** One post of the social feed. */
export type Post = {
  readonly id: number;
  readonly author: string;
  readonly content: string;
  readonly tags: readonly string[];
  readonly mentions: readonly string[];
};

/** `TwitterAPI`: the account, its posts (by id), the follow list; the counter follows the highest id. */
export function twitterState({
  username,
  password,
  authenticated,
  posts,
  following,
}: {
  username: string;
  password: string;
  authenticated: boolean;
  posts: readonly Post[];
  following: readonly string[];
}): PyDict {
  const next = posts.reduce((max, post) => Math.max(max, post.id + 1), 0);
  return pyDictOf({
    username,
    password,
    authenticated,
    tweets: Object.fromEntries(
      posts.map((post) => [
        String(post.id),
        {
          id: BigInt(post.id),
          username: post.author,
          content: post.content,
          tags: post.tags,
          mentions: post.mentions,
        },
      ]),
    ),
    comments: {},
    retweets: {},
    following_list: following,
    tweet_counter: BigInt(next),
  });
}

/** One support ticket. */
export type Ticket = {
  readonly id: number;
  readonly title: string;
  readonly description: string;
  readonly status: string;
  readonly priority: number;
  readonly createdBy: string;
};

/** `TicketAPI`: the queue, the next id (after the highest) and the logged-in user. */
export function ticketState({
  tickets,
  currentUser,
}: {
  tickets: readonly Ticket[];
  currentUser: string | null;
}): PyDict {
  const next = tickets.reduce((max, ticket) => Math.max(max, ticket.id + 1), 1);
  return pyDictOf({
    ticket_queue: tickets.map((ticket) => ({
      id: BigInt(ticket.id),
      title: ticket.title,
      description: ticket.description,
      status: ticket.status,
      priority: BigInt(ticket.priority),
      created_by: ticket.createdBy,
    })),
    ticket_counter: BigInt(next),
    current_user: currentUser,
  });
}

/** One stock quote (prices are floats). */
export type Stock = {
  readonly symbol: string;
  readonly price: number;
  readonly percentChange: number;
  readonly volume: number;
  readonly movingAverage5: number;
  readonly movingAverage20: number;
};

/** One order of the trading account. */
export type Order = {
  readonly id: number;
  readonly type: 'Buy' | 'Sell';
  readonly symbol: string;
  readonly price: number;
  readonly amount: number;
  readonly status: string;
};

/** `TradingBot`: stocks, orders, the account, login, market status and watch list. */
export function tradingState({
  stocks,
  orders,
  accountId,
  balance,
  bindingCard,
  authenticated,
  marketOpen,
  watchList,
  seed,
}: {
  stocks: readonly Stock[];
  orders: readonly Order[];
  accountId: number;
  balance: number;
  bindingCard: bigint;
  authenticated: boolean;
  marketOpen: boolean;
  watchList: readonly string[];
  seed: bigint;
}): PyDict {
  const next = orders.reduce(
    (max, order) => Math.max(max, order.id + 1),
    10001,
  );
  return pyDictOf({
    orders: Object.fromEntries(
      orders.map((order) => [
        String(order.id),
        {
          id: BigInt(order.id),
          order_type: order.type,
          symbol: order.symbol,
          price: order.price,
          amount: BigInt(order.amount),
          status: order.status,
        },
      ]),
    ),
    account_info: {
      account_id: BigInt(accountId),
      balance,
      binding_card: bindingCard,
    },
    authenticated,
    market_status: marketOpen ? 'Open' : 'Closed',
    order_counter: BigInt(next),
    stocks: Object.fromEntries(
      stocks.map((stock) => [
        stock.symbol,
        {
          price: stock.price,
          percent_change: stock.percentChange,
          volume: stock.volume,
          'MA(5)': stock.movingAverage5,
          'MA(20)': stock.movingAverage20,
        },
      ]),
    ),
    watch_list: watchList,
    transaction_history: [],
    random_seed: seed,
  });
}

/** One registered credit card. */
export type Card = {
  readonly id: string;
  readonly number: string;
  readonly expiration: string;
  readonly holder: string;
  readonly verification: number;
  readonly balance: number;
};

/** One flight booking. */
export type Booking = {
  readonly id: string;
  readonly cardId: string;
  readonly date: string;
  readonly from: string;
  readonly to: string;
  readonly travelClass: string;
  readonly cost: number;
  readonly transactionId: string;
};

/** `TravelAPI`: cards, bookings, the login token (or none) and the traveller. */
export function travelState({
  cards,
  bookings,
  token,
  firstName,
  lastName,
  seed,
}: {
  cards: readonly Card[];
  bookings: readonly Booking[];
  /** The access token of a current login, or null when nobody is logged in. */
  token: string | null;
  firstName: string;
  lastName: string;
  seed: bigint;
}): PyDict {
  return pyDictOf({
    random_seed: seed,
    credit_card_list: Object.fromEntries(
      cards.map((card) => [
        card.id,
        {
          card_number: card.number,
          expiration_date: card.expiration,
          cardholder_name: card.holder,
          card_verification_number: BigInt(card.verification),
          balance: card.balance,
        },
      ]),
    ),
    booking_record: Object.fromEntries(
      bookings.map((booking) => [
        booking.id,
        {
          card_id: booking.cardId,
          travel_date: booking.date,
          travel_from: booking.from,
          travel_to: booking.to,
          travel_class: booking.travelClass,
          travel_cost: booking.cost,
          transaction_id: booking.transactionId,
        },
      ]),
    ),
    access_token: token,
    token_type: token === null ? null : 'Bearer',
    token_expires_in: token === null ? null : 2n,
    token_scope: token === null ? null : 'read_write',
    user_first_name: token === null ? null : firstName,
    user_last_name: token === null ? null : lastName,
    budget_limit: null,
  });
}

/** The four doors of the car. */
export const carDoors = [
  'driver',
  'passenger',
  'rear_left',
  'rear_right',
] as const;

/** What a generated car scenario sets; everything else is a parked, locked-up car. */
export type CarSettings = {
  readonly seed: bigint;
  readonly fuelLevel: number;
  readonly unlockedDoors: readonly string[];
  readonly engineRunning: boolean;
  readonly acTemperature: number;
  readonly tirePressures: readonly [number, number, number, number];
  readonly batteryVoltage: number;
  readonly headlightsOn: boolean;
};

/** `VehicleControlAPI`: every field of `_load_scenario`, private ones included. */
export function vehicleState(settings: CarSettings): PyDict {
  const doorStatus = Object.fromEntries(
    carDoors.map((door) => [
      door,
      settings.unlockedDoors.includes(door) ? 'unlocked' : 'locked',
    ]),
  );
  const [frontLeft, frontRight, rearLeft, rearRight] = settings.tirePressures;
  return pyDictOf({
    random_seed: settings.seed,
    fuelLevel: settings.fuelLevel,
    batteryVoltage: settings.batteryVoltage,
    engineState: settings.engineRunning ? 'running' : 'stopped',
    remainingUnlockedDoors: BigInt(settings.unlockedDoors.length),
    doorStatus,
    acTemperature: settings.acTemperature,
    fanSpeed: 50n,
    acMode: 'auto',
    humidityLevel: 50.0,
    headLightStatus: settings.headlightsOn ? 'on' : 'off',
    parkingBrakeStatus: 'released',
    parkingBrakeForce: 0.0,
    slopeAngle: 0.0,
    brakePedalStatus: 'released',
    brakePedalForce: 0.0,
    distanceToNextVehicle: 50.0,
    cruiseStatus: 'inactive',
    destination: 'None',
    frontLeftTirePressure: frontLeft,
    frontRightTirePressure: frontRight,
    rearLeftTirePressure: rearLeft,
    rearRightTirePressure: rearRight,
  });
}
