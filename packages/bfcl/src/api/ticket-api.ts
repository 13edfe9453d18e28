import {
  PyDict,
  PySet,
  pyEquals,
  pyFormatValue,
  pyGetItem,
  pyIter,
  pyLower,
  pyLt,
  pyGt,
  pyAdd,
  pyTruthy,
  PyException,
  pyTypeName,
  type PyKey,
  type PyValue,
} from '@seal/python';
import {
  errorResult as error,
  expectDict,
  pyAppend,
  pyDict as dict,
} from './api-helpers';
import * as z from 'zod';
import {
  BfclApi,
  type BfclClassDefinition,
  type BfclMethodTable,
} from './bfcl-api';
import type { BfclToolSpecs } from './tool-spec';
import type { BfclRealm } from './bfcl-realm';

/**
 * BFCL's `TicketAPI`: a support-ticket queue with a simplified login.
 * Behaviour, messages and state follow BFCL v3 (gorilla `cd9429cc`).
 */
export class TicketApi extends BfclApi {
  readonly className = 'TicketAPI' as const;
  protected readonly attributeNames = [
    'ticket_queue',
    'ticket_counter',
    'current_user',
  ] as const;

  /** The tickets, each a dict (`id`, `title`, `description`, `status`, `priority`, `created_by`, ...). */
  ticket_queue!: PyValue;
  /** The id the next ticket gets. */
  ticket_counter!: PyValue;
  /** The logged-in username, or `None`. */
  current_user!: PyValue;

  constructor(realm: BfclRealm) {
    super(realm);
  }

  loadScenario(scenario: PyDict): void {
    const fields = this.realm.scenarioFields({
      className: 'TicketAPI',
      scenario,
    });
    this.ticket_queue = fields.get('ticket_queue');
    this.ticket_counter = fields.get('ticket_counter');
    this.current_user = fields.get('current_user');
  }

  /** `_find_ticket`: the first ticket whose id equals `ticketId`, or undefined. */
  private findTicket(ticketId: PyValue): PyDict | undefined {
    for (const ticket of pyIter(this.ticket_queue)) {
      if (pyEquals(pyGetItem(ticket, 'id'), ticketId)) return ticket as PyDict;
    }
    return undefined;
  }

  static readonly methods: BfclMethodTable<TicketApi> = {
    create_ticket: {
      parameters: [
        { name: 'title' },
        { name: 'description', default: '' },
        { name: 'priority', default: 1n },
      ],
      call(self, [title, description, priority]) {
        if (!pyTruthy(self.current_user)) {
          return error(
            'User not authenticated. Please log in to create a ticket.',
          );
        }
        if (pyLt(priority!, 1n) || pyGt(priority!, 5n)) {
          return error('Invalid priority. Priority must be between 1 and 5.');
        }
        const ticket = dict({
          id: self.ticket_counter,
          title: title!,
          description: description!,
          status: 'Open',
          priority: priority!,
          created_by: self.current_user,
        });
        pyAppend(self.ticket_queue, ticket);
        self.ticket_counter = pyAdd(self.ticket_counter, 1n);
        return ticket;
      },
    },
    get_ticket: {
      parameters: [{ name: 'ticket_id' }],
      call(self, [ticketId]) {
        const ticket = self.findTicket(ticketId!);
        if (!ticket)
          return error(`Ticket with ID ${pyFormatValue(ticketId!)} not found.`);
        return ticket;
      },
    },
    close_ticket: {
      parameters: [{ name: 'ticket_id' }],
      call(self, [ticketId]) {
        const id = pyFormatValue(ticketId!);
        const ticket = self.findTicket(ticketId!);
        if (!ticket) return error(`Ticket with ID ${id} not found.`);
        if (pyEquals(pyGetItem(ticket, 'status'), 'Closed')) {
          return error(`Ticket with ID ${id} is already closed.`);
        }
        ticket.set('status', 'Closed');
        return dict({ status: `Ticket ${id} has been closed successfully.` });
      },
    },
    resolve_ticket: {
      parameters: [{ name: 'ticket_id' }, { name: 'resolution' }],
      call(self, [ticketId, resolution]) {
        const id = pyFormatValue(ticketId!);
        const ticket = self.findTicket(ticketId!);
        if (!ticket) return error(`Ticket with ID ${id} not found.`);
        if (pyEquals(pyGetItem(ticket, 'status'), 'Resolved')) {
          return error(`Ticket with ID ${id} is already resolved.`);
        }
        ticket.set('status', 'Resolved');
        ticket.set('resolution', resolution!);
        return dict({ status: `Ticket ${id} has been resolved successfully.` });
      },
    },
    edit_ticket: {
      parameters: [{ name: 'ticket_id' }, { name: 'updates' }],
      call(self, [ticketId, updates]) {
        const id = pyFormatValue(ticketId!);
        const ticket = self.findTicket(ticketId!);
        if (!ticket) return error(`Ticket with ID ${id} not found.`);
        expectDict(updates!, 'keys');
        if (!(updates instanceof PyDict)) return null;
        const valid = new Set(['title', 'description', 'status', 'priority']);
        // Python builds a set difference; its order follows the hash seed
        // (the fixtures flag such rows), ours follows insertion.
        const invalid = new PySet(
          [...updates.keys()].filter(
            (key) => !(typeof key === 'string' && valid.has(key)),
          ),
        );
        if (invalid.size > 0) {
          const names = [...invalid].map((key) => {
            if (typeof key !== 'string') {
              throw PyException.typeError(
                `sequence item 0: expected str instance, ${pyTypeName(key)} found`,
              );
            }
            return key;
          });
          return error(`Invalid fields for update: ${names.join(', ')}`);
        }
        for (const [key, value] of updates) {
          if (value !== null) ticket.set(key as PyKey, value);
        }
        return dict({ status: `Ticket ${id} has been updated successfully.` });
      },
    },
    ticket_login: {
      parameters: [{ name: 'username' }, { name: 'password' }],
      call(self, [username, password]) {
        if (pyTruthy(username!) && pyTruthy(password!)) {
          self.current_user = username!;
          return dict({ success: true });
        }
        return dict({ success: false });
      },
    },
    ticket_get_login_status: {
      parameters: [],
      call(self) {
        return dict({ username: pyTruthy(self.current_user) });
      },
    },
    logout: {
      parameters: [],
      call(self) {
        if (pyTruthy(self.current_user)) {
          self.current_user = null;
          return dict({ success: true });
        }
        return dict({ success: false });
      },
    },
    get_user_tickets: {
      parameters: [{ name: 'status', default: null }],
      call(self, [status]) {
        if (!pyTruthy(self.current_user)) {
          return [
            dict({
              error: 'User not authenticated. Please log in to view tickets.',
            }),
          ];
        }
        let tickets = pyIter(self.ticket_queue).filter((ticket) =>
          pyEquals(pyGetItem(ticket, 'created_by'), self.current_user),
        );
        if (pyTruthy(status!)) {
          const wanted = pyLower(status!);
          tickets = tickets.filter(
            (ticket) => pyLower(pyGetItem(ticket, 'status')) === wanted,
          );
        }
        return tickets;
      },
    },
  };
}

