import type { PyRandom } from '@seal/python';
import { between, chance, distractors, pick, pickSome } from '../draw';
import { defineIntent } from '../phrasing';
import { callText } from '../py-build';
import { messageState } from '../states';
import {
  resultField,
  type FamilyContext,
  type TaskFamily,
} from '../task-family';
import { firstNames, messageTexts } from '../word-lists';
import { supplyIntents } from './supply-intents';

const classes = ['MessageAPI'] as const;

/** A messenger population: the named users plus distractors, with ids `USR100`–`USR999`. */
export type Workspace = {
  /** Name → id, in state order. */
  readonly users: readonly (readonly [string, string])[];
  /** Id of a named user. */
  id(name: string): string;
};

/**
 * Builds the user directory: `named` users first drawn from the core stream
 * (so their ids are stable), then distractor users from the noise stream,
 * shuffled together.
 */
export function workspace(
  context: FamilyContext,
  named: readonly string[],
  { avoid = [] }: { avoid?: readonly string[] } = {},
): Workspace {
  const usedIds = new Set<string>();
  const freshId = (random: PyRandom): string => {
    for (;;) {
      const id = `USR${between(random, 100, 999)}`;
      if (!usedIds.has(id)) {
        usedIds.add(id);
        return id;
      }
    }
  };
  const core = named.map((name) => [name, freshId(context.random)] as const);
  const extra = distractors(context, { base: [1, 2], long: [8, 12] });
  const others = pickSome(
    context.noise,
    firstNames,
    extra,
    (name) => named.includes(name) || avoid.includes(name),
  ).map((name) => [name, freshId(context.noise)] as const);
  const users = context.noise.shuffle([...core, ...others]);
  const byName = new Map(users);
  return { users, id: (name) => byName.get(name)! };
}

/** Inbox entries to distractor users (noise stream), avoiding texts `exclude` rejects. */
export function noiseInbox(
  context: FamilyContext,
  people: Workspace,
  {
    exclude = () => false,
    avoid = [],
  }: { exclude?: (text: string) => boolean; avoid?: readonly string[] } = {},
): (readonly [string, string])[] {
  const count = distractors(context, { base: [0, 2], long: [6, 9] });
  const receivers = people.users
    .filter(([name]) => !avoid.includes(name))
    .map(([, id]) => id);
  return pickSome(
    context.noise,
    messageTexts,
    Math.min(count, messageTexts.length),
    exclude,
  ).map((text) => [pick(context.noise, receivers), text] as const);
}

const sendById = defineIntent('message.send-by-id', [
  "Send '{text}' to user {id}.",
  "Message user {id}: '{text}'.",
  "Please send {id} the text '{text}'.",
  "Could you ping {id} with '{text}'?",
]);
const sendByIdNoText = defineIntent('message.send-by-id.no-text', [
  'Send a message to user {id}.',
  'Message user {id} for me.',
  'Please send {id} a text.',
  'Could you ping {id}?',
]);

/** Send a given text to a user id (already signed in). */
export const sendByIdFamily: TaskFamily = {
  id: 'message.send-by-id',
  longContext: false,
  classes,
  difficulty: 'easy',
  pool: 'in-distribution',
  summary: 'Send a text to a user given by id; the user is signed in.',
  intents: [sendById, sendByIdNoText, supplyIntents.text],
  build(context) {
    const { random } = context;
    const [me, friend] = pickSome(random, firstNames, 2);
    const text = pick(random, messageTexts);
    const people = workspace(context, [me!, friend!]);
    const draft = context.begin({
      MessageAPI: messageState({
        users: people.users,
        inbox: noiseInbox(context, people),
        currentUser: people.id(me!),
        seed: random.randint(1, 999_999),
      }),
    });
    const id = people.id(friend!);
    draft.turn({
      request: context.phrase(sendById, { text, id }),
      calls: [callText('send_message', { receiver_id: id, message: text })],
      missing: {
        request: context.phrase(sendByIdNoText, { id }),
        supply: context.phrase(supplyIntents.text, { value: text }),
        slot: 'message',
        withheld: [text],
      },
    });
    return draft.finish();
  },
};

