import type { PyRandom } from '@seal/python';
import {
  between,
  chance,
  distractors,
  handle,
  password,
  pick,
  pickSome,
} from '../draw';
import { defineIntent } from '../phrasing';
import { callText, int, pyDictOf } from '../py-build';
import { ticketState, type Ticket } from '../states';
import type { FamilyContext, TaskFamily } from '../task-family';
import { resolutions, ticketDescriptions, ticketTopics } from '../word-lists';
import { supplyIntents } from './supply-intents';

const classes = ['TicketAPI'] as const;

/** Draws ticket ids (100–999) without repeats. */
export class TicketIds {
  private readonly used = new Set<number>();
  /** A fresh id. */
  next(random: PyRandom): number {
    for (;;) {
      const id = between(random, 100, 999);
      if (!this.used.has(id)) {
        this.used.add(id);
        return id;
      }
    }
  }
}

/**
 * Distractor tickets (noise stream) whose titles avoid `words`; `owners`
 * are the users they may belong to (a random one each).
 */
export function noiseTickets(
  context: FamilyContext,
  ids: TicketIds,
  {
    words = [],
    owners,
    statuses = ['Open', 'Closed', 'Resolved'],
    counts = { base: [1, 2], long: [6, 9] },
  }: {
    words?: readonly string[];
    owners: readonly string[];
    statuses?: readonly string[];
    /** How many, per scale. */
    counts?: { base: [number, number]; long: [number, number] };
  },
): Ticket[] {
  const { noise } = context;
  const count = distractors(context, counts);
  const topics = pickSome(noise, ticketTopics, count, (topic) =>
    words.some((word) =>
      topic.title.toLowerCase().includes(word.toLowerCase()),
    ),
  );
  return topics.map((topic) => ({
    id: ids.next(noise),
    title: topic.title,
    description: pick(noise, ticketDescriptions),
    status: pick(noise, statuses),
    priority: between(noise, 1, 5),
    createdBy: pick(noise, owners),
  }));
}

const loginDesk = defineIntent('tickets.login', [
  'Log in to the help desk as {user} with password {password}.',
  'Sign in to the ticket system: user {user}, password {password}.',
  'Please log me in as {user}, password {password}.',
  'Help desk login for {user}, the password is {password}.',
]);
const createTicket = defineIntent('tickets.create', [
  "Open a ticket titled '{title}' with priority {priority}.",
  "Create a priority {priority} ticket called '{title}'.",
  "File a ticket '{title}', priority {priority}.",
  "Raise a new issue named '{title}' at priority {priority}.",
]);
const createTicketNoTitle = defineIntent('tickets.create.no-title', [
  'Open a ticket with priority {priority}.',
  'Create a priority {priority} ticket.',
  'File a new ticket, priority {priority}.',
  'Raise a new issue at priority {priority}.',
]);

/** Log in to the help desk and open a ticket. */
export const createTicketFamily: TaskFamily = {
  id: 'tickets.create',
  longContext: false,
  classes,
  difficulty: 'medium',
  pool: 'in-distribution',
  summary:
    'Log in with the given credentials and open a ticket with a title and priority.',
  intents: [loginDesk, createTicket, createTicketNoTitle, supplyIntents.title],
  build(context) {
    const { random } = context;
    const user = handle(random);
    const secret = password(random);
    const topic = pick(random, ticketTopics);
    const priority = between(random, 1, 5);
    const ids = new TicketIds();
    const others = [handle(context.noise, new Set([user])), user];
    const draft = context.begin({
      TicketAPI: ticketState({
        tickets: noiseTickets(context, ids, { owners: others }),
        currentUser: null,
      }),
    });
    draft.turn({
      request: context.phrase(loginDesk, { user, password: secret }),
      calls: [callText('ticket_login', { username: user, password: secret })],
    });
    draft.turn({
      request: context.phrase(createTicket, {
        title: topic.title,
        priority: String(priority),
      }),
      calls: [
        callText('create_ticket', {
          title: topic.title,
          priority: int(priority),
        }),
      ],
      missing: {
        request: context.phrase(createTicketNoTitle, {
          priority: String(priority),
        }),
        supply: context.phrase(supplyIntents.title, { value: topic.title }),
        slot: 'title',
        withheld: [topic.title],
      },
    });
    return draft.finish();
  },
};

