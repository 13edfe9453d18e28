import {
  PyDict,
  PyException,
  PyRandom,
  PySet,
  assertHashable,
  noAttribute,
  pyAdd,
  pyContains,
  pyDictGet,
  pyEquals,
  pyFormatValue,
  pyIter,
  pyListRemove,
  pyLower,
  pyStr,
  pyTruthy,
  pyTypeName,
  type PyKey,
  type PyValue,
} from '@seal/python';
import * as z from 'zod';
import {
  errorResult as error,
  expectDict,
  pyAppend,
  pyDict as dict,
} from './api-helpers';
import {
  BfclApi,
  type BfclClassDefinition,
  type BfclMethodTable,
} from './bfcl-api';
import type { BfclToolSpecs } from './tool-spec';

/** BFCL's seed for `MessageAPI._random` when the scenario gives none. */
const defaultRandomSeed = 200191n;

/**
 * BFCL's `MessageAPI`: a workspace messenger with a user directory, a login
 * and one shared inbox of `{receiver_id: message}` dicts. Behaviour, messages
 * and state follow BFCL v3 (gorilla `cd9429cc`).
 */
export class MessageApi extends BfclApi {
  readonly className = 'MessageAPI' as const;
  protected readonly attributeNames = [
    'generated_ids',
    'user_count',
    'user_map',
    'inbox',
    'message_count',
    'current_user',
  ] as const;

  /** Message ids drawn so far (a Python `set`). */
  generated_ids!: PyValue;
  /** The number of users; `add_contact` derives the next id from it. */
  user_count!: PyValue;
  /** User name → user id. */
  user_map!: PyValue;
  /** Every message ever sent, as one-key dicts `{receiver_id: text}`. */
  inbox!: PyValue;
  /** The number of messages sent (deleting does not decrement it). */
  message_count!: PyValue;
  /** The logged-in user id, or `None`. */
  current_user!: PyValue;
  /** `_random`: draws the message ids. */
  private random = new PyRandom(defaultRandomSeed);

  loadScenario(scenario: PyDict): void {
    const fields = this.realm.scenarioFields({
      className: 'MessageAPI',
      scenario,
    });
    const seed = pyDictGet(scenario, 'random_seed', defaultRandomSeed);
    this.random = new PyRandom(
      typeof seed === 'number' ? seed : (seed as bigint),
    );
    // The default is `set()` in Python; default_states.json stores sets as
    // sorted lists, so the set is rebuilt here. A scenario value is kept as
    // loaded, like Python does.
    const scenarioIds = scenario.get('generated_ids');
    const defaultIds =
      scenarioIds === undefined
        ? fields.defaultValue('generated_ids')
        : undefined;
    this.generated_ids =
      scenarioIds !== undefined
        ? fields.copy(scenarioIds)
        : new PySet(
            pyIter(defaultIds === undefined ? [] : defaultIds).map(
              (id) => id as bigint,
            ),
          );
    this.user_count = fields.get('user_count');
    this.user_map = fields.get('user_map');
    this.inbox = fields.get('inbox');
    this.message_count = fields.get('message_count');
    this.current_user = fields.get('current_user');
  }

  /** `_generate_id`: draws `randint(10000, 99999)` until unused, records it. */
  private generateId(): PyDict {
    let id = this.random.randint(10000n, 99999n);
    while (pyContains(this.generated_ids, id))
      id = this.random.randint(10000n, 99999n);
    if (!(this.generated_ids instanceof PySet)) {
      throw PyException.attributeError(
        `'${pyTypeName(this.generated_ids)}' object has no attribute 'add'`,
      );
    }
    this.generated_ids.add(id);
    return dict({ new_id: id });
  }

  /** `self.user_map.values()` (AttributeError if the map is not a dict). */
  private userIds(): PyValue[] {
    return [...expectDict(this.user_map, 'values').values()];
  }

  /** `list(message.items())[0]`: the receiver and text of one inbox entry. */
  private static firstItem(message: PyValue): [PyValue, PyValue] {
    const entries = [...expectDict(message, 'items').entries()];
    const first = entries[0];
    if (!first) throw PyException.indexError('list index out of range');
    return first;
  }

