import { PyDict, parsePyJson, pyRepr } from '@seal/python';
import { describe, expect, it } from 'vitest';
import { BfclSession } from '../session/bfcl-session';
import {
  hasSharedBfclData,
  loadSharedBfclData,
  sharedDataSkipMessage,
} from '../test';
import { BfclRealm } from './bfcl-realm';
import type { TwitterApi } from './twitter-api';

// Every expected string below was produced by BFCL's own Python (gorilla
// cd9429cc, CPython 3.11).

const scenario = {
  username: 'john',
  password: 'pw',
  authenticated: false,
  tweets: {
    '1': {
      id: 1,
      username: 'john',
      content: 'Hello World',
      tags: ['#Hi'],
      mentions: [],
    },
  },
  comments: { '1': [{ username: 'a', comment: 'x' }] },
  tweet_counter: 2,
};

async function createSession({
  config = scenario,
  realm,
}: {
  config?: Record<string, unknown>;
  realm?: BfclRealm;
} = {}): Promise<BfclSession> {
  const dataset = await loadSharedBfclData();
  return new BfclSession({
    realm: realm ?? new BfclRealm({ data: dataset.runtime }),
    initialConfig: new PyDict([
      ['TwitterAPI', parsePyJson(JSON.stringify(config))],
    ]),
    involvedClasses: ['TwitterAPI'],
    longContext: false,
  });
}

function run(session: BfclSession, calls: string[]): string[] {
  return calls.map((call) => session.execute(call).result);
}

function twitter(session: BfclSession): TwitterApi {
  return session.instances.get('TwitterAPI') as TwitterApi;
}

describe.skipIf(!hasSharedBfclData)('TwitterApi', () => {
  describe('authentication', () => {
    it('should raise on comment and refuse the rest before login', async () => {
      const session = await createSession();
      expect(
        run(session, [
          "comment(tweet_id=1, comment_content='c')",
          "post_tweet(content='x')",
          'list_all_following()',
          "authenticate_twitter(username='john', password='bad')",
          "authenticate_twitter(username='john', password='pw')",
          'posting_get_login_status()',
        ]),
      ).toEqual([
        // BFCL raises a dict, which Python itself rejects with a TypeError.
        'Error during execution: exceptions must derive from BaseException',
        '{"error": "User not authenticated. Please authenticate before posting."}',
        '{"error": "User not authenticated. Please authenticate before listing following."}',
        '{"authentication_status": false}',
        '{"authentication_status": true}',
        '{"login_status": true}',
      ]);
    });
  });

  describe('tweets', () => {
    it('should share the default mentions list between tweets (quirk Q4)', async () => {
      const session = await createSession({
        config: { ...scenario, authenticated: true },
      });
      expect(
        run(session, [
          "post_tweet(content='first')",
          "post_tweet(content='second', tags=['#a'])",
          "mention(tweet_id=2, mentioned_usernames=['@bob'])",
          'get_tweet(tweet_id=3)',
          "mention(tweet_id=1, mentioned_usernames='ab')",
          "mention(tweet_id=9, mentioned_usernames=['x'])",
          'get_tweet(tweet_id=1.0)',
          "search_tweets(keyword='hi')",
          'search_tweets(keyword=3)',
          "get_user_stats(username=['john'])",
        ]),
      ).toEqual([
        '{"id": 2, "username": "john", "content": "first", "tags": [], "mentions": []}',
        '{"id": 3, "username": "john", "content": "second", "tags": ["#a"], "mentions": []}',
        '{"mention_status": "Users mentioned successfully"}',
        '{"id": 3, "username": "john", "content": "second", "tags": ["#a"], "mentions": ["@bob"]}',
        '{"mention_status": "Users mentioned successfully"}',
        '{"error": "Tweet with ID 9 not found."}',
        '{"id": 1, "username": "john", "content": "Hello World", "tags": ["#Hi"], "mentions": ["a", "b"]}',
        '[]',
        "Error during execution: 'int' object has no attribute 'lower'",
        "Error during execution: unhashable type: 'list'",
      ]);
      expect(twitter(session).tweet_counter).toBe(4n);
    });

    it('should share the default lists within a realm but not across realms', async () => {
      const dataset = await loadSharedBfclData();
      const realm = new BfclRealm({ data: dataset.runtime });
      const config = { ...scenario, authenticated: true };
      const first = await createSession({ config, realm });
      const sameProcess = await createSession({ config, realm });
      const otherProcess = await createSession({ config });
      run(first, [
        "post_tweet(content='a')",
        "mention(tweet_id=2, mentioned_usernames=['@x'])",
      ]);
      expect(run(sameProcess, ["post_tweet(content='b')"])).toEqual([
        '{"id": 2, "username": "john", "content": "b", "tags": [], "mentions": ["@x"]}',
      ]);
      expect(run(otherProcess, ["post_tweet(content='b')"])).toEqual([
        '{"id": 2, "username": "john", "content": "b", "tags": [], "mentions": []}',
      ]);
    });
  });

  describe('comments, retweets and follows', () => {
    it('should key new comments by the int id beside the loaded string key', async () => {
      const session = await createSession({
        config: { ...scenario, authenticated: true },
      });
      expect(
        run(session, [
          "comment(tweet_id=1, comment_content='c')",
          'get_tweet_comments(tweet_id=1)',
          'retweet(tweet_id=1)',
          'retweet(tweet_id=1)',
          'retweet(tweet_id=7)',
          'retweet(tweet_id=[1])',
          "follow_user(username_to_follow='alice')",
          "follow_user(username_to_follow='zed')",
          "unfollow_user(username_to_unfollow='nobody')",
          "unfollow_user(username_to_unfollow='alice')",
          'list_all_following()',
          "get_user_stats(username='john')",
        ]),
      ).toEqual([
        '{"comment_status": "Comment added successfully"}',
        "[{'username': 'john', 'content': 'c'}]",
        '{"retweet_status": "Successfully retweeted"}',
        '{"retweet_status": "Already retweeted"}',
        '{"error": "Tweet with ID 7 not found."}',
        "Error during execution: unhashable type: 'list'",
        '{"follow_status": false}',
        '{"follow_status": true}',
        '{"unfollow_status": false}',
        '{"unfollow_status": true}',
        "['bob', 'zed']",
        '{"tweet_count": 1, "following_count": 2, "retweet_count": 1}',
      ]);
      expect(pyRepr(twitter(session).comments)).toBe(
        "{'1': [{'username': 'a', 'comment': 'x'}], 1: [{'username': 'john', 'content': 'c'}]}",
      );
    });
  });
});

describe.skipIf(hasSharedBfclData)(
  'TwitterApi (shared BFCL data absent)',
  () => {
    it.skip(sharedDataSkipMessage, () => {});
  },
);