const listOpen = defineIntent('tickets.list-open', [
  'Show my open tickets.',
  'List my tickets that are still Open.',
  'Which of my tickets are open?',
  'Bring up every open ticket of mine.',
]);
const closeTopic = defineIntent('tickets.close-topic', [
  'Close the one about the {word}.',
  'Please close the {word} ticket.',
  'Mark the {word} ticket as closed.',
  'The {word} issue is done; close it.',
]);
const closeSomething = defineIntent('tickets.close-topic.no-topic', [
  'Close one of them.',
  'Please close a ticket.',
  'Mark one of those as closed.',
  'One issue is done; close it.',
]);

/** List open tickets, then close the one on a topic (id from the listing). */
export const closeTicketFamily: TaskFamily = {
  id: 'tickets.close',
  longContext: true,
  classes,
  difficulty: 'medium',
  pool: 'in-distribution',
  summary: "List the user's open tickets and close the one about a topic.",
  intents: [listOpen, closeTopic, closeSomething, supplyIntents.topic],
  build(context) {
    const { random } = context;
    const user = handle(random);
    const topic = pick(random, ticketTopics);
    const ids = new TicketIds();
    const ticket: Ticket = {
      id: ids.next(random),
      title: topic.title,
      description: pick(random, ticketDescriptions),
      status: 'Open',
      priority: between(random, 1, 5),
      createdBy: user,
    };
    // The long form adds several of the user's own open tickets, so the
    // listing the agent reads grows with them.
    const own = noiseTickets(context, ids, {
      words: [topic.word],
      owners: [user],
      statuses: ['Open'],
      counts: { base: [0, 1], long: [4, 5] },
    });
    const others = noiseTickets(context, ids, {
      words: [topic.word, ...own.map((item) => item.title)],
      owners: [user, handle(context.noise, new Set([user]))],
      counts: { base: [1, 1], long: [2, 3] },
    });
    const noise = [...own, ...others];
    const draft = context.begin({
      TicketAPI: ticketState({
        tickets: context.noise.shuffle([ticket, ...noise]),
        currentUser: user,
      }),
    });
    draft.turn({
      request: context.phrase(listOpen, {}),
      calls: [callText('get_user_tickets', { status: 'Open' })],
    });
    draft.turn({
      request: context.phrase(closeTopic, { word: topic.word }),
      calls: [callText('close_ticket', { ticket_id: int(ticket.id) })],
      missing: {
        request: context.phrase(closeSomething, {}),
        supply: context.phrase(supplyIntents.topic, { value: topic.word }),
        slot: 'ticket',
        withheld: [topic.word],
      },
    });
    return draft.finish();
  },
};

const getTicket = defineIntent('tickets.get', [
  'What is the status of ticket {id}?',
  'Show me ticket {id}.',
  'Look up ticket {id}.',
  'Any news on ticket number {id}?',
]);
const resolveTicket = defineIntent('tickets.resolve', [
  "Resolve it with the note '{resolution}'.",
  "Mark it resolved: '{resolution}'.",
  "Set it to resolved with the resolution '{resolution}'.",
  "It is fixed; record '{resolution}' as the resolution.",
]);
const resolveTicketNoNote = defineIntent('tickets.resolve.no-note', [
  'Resolve it.',
  'Mark it resolved.',
  'Set it to resolved.',
  'It is fixed; record the resolution.',
]);

