import { between, chance, pick, pickSome } from '../draw';
import { defineIntent } from '../phrasing';
import { callText, int } from '../py-build';
import {
  fileNode,
  fileSystemState,
  messageState,
  ticketState,
  tradingState,
  twitterState,
  vehicleState,
  type Post,
  type Ticket,
} from '../states';
import { resultField, type TaskFamily } from '../task-family';
import {
  firstNames,
  rootFolderNames,
  textLines,
  ticketDescriptions,
  ticketTopics,
} from '../word-lists';
import { freshFileName, noiseEntries } from './file-system-families';
import { noiseInbox, workspace } from './message-families';
import { supplyIntents } from './supply-intents';
import { TicketIds, noiseTickets } from './ticket-families';
import { market, quote, tradingCompanies } from './trading-families';
import { beginTravellerDraft, pickRoute } from './travel-families';
import { PostIds, noisePosts } from './twitter-families';
import { handle, money, password } from '../draw';

const lookUpTicket = defineIntent('cross.ticket-lookup', [
  'Look up ticket {id}.',
  'Show me ticket {id}.',
  'What does ticket {id} say?',
  'Fetch ticket number {id} from the help desk.',
]);
const sendTicketTitle = defineIntent('cross.send-ticket-title', [
  'Send its title to {friend}.',
  'Message {friend} the title of that ticket.',
  'Tell {friend} what the ticket is called.',
  'Forward the ticket title to {friend} on the messenger.',
]);
const sendTicketTitleNobody = defineIntent(
  'cross.send-ticket-title.no-recipient',
  [
    'Send its title to a colleague.',
    'Message someone the title of that ticket.',
    'Tell my teammate what the ticket is called.',
    'Forward the ticket title to a coworker on the messenger.',
  ],
);

/** Read a ticket, then message its title to a user (title and id copied from results). */
export const ticketToMessageFamily: TaskFamily = {
  id: 'cross.ticket-to-message',
  longContext: false,
  classes: ['TicketAPI', 'MessageAPI'],
  difficulty: 'hard',
  pool: 'in-distribution',
  summary:
    'Look up a ticket and send its title to a colleague on the messenger.',
  intents: [
    lookUpTicket,
    sendTicketTitle,
    sendTicketTitleNobody,
    supplyIntents.person,
  ],
  build(context) {
    const { random } = context;
    const [me, friend] = pickSome(random, firstNames, 2);
    const owner = handle(random);
    const ids = new TicketIds();
    const topic = pick(random, ticketTopics);
    const ticket: Ticket = {
      id: ids.next(random),
      title: topic.title,
      description: pick(random, ticketDescriptions),
      status: 'Open',
      priority: between(random, 1, 5),
      createdBy: owner,
    };
    const people = workspace(context, [me!, friend!]);
    const draft = context.begin({
      TicketAPI: ticketState({
        tickets: context.noise.shuffle([
          ticket,
          ...noiseTickets(context, ids, { owners: [owner] }),
        ]),
        currentUser: owner,
      }),
      MessageAPI: messageState({
        users: people.users,
        inbox: noiseInbox(context, people),
        currentUser: people.id(me!),
        seed: random.randint(1, 999_999),
      }),
    });
    draft.turn({
      request: context.phrase(lookUpTicket, { id: String(ticket.id) }),
      calls: [callText('get_ticket', { ticket_id: int(ticket.id) })],
    });
    draft.turn({
      request: context.phrase(sendTicketTitle, { friend: friend! }),
      calls: [
        callText('get_user_id', { user: friend! }),
        callText('send_message', {
          receiver_id: people.id(friend!),
          message: ticket.title,
        }),
      ],
      missing: {
        request: context.phrase(sendTicketTitleNobody, {}),
        supply: context.phrase(supplyIntents.person, { value: friend! }),
        slot: 'recipient',
        withheld: [friend!],
      },
    });
    return draft.finish();
  },
};

const stockPrice = defineIntent('cross.stock-price', [
  'What is the price of {symbol}?',
  'Get the stock info of {symbol}.',
  'How much does {symbol} cost per share?',
  'Check the quote for {symbol} first.',
]);
const costOfShares = defineIntent('cross.cost-of-shares', [
  'How much would {amount} shares cost?',
  'Multiply that price by {amount}.',
  'What do {amount} shares come to?',
  'Work out the bill for {amount} of them.',
]);
const costOfSomeShares = defineIntent('cross.cost-of-shares.no-amount', [
  'How much would a batch of shares cost?',
  'Multiply that price by the number I want.',
  'What would my shares come to?',
  'Work out the bill for my order.',
]);