const ticketId = z.int().describe('Numeric id of the ticket.');

/** Our descriptions and argument schemas of the TicketAPI methods. */
export const ticketApiTools: BfclToolSpecs = {
  create_ticket: {
    description:
      'Open a new support ticket for the logged-in user and put it in the queue.',
    parameters: z.object({
      title: z.string().describe('Short summary of the issue.'),
      description: z
        .string()
        .default('')
        .describe('Details of the issue. Default: empty.'),
      priority: z
        .int()
        .default(1)
        .describe('Priority from 1 (lowest) to 5 (highest). Default: 1.'),
    }),
  },
  get_ticket: {
    description: 'Look up one ticket by id.',
    parameters: z.object({ ticket_id: ticketId }),
  },
  close_ticket: {
    description: 'Mark a ticket as closed.',
    parameters: z.object({ ticket_id: ticketId }),
  },
  resolve_ticket: {
    description: 'Mark a ticket as resolved and record how it was resolved.',
    parameters: z.object({
      ticket_id: ticketId,
      resolution: z.string().describe('How the issue was resolved.'),
    }),
  },
  edit_ticket: {
    description:
      'Change fields of a ticket: title, description, status or priority.',
    parameters: z.object({
      ticket_id: ticketId,
      updates: z
        .object({
          title: z.string().optional().describe('New title.'),
          description: z.string().optional().describe('New description.'),
          status: z.string().optional().describe('New status.'),
          priority: z.int().optional().describe('New priority, 1 to 5.'),
        })
        .describe('The fields to change; fields left out stay as they are.'),
    }),
  },
  ticket_login: {
    description: 'Log in to the ticket system.',
    parameters: z.object({
      username: z.string().describe('User name.'),
      password: z.string().describe('Password.'),
    }),
  },
  ticket_get_login_status: {
    description: 'Tell whether a user is logged in to the ticket system.',
    parameters: z.object({}),
  },
  logout: {
    description: 'Log the current user out of the ticket system.',
    parameters: z.object({}),
  },
  get_user_tickets: {
    description:
      "List the logged-in user's tickets, optionally only those with a given status.",
    parameters: z.object({
      status: z
        .string()
        .optional()
        .describe(
          'Only tickets with this status (case-insensitive). Default: all.',
        ),
    }),
  },
};

/** Registry entry for {@link TicketApi}. */
export const ticketApiDefinition: BfclClassDefinition = {
  className: 'TicketAPI',
  create: (realm) => new TicketApi(realm),
  methods: TicketApi.methods as BfclMethodTable<never>,
  stateless: false,
  description:
    'A support-ticket system: log in, then open, view, edit, resolve and close tickets.',
  tools: ticketApiTools,
};