const login = defineIntent('message.login', [
  'Log me in to the messenger, my user id is {id}.',
  'Sign in as {id}.',
  'Please log in with user id {id}.',
  'Messenger login for {id}, please.',
]);
const sendToName = defineIntent('message.send-to-name', [
  "Send '{text}' to {friend}.",
  "Message {friend}: '{text}'.",
  "Tell {friend} '{text}'.",
  "Drop {friend} a note saying '{text}'.",
]);
const sendToNobody = defineIntent('message.send-to-name.no-recipient', [
  "Send '{text}' to a colleague.",
  "Message someone: '{text}'.",
  "Tell my teammate '{text}'.",
  "Drop a note saying '{text}'.",
]);
const viewSent = defineIntent('message.view-sent', [
  'Show me all the messages that were sent.',
  'List the sent messages.',
  'What messages are in the inbox now?',
  'Let me review every message sent so far.',
]);

const deleteTo = defineIntent('message.delete-to', [
  'Now delete the message to {friend}.',
  'Remove the last message sent to {friend}.',
  'Take back the message to {friend}.',
  'On second thought, unsend what went to {friend}.',
]);

/** Sign in, look up a user by name and message them, list the inbox, maybe take the message back. */
export const loginSendFamily: TaskFamily = {
  id: 'message.login-send',
  longContext: true,
  classes,
  difficulty: 'hard',
  pool: 'in-distribution',
  summary:
    'Sign in by id, send a text to a user named in the request, review the inbox, maybe unsend it.',
  intents: [
    login,
    sendToName,
    sendToNobody,
    viewSent,
    deleteTo,
    supplyIntents.person,
  ],
  build(context) {
    const { random } = context;
    const [me, friend] = pickSome(random, firstNames, 2);
    const text = pick(random, messageTexts);
    const unsend = chance(random, 0.4);
    const people = workspace(context, [me!, friend!]);
    const draft = context.begin({
      MessageAPI: messageState({
        users: people.users,
        inbox: noiseInbox(context, people),
        currentUser: null,
        seed: random.randint(1, 999_999),
      }),
    });
    const myId = people.id(me!);
    const friendId = people.id(friend!);
    draft.turn({
      request: context.phrase(login, { id: myId }),
      calls: [callText('message_login', { user_id: myId })],
    });
    draft.turn({
      request: context.phrase(sendToName, { text, friend: friend! }),
      calls: [
        callText('get_user_id', { user: friend! }),
        callText('send_message', { receiver_id: friendId, message: text }),
      ],
      missing: {
        request: context.phrase(sendToNobody, { text }),
        supply: context.phrase(supplyIntents.person, { value: friend! }),
        slot: 'recipient',
        withheld: [friend!],
      },
    });
    draft.turn({
      request: context.phrase(viewSent, {}),
      calls: [callText('view_messages_sent')],
    });
    if (unsend) {
      draft.turn({
        request: context.phrase(deleteTo, { friend: friend! }),
        calls: [callText('delete_message', { receiver_id: friendId })],
      });
    }
    return draft.finish();
  },
};

const addContact = defineIntent('message.add-contact', [
  'Add {name} to my contacts.',
  'Create a contact for {name}.',
  'Register {name} as a new user.',
  'Please put {name} in the directory.',
]);
const addContactNoName = defineIntent('message.add-contact.no-name', [
  'Add a new contact.',
  'Create a contact for me.',
  'Register a new user.',
  'Please put someone new in the directory.',
]);
const sendToNew = defineIntent('message.send-new-contact', [
  "Send them '{text}'.",
  "Now message {name}: '{text}'.",
  "Tell {name} '{text}'.",
  "Welcome them with '{text}'.",
]);