/** A stock price, then the cost of some shares (price copied from the result). */
export const stockCostFamily: TaskFamily = {
  id: 'cross.stock-cost',
  longContext: false,
  classes: ['TradingBot', 'MathAPI'],
  difficulty: 'medium',
  pool: 'in-distribution',
  summary: 'Read a stock price and multiply it by a number of shares.',
  intents: [stockPrice, costOfShares, costOfSomeShares, supplyIntents.number],
  build(context) {
    const { random } = context;
    const [, symbol] = pick(random, tradingCompanies);
    const stock = quote(random, symbol);
    const amount = between(random, 2, 40);
    const draft = context.begin({
      TradingBot: tradingState({
        stocks: market(context, [stock]),
        orders: [],
        accountId: between(random, 10_000, 99_999),
        balance: money(random, 2000, 20_000),
        bindingCard: context.noise.randint(
          1_000_000_000_000_000n,
          9_999_999_999_999_999n,
        ),
        authenticated: true,
        marketOpen: true,
        watchList: [],
        seed: random.randint(1, 999_999),
      }),
    });
    draft.turn({
      request: context.phrase(stockPrice, { symbol }),
      calls: [callText('get_stock_info', { symbol })],
    });
    draft.turn({
      request: context.phrase(costOfShares, { amount: String(amount) }),
      calls: [callText('multiply', { a: stock.price, b: int(amount) })],
      missing: {
        request: context.phrase(costOfSomeShares, {}),
        supply: context.phrase(supplyIntents.number, { value: String(amount) }),
        slot: 'amount',
        withheld: [String(amount)],
      },
    });
    return draft.finish();
  },
};

const readFile = defineIntent('cross.read-file', [
  'What does {file} say?',
  'Show me {file}.',
  'Read {file} for me.',
  'Open {file} and tell me its text.',
]);
const readSomeFile = defineIntent('cross.read-file.no-file', [
  'What does my file say?',
  'Show me the file.',
  'Read a file for me.',
  'Open my note and tell me its text.',
]);
const postFileText = defineIntent('cross.post-file', [
  'Post that text on my feed.',
  'Publish the content of the file as a post.',
  'Share what the file says as a post.',
  'Turn that note into a post on the feed.',
]);

/** Read a one-line file and post its text (copied from the result). */
export const fileToPostFamily: TaskFamily = {
  id: 'cross.file-to-post',
  longContext: false,
  classes: ['GorillaFileSystem', 'TwitterAPI'],
  difficulty: 'medium',
  pool: 'in-distribution',
  summary: 'Print a one-line file and publish its text as a post.',
  intents: [readFile, readSomeFile, postFileText, supplyIntents.fileName],
  build(context) {
    const { random } = context;
    const used = new Set<string>();
    const file = freshFileName(random, used);
    const line = pick(random, textLines);
    const user = handle(random);
    const ids = new PostIds();
    const entries = context.noise.shuffle([
      fileNode(file, line),
      ...noiseEntries(context, used),
    ]);
    const draft = context.begin({
      GorillaFileSystem: fileSystemState({
        root: pick(random, rootFolderNames),
        entries,
      }),
      TwitterAPI: twitterState({
        username: user,
        password: password(random),
        authenticated: true,
        posts: noisePosts(context, ids, { authors: new Set([user]) }),
        following: [],
      }),
    });
    draft.turn({
      request: context.phrase(readFile, { file }),
      calls: [callText('cat', { file_name: file })],
      missing: {
        request: context.phrase(readSomeFile, {}),
        supply: context.phrase(supplyIntents.fileName, { value: file }),
        slot: 'file name',
        withheld: [file],
      },
    });
    draft.turn({
      request: context.phrase(postFileText, {}),
      calls: [callText('post_tweet', { content: line })],
    });
    return draft.finish();
  },
};