  static readonly methods: BfclMethodTable<MessageApi> = {
    list_users: {
      parameters: [],
      call(self) {
        return dict({
          user_list: [...expectDict(self.user_map, 'keys').keys()],
        });
      },
    },
    get_user_id: {
      parameters: [{ name: 'user' }],
      call(self, [user]) {
        if (!pyContains(self.user_map, user!)) {
          return error(
            `User '${pyFormatValue(user!)}' not found in the workspace.`,
          );
        }
        return dict({
          user_id: pyDictGet(expectDict(self.user_map, 'get'), user!),
        });
      },
    },
    message_login: {
      parameters: [{ name: 'user_id' }],
      call(self, [userId]) {
        if (!pyContains(self.userIds(), userId!)) {
          return dict({
            login_status: false,
            message: `User ID '${pyFormatValue(userId!)}' not found.`,
          });
        }
        self.current_user = userId!;
        return dict({
          login_status: true,
          message: `User '${pyFormatValue(userId!)}' logged in successfully.`,
        });
      },
    },
    message_get_login_status: {
      parameters: [],
      call(self) {
        return dict({ login_status: pyTruthy(self.current_user) });
      },
    },
    send_message: {
      parameters: [{ name: 'receiver_id' }, { name: 'message' }],
      call(self, [receiverId, message]) {
        if (!pyTruthy(self.current_user))
          return error('No user is currently logged in.');
        // `in dict.values()` compares by equality, so unhashable ids just miss.
        if (!pyContains(self.userIds(), receiverId!)) {
          return error(
            `Receiver ID '${pyFormatValue(receiverId!)}' not found.`,
          );
        }
        const messageId = self.generateId();
        assertHashable(receiverId!);
        pyAppend(self.inbox, new PyDict([[receiverId, message!]]));
        self.message_count = pyAdd(self.message_count, 1n);
        return dict({
          sent_status: true,
          message_id: messageId,
          message: `Message sent to '${pyFormatValue(receiverId!)}' successfully.`,
        });
      },
    },
    delete_message: {
      parameters: [{ name: 'receiver_id' }],
      call(self, [receiverId]) {
        if (!pyTruthy(self.current_user))
          return error('No user is currently logged in.');
        const inbox = self.inbox;
        for (const message of [...pyIter(inbox)].reverse()) {
          const [receiver] = MessageApi.firstItem(message);
          if (pyEquals(receiver, receiverId!)) {
            // `list.remove` drops the first *equal* dict, which may be an
            // earlier duplicate rather than the one found from the end.
            if (!Array.isArray(inbox)) throw noAttribute(inbox, 'remove');
            pyListRemove(inbox, message);
            return dict({
              deleted_status: true,
              message_id: receiver,
              message: `Receiver ${pyFormatValue(receiverId!)}'s first message deleted successfully.`,
            });
          }
        }
        return error(`Receiver ID ${pyFormatValue(receiverId!)} not found.`);
      },
    },
    view_messages_sent: {
      parameters: [],
      call(self) {
        if (!pyTruthy(self.current_user))
          return error('No user is currently logged in.');
        const sent = new PyDict();
        for (const message of pyIter(self.inbox)) {
          const [receiver, content] = MessageApi.firstItem(message);
          const key = receiver as PyKey;
          const existing = sent.get(key);
          if (existing === undefined) sent.set(key, [content]);
          else pyAppend(existing, content);
        }
        return dict({ messages: sent });
      },
    },
    add_contact: {
      parameters: [{ name: 'user_name' }],
      call(self, [userName]) {
        if (pyContains(self.user_map, userName!)) {
          return error(
            `User name '${pyFormatValue(userName!)}' already exists.`,
          );
        }
        // The count is bumped before the duplicate-id check, so a failed
        // call still changes the state.
        self.user_count = pyAdd(self.user_count, 1n);
        const userId = `USR${zfill(pyStr(self.user_count), 3)}`;
        if (pyContains(self.userIds(), userId)) {
          return error(`User ID '${userId}' already exists.`);
        }
        assertHashable(userName!);
        expectDict(self.user_map, '__setitem__').set(userName, userId);
        return dict({
          added_status: true,
          user_id: userId,
          message: `Contact '${pyFormatValue(userName!)}' added successfully.`,
        });
      },
    },
    search_messages: {
      parameters: [{ name: 'keyword' }],
      call(self, [keyword]) {
        if (!pyTruthy(self.current_user))
          return error('No user is currently logged in.');
        const wanted = pyLower(keyword!);
        const results: PyValue[] = [];
        for (const message of pyIter(self.inbox)) {
          const [receiver, content] = MessageApi.firstItem(message);
          if (pyLower(content).includes(wanted)) {
            results.push(dict({ receiver_id: receiver, message: content }));
          }
        }
        return dict({ results });
      },
    },
    get_message_stats: {
      parameters: [],
      call(self) {
        if (!pyTruthy(self.current_user))
          return error('No user is currently logged in.');
        let received = 0n;
        const contacts = new PySet();
        for (const message of pyIter(self.inbox)) {
          const [receiver] = MessageApi.firstItem(message);
          received += 1n;
          contacts.add(receiver as PyKey);
        }
        return dict({
          stats: dict({
            received_count: received,
            total_contacts: BigInt(contacts.size),
          }),
        });
      },
    },
  };
}