/** Register a contact, then message them with the id the registration returned. */
export const addContactFamily: TaskFamily = {
  id: 'message.add-contact',
  longContext: false,
  classes,
  difficulty: 'medium',
  pool: 'in-distribution',
  summary: 'Register a new contact and send them a text using the returned id.',
  intents: [addContact, addContactNoName, sendToNew, supplyIntents.person],
  build(context) {
    const { random } = context;
    const [me, name] = pickSome(random, firstNames, 2);
    const text = pick(random, messageTexts);
    const people = workspace(context, [me!], { avoid: [name!] });
    const draft = context.begin({
      MessageAPI: messageState({
        users: people.users,
        inbox: noiseInbox(context, people),
        currentUser: people.id(me!),
        seed: random.randint(1, 999_999),
      }),
    });
    const [added] = draft.turn({
      request: context.phrase(addContact, { name: name! }),
      calls: [callText('add_contact', { user_name: name! })],
      missing: {
        request: context.phrase(addContactNoName, {}),
        supply: context.phrase(supplyIntents.person, { value: name! }),
        slot: 'user name',
        withheld: [name!],
      },
    });
    const newId = resultField(added!, 'user_id') as string;
    draft.turn({
      request: context.phrase(sendToNew, { text, name: name! }),
      calls: [callText('send_message', { receiver_id: newId, message: text })],
    });
    return draft.finish();
  },
};

const searchInbox = defineIntent('message.search', [
  "Find the messages about '{keyword}'.",
  "Search the inbox for '{keyword}'.",
  "Which messages mention '{keyword}'?",
  "Dig up anything that says '{keyword}'.",
]);
const searchInboxNoKeyword = defineIntent('message.search.no-keyword', [
  'Find the messages about that topic.',
  'Search the inbox for a word.',
  'Which messages mention it?',
  'Dig up anything about it.',
]);
const deleteFound = defineIntent('message.delete-found', [
  'Delete the latest message to that user.',
  'Remove the last message sent to that person.',
  'Delete the most recent message to them.',
  'Get rid of the newest message addressed to them.',
]);

/** Search the inbox, then delete the latest message to the receiver found. */
export const searchDeleteFamily: TaskFamily = {
  id: 'message.search-delete',
  longContext: false,
  classes,
  difficulty: 'hard',
  pool: 'in-distribution',
  summary:
    'Search messages by keyword and delete the latest message to the receiver of the match.',
  intents: [
    searchInbox,
    searchInboxNoKeyword,
    deleteFound,
    supplyIntents.searchWord,
  ],
  build(context) {
    const { random } = context;
    const [me, friend] = pickSome(random, firstNames, 2);
    const text = pick(random, messageTexts);
    const keyword = text
      .split(' ')
      .reduce(
        (longest, word) => (word.length > longest.length ? word : longest),
        '',
      );
    const people = workspace(context, [me!, friend!]);
    const friendId = people.id(friend!);
    const noise = noiseInbox(context, people, {
      exclude: (other) => other.toLowerCase().includes(keyword.toLowerCase()),
    });
    const draft = context.begin({
      MessageAPI: messageState({
        users: people.users,
        inbox: [...noise.slice(0, 1), [friendId, text], ...noise.slice(1)],
        currentUser: people.id(me!),
        seed: random.randint(1, 999_999),
      }),
    });
    draft.turn({
      request: context.phrase(searchInbox, { keyword }),
      calls: [callText('search_messages', { keyword })],
      missing: {
        request: context.phrase(searchInboxNoKeyword, {}),
        supply: context.phrase(supplyIntents.searchWord, { value: keyword }),
        slot: 'keyword',
        withheld: [keyword],
      },
    });
    draft.turn({
      request: context.phrase(deleteFound, {}),
      calls: [callText('delete_message', { receiver_id: friendId })],
    });
    return draft.finish();
  },
};

/** The MessageAPI families. */
export const messageFamilies: readonly TaskFamily[] = [
  sendByIdFamily,
  loginSendFamily,
  addContactFamily,
  searchDeleteFamily,
];