const fare = defineIntent('cross.fare', [
  'How much is a {cabin} flight from {from} to {to} on {date}?',
  'Quote a {cabin} fare {from} to {to} for {date}.',
  'Get the {cabin} price from {from} to {to} on {date}.',
  'Price out one {cabin} ticket {from} to {to}, flying {date}.',
]);
const fareNoDate = defineIntent('cross.fare.no-date', [
  'How much is a {cabin} flight from {from} to {to}?',
  'Quote a {cabin} fare {from} to {to}.',
  'Get the {cabin} price from {from} to {to}.',
  'Price out one {cabin} ticket {from} to {to}.',
]);
const fareTimes = defineIntent('cross.fare-times', [
  'What would {count} tickets cost?',
  'Multiply that fare by {count}.',
  'Total it for {count} people.',
  'We are a group of {count}; what is the total?',
]);

/** A fare, then the fare times a group size (fare copied from the result). */
export const fareTotalFamily: TaskFamily = {
  id: 'cross.fare-total',
  longContext: false,
  classes: ['TravelAPI', 'MathAPI'],
  difficulty: 'medium',
  pool: 'in-distribution',
  summary: 'Quote a fare and multiply it by the number of travellers.',
  intents: [fare, fareNoDate, fareTimes, supplyIntents.date],
  build(context) {
    const { random } = context;
    const route = pickRoute(random);
    const cabin = pick(random, ['economy', 'business', 'first'] as const);
    const date = `2025-${String(between(random, 1, 12)).padStart(2, '0')}-${String(between(random, 1, 28)).padStart(2, '0')}`;
    const count = between(random, 2, 9);
    const draft = beginTravellerDraft(context);
    const [quoted] = draft.turn({
      request: context.phrase(fare, {
        cabin,
        from: route.from,
        to: route.to,
        date,
      }),
      calls: [
        callText('get_flight_cost', {
          travel_from: route.from,
          travel_to: route.to,
          travel_date: date,
          travel_class: cabin,
        }),
      ],
      missing: {
        request: context.phrase(fareNoDate, {
          cabin,
          from: route.from,
          to: route.to,
        }),
        supply: context.phrase(supplyIntents.date, { value: date }),
        slot: 'travel date',
        withheld: [date],
      },
    });
    const cost = (resultField(quoted!, 'travel_cost_list') as number[])[0]!;
    draft.turn({
      request: context.phrase(fareTimes, { count: String(count) }),
      calls: [callText('multiply', { a: cost, b: int(count) })],
    });
    return draft.finish();
  },
};

const readNote = defineIntent('ood.read-note', [
  'Print the note in {file}.',
  'Read out {file}.',
  'What is written in {file}?',
  'Check what {file} holds.',
]);
const sendNote = defineIntent('ood.send-note', [
  'Send that line to {friend}.',
  'Message {friend} with what the note says.',
  'Pass the note on to {friend}.',
  'Let {friend} know what it says.',
]);
const sendNoteNobody = defineIntent('ood.send-note.no-recipient', [
  'Send that line to a friend.',
  'Message a colleague with what the note says.',
  'Pass the note on to someone.',
  'Let my teammate know what it says.',
]);

/** Held-out composition: read a file and message its text. */
export const fileToMessageFamily: TaskFamily = {
  id: 'cross.file-to-message',
  longContext: false,
  classes: ['GorillaFileSystem', 'MessageAPI'],
  difficulty: 'hard',
  pool: 'out-of-distribution',
  summary:
    'Print a one-line file and send its text to a user named in the request.',
  intents: [readNote, sendNote, sendNoteNobody, supplyIntents.person],
  build(context) {
    const { random } = context;
    const used = new Set<string>();
    const file = freshFileName(random, used);
    const line = pick(random, textLines);
    const [me, friend] = pickSome(random, firstNames, 2);
    const people = workspace(context, [me!, friend!]);
    const entries = context.noise.shuffle([
      fileNode(file, line),
      ...noiseEntries(context, used),
    ]);
    const draft = context.begin({
      GorillaFileSystem: fileSystemState({
        root: pick(random, rootFolderNames),
        entries,
      }),
      MessageAPI: messageState({
        users: people.users,
        inbox: noiseInbox(context, people),
        currentUser: people.id(me!),
        seed: random.randint(1, 999_999),
      }),
    });
    draft.turn({
      request: context.phrase(readNote, { file }),
      calls: [callText('cat', { file_name: file })],
    });
    draft.turn({
      request: context.phrase(sendNote, { friend: friend! }),
      calls: [
        callText('get_user_id', { user: friend! }),
        callText('send_message', {
          receiver_id: people.id(friend!),
          message: line,
        }),
      ],
      missing: {
        request: context.phrase(sendNoteNobody, {}),
        supply: context.phrase(supplyIntents.person, { value: friend! }),
        slot: 'recipient',
        withheld: [friend!],
      },
    });
    return draft.finish();
  },
};