/** `str.zfill(width)`: pads with zeros after any sign. */
function zfill(text: string, width: number): string {
  if (text.length >= width) return text;
  const sign = text[0] === '-' || text[0] === '+' ? text[0] : '';
  return sign + '0'.repeat(width - text.length) + text.slice(sign.length);
}

/** Our descriptions and argument schemas of the MessageAPI methods. */
export const messageApiTools: BfclToolSpecs = {
  list_users: {
    description: 'Return the names of every user in the messaging workspace.',
    parameters: z.object({}),
  },
  get_user_id: {
    description: 'Look up the user id that belongs to a user name.',
    parameters: z.object({
      user: z.string().describe('The user name to look up.'),
    }),
  },
  message_login: {
    description: 'Sign in to the messenger as the user with this id.',
    parameters: z.object({
      user_id: z
        .string()
        .describe('Id of the user signing in, such as USR001.'),
    }),
  },
  message_get_login_status: {
    description: 'Report whether somebody is signed in to the messenger.',
    parameters: z.object({}),
  },
  send_message: {
    description:
      'Send a text to another user; needs a signed-in user and returns the new message id.',
    parameters: z.object({
      receiver_id: z.string().describe('Id of the recipient.'),
      message: z.string().describe('The text to send.'),
    }),
  },
  delete_message: {
    description: 'Remove the most recent message addressed to a recipient.',
    parameters: z.object({
      receiver_id: z
        .string()
        .describe('Id of the recipient whose latest message goes.'),
      message_id: z
        .int()
        .optional()
        .describe(
          'Id of the message (listed by the official docs; the method ignores it).',
        ),
    }),
  },
  view_messages_sent: {
    description:
      'Show every message in the workspace inbox, grouped by recipient id.',
    parameters: z.object({}),
  },
  add_contact: {
    description: 'Register a new user name and give it the next free user id.',
    parameters: z.object({
      user_name: z.string().describe('The name to register.'),
    }),
  },
  search_messages: {
    description: 'Find messages whose text contains a keyword, ignoring case.',
    parameters: z.object({ keyword: z.string().describe('Text to look for.') }),
  },
  get_message_stats: {
    description:
      'Count the messages in the inbox and the distinct recipients among them.',
    parameters: z.object({}),
  },
};

/** Registry entry for {@link MessageApi}. */
export const messageApiDefinition: BfclClassDefinition = {
  className: 'MessageAPI',
  create: (realm) => new MessageApi(realm),
  methods: MessageApi.methods as BfclMethodTable<never>,
  stateless: false,
  description:
    'A workspace messenger: sign in, send, find and delete messages, and manage contacts.',
  tools: messageApiTools,
};