/** Look up a ticket by id and resolve it. */
export const resolveTicketFamily: TaskFamily = {
  id: 'tickets.resolve',
  longContext: false,
  classes,
  difficulty: 'medium',
  pool: 'in-distribution',
  summary: 'Look up a ticket by id, then resolve it with a note.',
  intents: [getTicket, resolveTicket, resolveTicketNoNote, supplyIntents.text],
  build(context) {
    const { random } = context;
    const user = handle(random);
    const topic = pick(random, ticketTopics);
    const resolution = pick(random, resolutions);
    const ids = new TicketIds();
    const ticket: Ticket = {
      id: ids.next(random),
      title: topic.title,
      description: pick(random, ticketDescriptions),
      status: 'Open',
      priority: between(random, 1, 5),
      createdBy: user,
    };
    const noise = noiseTickets(context, ids, { owners: [user] });
    const draft = context.begin({
      TicketAPI: ticketState({
        tickets: context.noise.shuffle([ticket, ...noise]),
        currentUser: user,
      }),
    });
    const id = String(ticket.id);
    draft.turn({
      request: context.phrase(getTicket, { id }),
      calls: [callText('get_ticket', { ticket_id: int(ticket.id) })],
    });
    draft.turn({
      request: context.phrase(resolveTicket, { resolution }),
      calls: [
        callText('resolve_ticket', { ticket_id: int(ticket.id), resolution }),
      ],
      missing: {
        request: context.phrase(resolveTicketNoNote, {}),
        supply: context.phrase(supplyIntents.text, { value: resolution }),
        slot: 'resolution',
        withheld: [resolution],
      },
    });
    return draft.finish();
  },
};

const setPriority = defineIntent('tickets.set-priority', [
  'Set the priority of ticket {id} to {priority}.',
  'Change ticket {id} to priority {priority}.',
  'Make ticket {id} priority {priority}.',
  'Bump ticket {id} so its priority reads {priority}.',
]);
const setPriorityNoValue = defineIntent('tickets.set-priority.no-value', [
  'Change the priority of ticket {id}.',
  'Update the priority of ticket {id}.',
  'Give ticket {id} a new priority.',
  'Bump ticket {id} to another priority.',
]);
const showTicketAgain = defineIntent('tickets.show-again', [
  'Show me that ticket now.',
  'Display the updated ticket.',
  'Let me see the ticket after the change.',
  'Pull the ticket up once more.',
]);

/** Change a ticket's priority, then maybe show it. */
export const reprioritizeFamily: TaskFamily = {
  id: 'tickets.reprioritize',
  longContext: false,
  classes,
  difficulty: 'easy',
  pool: 'in-distribution',
  summary:
    'Set the priority of a ticket given by id, optionally showing it afterwards.',
  intents: [
    setPriority,
    setPriorityNoValue,
    showTicketAgain,
    supplyIntents.priority,
  ],
  build(context) {
    const { random } = context;
    const user = handle(random);
    const ids = new TicketIds();
    const from = between(random, 1, 5);
    const to = pick(
      random,
      [1, 2, 3, 4, 5].filter((value) => value !== from),
    );
    const ticket: Ticket = {
      id: ids.next(random),
      title: pick(random, ticketTopics).title,
      description: pick(random, ticketDescriptions),
      status: 'Open',
      priority: from,
      createdBy: user,
    };
    const show = chance(random, 0.4);
    const noise = noiseTickets(context, ids, { owners: [user] });
    const draft = context.begin({
      TicketAPI: ticketState({
        tickets: context.noise.shuffle([ticket, ...noise]),
        currentUser: user,
      }),
    });
    const id = String(ticket.id);
    draft.turn({
      request: context.phrase(setPriority, { id, priority: String(to) }),
      calls: [
        callText('edit_ticket', {
          ticket_id: int(ticket.id),
          updates: pyDictOf({ priority: int(to) }),
        }),
      ],
      missing: {
        request: context.phrase(setPriorityNoValue, { id }),
        supply: context.phrase(supplyIntents.priority, { value: String(to) }),
        slot: 'priority',
        withheld: [String(to)],
      },
    });
    if (show)
      draft.turn({
        request: context.phrase(showTicketAgain, {}),
        calls: [callText('get_ticket', { ticket_id: int(ticket.id) })],
      });
    return draft.finish();
  },
};

/** The TicketAPI families. */
export const ticketFamilies: readonly TaskFamily[] = [
  createTicketFamily,
  closeTicketFamily,
  resolveTicketFamily,
  reprioritizeFamily,
];