const showPost = defineIntent('ood.show-post', [
  'Show me post {id}.',
  'Fetch the post with id {id}.',
  'What does post {id} say?',
  'Pull up post number {id}.',
]);
const ticketFromPost = defineIntent('ood.ticket-from-post', [
  "Open a ticket titled '{title}' with that post as the description.",
  "Create a ticket '{title}' and use the post text as its description.",
  "File a ticket called '{title}', describing it with the post.",
  "Log an issue '{title}' whose description is the post.",
]);
const ticketFromPostNoTitle = defineIntent('ood.ticket-from-post.no-title', [
  'Open a ticket with that post as the description.',
  'Create a ticket and use the post text as its description.',
  'File a ticket, describing it with the post.',
  'Log an issue whose description is the post.',
]);

/** Held-out composition: read a post and open a ticket describing it. */
export const postToTicketFamily: TaskFamily = {
  id: 'cross.post-to-ticket',
  longContext: false,
  classes: ['TwitterAPI', 'TicketAPI'],
  difficulty: 'hard',
  pool: 'out-of-distribution',
  summary:
    'Fetch a post by id and open a ticket whose description is the post text.',
  intents: [
    showPost,
    ticketFromPost,
    ticketFromPostNoTitle,
    supplyIntents.title,
  ],
  build(context) {
    const { random } = context;
    const user = handle(random);
    const ids = new PostIds();
    const author = handle(random, new Set([user]));
    const post: Post = {
      id: ids.next(random),
      author,
      content: pick(random, textLines),
      tags: [],
      mentions: [],
    };
    const topic = pick(random, ticketTopics);
    const ticketIds = new TicketIds();
    const draft = context.begin({
      TwitterAPI: twitterState({
        username: user,
        password: password(random),
        authenticated: true,
        posts: context.noise.shuffle([post, ...noisePosts(context, ids)]),
        following: [author],
      }),
      TicketAPI: ticketState({
        tickets: noiseTickets(context, ticketIds, { owners: [user] }),
        currentUser: user,
      }),
    });
    draft.turn({
      request: context.phrase(showPost, { id: String(post.id) }),
      calls: [callText('get_tweet', { tweet_id: int(post.id) })],
    });
    draft.turn({
      request: context.phrase(ticketFromPost, { title: topic.title }),
      calls: [
        callText('create_ticket', {
          title: topic.title,
          description: post.content,
        }),
      ],
      missing: {
        request: context.phrase(ticketFromPostNoTitle, {}),
        supply: context.phrase(supplyIntents.title, { value: topic.title }),
        slot: 'title',
        withheld: [topic.title],
      },
    });
    return draft.finish();
  },
};

const litersToGallons = defineIntent('ood.liters-to-gallons', [
  'How many gallons is {liters} liters?',
  'Convert {liters} liters into gallons.',
  'Turn {liters} liters into US gallons.',
  'I have {liters} liters; what is that in gallons?',
]);
const roundGallons = defineIntent('ood.round-gallons', [
  'Round that to {places} decimal places.',
  'Give it to {places} decimals.',
  'Round the gallons to {places} digits.',
  'Trim that to {places} places after the point.',
]);
const roundGallonsSomehow = defineIntent('ood.round-gallons.no-places', [
  'Round that off.',
  'Give it with fewer decimals.',
  'Round the gallons.',
  'Trim that a little.',
]);

