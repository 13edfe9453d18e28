import { PyDict, parsePyJson } from '@seal/python';
import { describe, expect, it } from 'vitest';
import { BfclSession } from '../session/bfcl-session';
import {
  hasSharedBfclData,
  loadSharedBfclData,
  sharedDataSkipMessage,
} from '../test';
import { BfclRealm } from './bfcl-realm';
import type { MessageApi } from './message-api';

// Every expected string below was produced by BFCL's own Python (gorilla
// cd9429cc, CPython 3.11).

async function createSession(
  config: Record<string, unknown> = {},
): Promise<BfclSession> {
  const dataset = await loadSharedBfclData();
  return new BfclSession({
    realm: new BfclRealm({ data: dataset.runtime }),
    initialConfig: new PyDict([
      ['MessageAPI', parsePyJson(JSON.stringify(config))],
    ]),
    involvedClasses: ['MessageAPI'],
    longContext: false,
  });
}

function run(session: BfclSession, calls: string[]): string[] {
  return calls.map((call) => session.execute(call).result);
}

function messages(session: BfclSession): MessageApi {
  return session.instances.get('MessageAPI') as MessageApi;
}

describe.skipIf(!hasSharedBfclData)('MessageApi', () => {
  describe('login and sending', () => {
    it('should refuse to send before login and draw seeded ids after it', async () => {
      const session = await createSession();
      expect(
        run(session, [
          "send_message(receiver_id='USR002', message='hi')",
          "message_login(user_id='USR009')",
          "message_login(user_id='USR001')",
          'message_get_login_status()',
          "send_message(receiver_id='USR005', message='hi')",
          "send_message(receiver_id='USR002', message='hi')",
          "send_message(receiver_id='USR002', message='hi')",
          "send_message(receiver_id=['USR002'], message='hi')",
        ]),
      ).toEqual([
        '{"error": "No user is currently logged in."}',
        `{"login_status": false, "message": "User ID 'USR009' not found."}`,
        `{"login_status": true, "message": "User 'USR001' logged in successfully."}`,
        '{"login_status": true}',
        `{"error": "Receiver ID 'USR005' not found."}`,
        `{"sent_status": true, "message_id": {"new_id": 67410}, "message": "Message sent to 'USR002' successfully."}`,
        `{"sent_status": true, "message_id": {"new_id": 41772}, "message": "Message sent to 'USR002' successfully."}`,
        `{"error": "Receiver ID '['USR002']' not found."}`,
      ]);
      const api = messages(session);
      expect(api.message_count).toBe(5n);
      // A set in Python; the comparable state lists it sorted.
      const state = session.comparableState().get('MessageAPI') as PyDict;
      expect(state.get('generated_ids')).toEqual([41772n, 67410n]);
    });

    it('should use the scenario seed', async () => {
      const session = await createSession({
        random_seed: 1234,
        current_user: 'USR001',
      });
      expect(
        run(session, [
          "send_message(receiver_id='USR003', message='a')",
          "send_message(receiver_id='USR003', message='b')",
        ]),
      ).toEqual([
        `{"sent_status": true, "message_id": {"new_id": 67767}, "message": "Message sent to 'USR003' successfully."}`,
        `{"sent_status": true, "message_id": {"new_id": 25315}, "message": "Message sent to 'USR003' successfully."}`,
      ]);
    });
  });

  describe('contacts', () => {
    it('should add a contact with the next id and reject duplicates and unhashable names', async () => {
      const session = await createSession();
      expect(
        run(session, [
          "add_contact(user_name='Alice')",
          "add_contact(user_name='Eve')",
          "add_contact(user_name=['Eve'])",
          "get_user_id(user='Eve')",
          "get_user_id(user='Zed')",
          'list_users()',
        ]),
      ).toEqual([
        `{"error": "User name 'Alice' already exists."}`,
        `{"added_status": true, "user_id": "USR005", "message": "Contact 'Eve' added successfully."}`,
        "Error during execution: unhashable type: 'list'",
        '{"user_id": "USR005"}',
        `{"error": "User 'Zed' not found in the workspace."}`,
        '{"user_list": ["Alice", "Bob", "Catherine", "Daniel", "Eve"]}',
      ]);
    });

    it('should bump user_count even when the new id already exists', async () => {
      const session = await createSession({ user_count: 3 });
      expect(run(session, ["add_contact(user_name='Zoe')"])).toEqual([
        `{"error": "User ID 'USR004' already exists."}`,
      ]);
      expect(messages(session).user_count).toBe(4n);
    });
  });

  describe('inbox', () => {
    it('should delete, group, search and count like BFCL', async () => {
      const session = await createSession({ current_user: 'USR001' });
      expect(
        run(session, [
          "send_message(receiver_id='USR002', message='hi')",
          "send_message(receiver_id='USR002', message='hi')",
          "delete_message(receiver_id='USR002')",
          "delete_message(receiver_id='USR099')",
          "delete_message(receiver_id='USR002', message_id=1)",
          'view_messages_sent()',
          "search_messages(keyword='UPLOAD')",
          'search_messages(keyword=5)',
          'get_message_stats()',
        ]),
      ).toEqual([
        `{"sent_status": true, "message_id": {"new_id": 67410}, "message": "Message sent to 'USR002' successfully."}`,
        `{"sent_status": true, "message_id": {"new_id": 41772}, "message": "Message sent to 'USR002' successfully."}`,
        `{"deleted_status": true, "message_id": "USR002", "message": "Receiver USR002's first message deleted successfully."}`,
        '{"error": "Receiver ID USR099 not found."}',
        "Error during execution: MessageAPI.delete_message() got an unexpected keyword argument 'message_id'",
        '{"messages": {"USR002": ["My name is Alice. I want to connect.", "hi"], "USR003": ["Could you upload the file?"], "USR004": ["Could you upload the file?"]}}',
        '{"results": [{"receiver_id": "USR003", "message": "Could you upload the file?"}, {"receiver_id": "USR004", "message": "Could you upload the file?"}]}',
        "Error during execution: 'int' object has no attribute 'lower'",
        '{"stats": {"received_count": 4, "total_contacts": 3}}',
      ]);
      // Deleting does not give the count back.
      expect(messages(session).message_count).toBe(5n);
    });
  });
});

describe.skipIf(hasSharedBfclData)(
  'MessageApi (shared BFCL data absent)',
  () => {
    it.skip(sharedDataSkipMessage, () => {});
  },
);