/** Held-out composition: a car's litre conversion, rounded by the calculator. */
export const litersRoundedFamily: TaskFamily = {
  id: 'cross.liters-rounded',
  longContext: false,
  classes: ['VehicleControlAPI', 'MathAPI'],
  difficulty: 'medium',
  pool: 'out-of-distribution',
  summary:
    'Convert litres to gallons with the car, then round the result with the calculator.',
  intents: [
    litersToGallons,
    roundGallons,
    roundGallonsSomehow,
    supplyIntents.number,
  ],
  build(context) {
    const { random } = context;
    const liters = between(random, 5, 90);
    const places = between(random, 1, 3);
    const pressure = (): number => between(context.noise, 300, 360) / 10;
    const draft = context.begin({
      VehicleControlAPI: vehicleState({
        seed: random.randint(1, 999_999),
        fuelLevel: money(context.noise, 8, 30),
        unlockedDoors: [],
        engineRunning: false,
        acTemperature: between(context.noise, 18, 26),
        tirePressures: [pressure(), pressure(), pressure(), pressure()],
        batteryVoltage: 12.6,
        headlightsOn: chance(context.noise, 0.3),
      }),
    });
    const [converted] = draft.turn({
      request: context.phrase(litersToGallons, { liters: String(liters) }),
      calls: [callText('liter_to_gallon', { liter: int(liters) })],
    });
    const gallons = resultField(converted!, 'gallon') as number;
    draft.turn({
      request: context.phrase(roundGallons, { places: String(places) }),
      calls: [
        callText('round_number', {
          number: gallons,
          decimal_places: int(places),
        }),
      ],
      missing: {
        request: context.phrase(roundGallonsSomehow, {}),
        supply: context.phrase(supplyIntents.number, { value: String(places) }),
        slot: 'decimal places',
        withheld: [String(places)],
      },
    });
    return draft.finish();
  },
};

const symbolFor = defineIntent('ood.symbol-for', [
  'Find the ticker of {company}.',
  'What does {company} trade as?',
  'Get me the stock symbol for {company}.',
  'Which ticker belongs to {company}?',
]);
const sendSymbol = defineIntent('ood.send-symbol', [
  'Send that symbol to {friend}.',
  'Message the ticker to {friend}.',
  'Let {friend} know the symbol.',
  'Text {friend} the ticker we found.',
]);
const sendSymbolNobody = defineIntent('ood.send-symbol.no-recipient', [
  'Send that symbol to a friend.',
  'Message the ticker to a colleague.',
  'Let my teammate know the symbol.',
  'Text someone the ticker we found.',
]);

/** Held-out composition: look up a ticker and message it. */
export const symbolToMessageFamily: TaskFamily = {
  id: 'cross.symbol-to-message',
  longContext: false,
  classes: ['TradingBot', 'MessageAPI'],
  difficulty: 'hard',
  pool: 'out-of-distribution',
  summary:
    'Find the ticker of a company and send it to a user named in the request.',
  intents: [symbolFor, sendSymbol, sendSymbolNobody, supplyIntents.person],
  build(context) {
    const { random } = context;
    const [company, symbol] = pick(random, tradingCompanies);
    const [me, friend] = pickSome(random, firstNames, 2);
    const people = workspace(context, [me!, friend!]);
    const draft = context.begin({
      TradingBot: tradingState({
        stocks: market(context, [quote(random, symbol)]),
        orders: [],
        accountId: between(random, 10_000, 99_999),
        balance: money(random, 2000, 20_000),
        bindingCard: context.noise.randint(
          1_000_000_000_000_000n,
          9_999_999_999_999_999n,
        ),
        authenticated: true,
        marketOpen: true,
        watchList: [],
        seed: random.randint(1, 999_999),
      }),
      MessageAPI: messageState({
        users: people.users,
        inbox: noiseInbox(context, people),
        currentUser: people.id(me!),
        seed: random.randint(1, 999_999),
      }),
    });
    draft.turn({
      request: context.phrase(symbolFor, { company }),
      calls: [callText('get_symbol_by_name', { name: company })],
    });
    draft.turn({
      request: context.phrase(sendSymbol, { friend: friend! }),
      calls: [
        callText('get_user_id', { user: friend! }),
        callText('send_message', {
          receiver_id: people.id(friend!),
          message: symbol,
        }),
      ],
      missing: {
        request: context.phrase(sendSymbolNobody, {}),
        supply: context.phrase(supplyIntents.person, { value: friend! }),
        slot: 'recipient',
        withheld: [friend!],
      },
    });
    return draft.finish();
  },
};

/** Cross-class families of the training distribution. */
export const crossClassFamilies: readonly TaskFamily[] = [
  ticketToMessageFamily,
  stockCostFamily,
  fileToPostFamily,
  fareTotalFamily,
];

/** Cross-class families whose compositions only the out-of-distribution test sees. */
export const heldOutCompositionFamilies: readonly TaskFamily[] = [
  fileToMessageFamily,
  postToTicketFamily,
  litersRoundedFamily,
  symbolToMessageFamily,
];
