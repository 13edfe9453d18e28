import {
  PyDict,
  PyException,
  PyObject,
  assertHashable,
  noAttribute,
  pyAdd,
  pyContains,
  pyDictGet,
  pyEquals,
  pyFormatValue,
  pyGetItem,
  pyInt,
  pyIter,
  pyLen,
  pyListRemove,
  pyLower,
  pyTruthy,
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

/**
 * Stands for an omitted `tags`/`mentions` argument of `post_tweet`; the call
 * swaps in the realm's shared default list (see `TwitterApi.sharedDefault`).
 */
class OmittedArgument extends PyObject {
  readonly pyTypeName = 'object';
  pyRepr(): string {
    return '<omitted>';
  }
}
const omitted = new OmittedArgument();

/**
 * BFCL's `TwitterAPI` (`posting_api.py`): tweets, retweets, comments and
 * follows for one account. Behaviour, messages and state follow BFCL v3
 * (gorilla `cd9429cc`).
 */
export class TwitterApi extends BfclApi {
  readonly className = 'TwitterAPI' as const;
  protected readonly attributeNames = [
    'username',
    'password',
    'authenticated',
    'tweets',
    'comments',
    'retweets',
    'following_list',
    'tweet_counter',
  ] as const;

  /** The account's user name. */
  username!: PyValue;
  /** The account's password. */
  password!: PyValue;
  /** Whether `authenticate_twitter` succeeded (or the scenario says so). */
  authenticated!: PyValue;
  /** Tweet id (an int; scenario keys are converted at load) → tweet dict. */
  tweets!: PyValue;
  /** Tweet id → list of comment dicts. Scenario keys stay strings; new keys are whatever id was given. */
  comments!: PyValue;
  /** User name → list of retweeted ids. */
  retweets!: PyValue;
  /** User names the account follows. */
  following_list!: PyValue;
  /** The id the next tweet gets. */
  tweet_counter!: PyValue;

  /**
   * `post_tweet(content, tags=[], mentions=[])`: Python evaluates a default
   * once, so every call that omits the argument stores the *same* list, and
   * a later `mention()` on one such tweet shows up in all of them (BFCL
   * quirk Q4), across instances of the same process. A realm stands for that
   * process, so the lists are realm globals.
   */
  private sharedDefault(name: 'tags' | 'mentions', value: PyValue): PyValue {
    if (value !== omitted) return value;
    return this.realm.global<PyValue[]>(
      `TwitterAPI.post_tweet.${name}`,
      () => [],
    );
  }

  loadScenario(scenario: PyDict): void {
    const fields = this.realm.scenarioFields({
      className: 'TwitterAPI',
      scenario,
    });
    const get = (name: string) => fields.get(name);
    this.username = get('username');
    this.password = get('password');
    this.authenticated = get('authenticated');
    // Tweet keys come from JSON as strings; BFCL converts them to int.
    const tweets = new PyDict();
    for (const [key, value] of expectDict(get('tweets'), 'items'))
      tweets.set(pyInt(key), value);
    this.tweets = tweets;
    this.comments = get('comments');
    this.retweets = get('retweets');
    this.following_list = get('following_list');
    this.tweet_counter = get('tweet_counter');
  }

  /** `self.tweets[tweet_id]` when `tweet_id in self.tweets`, else undefined. */
  private findTweet(tweetId: PyValue): PyValue | undefined {
    if (!pyContains(this.tweets, tweetId)) return undefined;
    return pyGetItem(this.tweets, tweetId);
  }

  static readonly methods: BfclMethodTable<TwitterApi> = {
    authenticate_twitter: {
      parameters: [{ name: 'username' }, { name: 'password' }],
      call(self, [username, password]) {
        if (
          pyEquals(username!, self.username) &&
          pyEquals(password!, self.password)
        ) {
          self.authenticated = true;
          return dict({ authentication_status: true });
        }
        return dict({ authentication_status: false });
      },
    },
    posting_get_login_status: {
      parameters: [],
      call(self) {
        return dict({ login_status: pyTruthy(self.authenticated) });
      },
    },
    post_tweet: {
      parameters: [
        { name: 'content' },
        { name: 'tags', default: omitted },
        { name: 'mentions', default: omitted },
      ],
      call(self, [content, tags, mentions]) {
        if (!pyTruthy(self.authenticated)) {
          return error(
            'User not authenticated. Please authenticate before posting.',
          );
        }
        const tweet = dict({
          id: self.tweet_counter,
          username: self.username,
          content: content!,
          tags: self.sharedDefault('tags', tags!),
          mentions: self.sharedDefault('mentions', mentions!),
        });
        assertHashable(self.tweet_counter);
        expectDict(self.tweets, '__setitem__').set(self.tweet_counter, tweet);
        self.tweet_counter = pyAdd(self.tweet_counter, 1n);
        return tweet;
      },
    },
    retweet: {
      parameters: [{ name: 'tweet_id' }],
      call(self, [tweetId]) {
        if (!pyTruthy(self.authenticated)) {
          return error(
            'User not authenticated. Please authenticate before retweeting.',
          );
        }
        if (!pyContains(self.tweets, tweetId!)) {
          return error(`Tweet with ID ${pyFormatValue(tweetId!)} not found.`);
        }
        const retweets = expectDict(self.retweets, '__setitem__');
        if (!pyContains(retweets, self.username)) {
          assertHashable(self.username);
          retweets.set(self.username, []);
        }
        const mine = pyGetItem(retweets, self.username);
        if (pyContains(mine, tweetId!))
          return dict({ retweet_status: 'Already retweeted' });
        pyAppend(mine, tweetId!);
        return dict({ retweet_status: 'Successfully retweeted' });
      },
    },
    comment: {
      parameters: [{ name: 'tweet_id' }, { name: 'comment_content' }],
      call(self, [tweetId, commentContent]) {
        if (!pyTruthy(self.authenticated)) {
          // BFCL does `raise {"error": ...}`; raising a dict is itself a
          // TypeError, which is all the caller sees.
          throw PyException.typeError(
            'exceptions must derive from BaseException',
          );
        }
        if (!pyContains(self.tweets, tweetId!)) {
          return error(`Tweet with ID ${pyFormatValue(tweetId!)} not found.`);
        }
        const comments = expectDict(self.comments, '__setitem__');
        // Scenario comment keys are strings, so an int id starts a new list.
        if (!pyContains(comments, tweetId!)) {
          assertHashable(tweetId!);
          comments.set(tweetId, []);
        }
        pyAppend(
          pyGetItem(comments, tweetId!),
          dict({ username: self.username, content: commentContent! }),
        );
        return dict({ comment_status: 'Comment added successfully' });
      },
    },
    mention: {
      parameters: [{ name: 'tweet_id' }, { name: 'mentioned_usernames' }],
      call(self, [tweetId, mentionedUsernames]) {
        const tweet = self.findTweet(tweetId!);
        if (tweet === undefined)
          return error(`Tweet with ID ${pyFormatValue(tweetId!)} not found.`);
        const mentions = pyGetItem(tweet, 'mentions');
        if (!Array.isArray(mentions)) throw noAttribute(mentions, 'extend');
        // `list.extend` takes any iterable (a string adds its characters);
        // copy first so extending a list with itself doubles it once.
        mentions.push(...[...pyIter(mentionedUsernames!)]);
        return dict({ mention_status: 'Users mentioned successfully' });
      },
    },
    follow_user: {
      parameters: [{ name: 'username_to_follow' }],
      call(self, [username]) {
        if (!pyTruthy(self.authenticated)) {
          return error(
            'User not authenticated. Please authenticate before following.',
          );
        }
        if (pyContains(self.following_list, username!))
          return dict({ follow_status: false });
        pyAppend(self.following_list, username!);
        return dict({ follow_status: true });
      },
    },
    list_all_following: {
      parameters: [],
      call(self) {
        if (!pyTruthy(self.authenticated)) {
          return error(
            'User not authenticated. Please authenticate before listing following.',
          );
        }
        return self.following_list;
      },
    },
    unfollow_user: {
      parameters: [{ name: 'username_to_unfollow' }],
      call(self, [username]) {
        if (!pyTruthy(self.authenticated)) {
          return error(
            'User not authenticated. Please authenticate before unfollowing.',
          );
        }
        if (!pyContains(self.following_list, username!))
          return dict({ unfollow_status: false });
        if (!Array.isArray(self.following_list))
          throw noAttribute(self.following_list, 'remove');
        pyListRemove(self.following_list, username!);
        return dict({ unfollow_status: true });
      },
    },
    get_tweet: {
      parameters: [{ name: 'tweet_id' }],
      call(self, [tweetId]) {
        const tweet = self.findTweet(tweetId!);
        if (tweet === undefined)
          return error(`Tweet with ID ${pyFormatValue(tweetId!)} not found.`);
        return tweet;
      },
    },
    get_user_tweets: {
      parameters: [{ name: 'username' }],
      call(self, [username]) {
        return [...expectDict(self.tweets, 'values').values()].filter((tweet) =>
          pyEquals(pyGetItem(tweet, 'username'), username!),
        );
      },
    },
    search_tweets: {
      parameters: [{ name: 'keyword' }],
      call(self, [keyword]) {
        // Evaluated per tweet, like the comprehension: with no tweets a
        // non-string keyword raises nothing.
        return [...expectDict(self.tweets, 'values').values()].filter(
          (tweet) => {
            const wanted = pyLower(keyword!);
            if (pyLower(pyGetItem(tweet, 'content')).includes(wanted))
              return true;
            const tags = pyIter(pyGetItem(tweet, 'tags')).map((tag) =>
              pyLower(tag),
            );
            return pyContains(tags, pyLower(keyword!));
          },
        );
      },
    },
    get_tweet_comments: {
      parameters: [{ name: 'tweet_id' }],
      call(self, [tweetId]) {
        if (!pyContains(self.tweets, tweetId!)) {
          return error(`Tweet with ID ${pyFormatValue(tweetId!)} not found.`);
        }
        return pyDictGet(expectDict(self.comments, 'get'), tweetId!, []);
      },
    },
    get_user_stats: {
      parameters: [{ name: 'username' }],
      call(self, [username]) {
        const tweetCount = [
          ...expectDict(self.tweets, 'values').values(),
        ].filter((tweet) =>
          pyEquals(pyGetItem(tweet, 'username'), username!),
        ).length;
        const followingCount = pyEquals(username!, self.username)
          ? pyLen(self.following_list)
          : 0n;
        const retweetCount = pyLen(
          pyDictGet(expectDict(self.retweets, 'get'), username!, []),
        );
        return dict({
          tweet_count: BigInt(tweetCount),
          following_count: followingCount,
          retweet_count: retweetCount,
        });
      },
    },
  };
}

const tweetId = z.int().describe('Numeric id of the tweet.');

/** Our descriptions and argument schemas of the TwitterAPI methods. */
export const twitterApiTools: BfclToolSpecs = {
  authenticate_twitter: {
    description: 'Sign in to the social feed with a user name and password.',
    parameters: z.object({
      username: z.string().describe('Account name.'),
      password: z.string().describe('Account password.'),
    }),
  },
  posting_get_login_status: {
    description: 'Report whether the feed account is signed in.',
    parameters: z.object({}),
  },
  post_tweet: {
    description:
      'Publish a new post from the signed-in account, optionally with hashtags and mentioned users.',
    parameters: z.object({
      content: z.string().describe('Text of the post.'),
      tags: z
        .array(z.string())
        .default([])
        .describe('Hashtags such as #travel. Default: none.'),
      mentions: z
        .array(z.string())
        .default([])
        .describe('Mentioned users such as @alice. Default: none.'),
    }),
  },
  retweet: {
    description: 'Share an existing post again from the signed-in account.',
    parameters: z.object({ tweet_id: tweetId }),
  },
  comment: {
    description: 'Reply to a post from the signed-in account.',
    parameters: z.object({
      tweet_id: tweetId,
      comment_content: z.string().describe('Text of the reply.'),
    }),
  },
  mention: {
    description: 'Add users to the mention list of an existing post.',
    parameters: z.object({
      tweet_id: tweetId,
      mentioned_usernames: z.array(z.string()).describe('User names to add.'),
    }),
  },
  follow_user: {
    description: 'Start following another account.',
    parameters: z.object({
      username_to_follow: z.string().describe('Account to follow.'),
    }),
  },
  list_all_following: {
    description: 'List every account the signed-in account follows.',
    parameters: z.object({}),
  },
  unfollow_user: {
    description: 'Stop following an account.',
    parameters: z.object({
      username_to_unfollow: z.string().describe('Account to stop following.'),
    }),
  },
  get_tweet: {
    description: 'Fetch one post by its id.',
    parameters: z.object({ tweet_id: tweetId }),
  },
  get_user_tweets: {
    description: 'List all posts written by an account.',
    parameters: z.object({
      username: z.string().describe('Author of the posts.'),
    }),
  },
  search_tweets: {
    description:
      'Find posts whose text or hashtags contain a keyword, ignoring case.',
    parameters: z.object({ keyword: z.string().describe('Text to look for.') }),
  },
  get_tweet_comments: {
    description: 'List the replies to a post.',
    parameters: z.object({ tweet_id: tweetId }),
  },
  get_user_stats: {
    description:
      'Count the posts, followed accounts and reshares of an account.',
    parameters: z.object({
      username: z.string().describe('Account to count for.'),
    }),
  },
};

/** Registry entry for {@link TwitterApi}. */
export const twitterApiDefinition: BfclClassDefinition = {
  className: 'TwitterAPI',
  create: (realm) => new TwitterApi(realm),
  methods: TwitterApi.methods as BfclMethodTable<never>,
  stateless: false,
  description:
    'A small social feed: sign in, post, reshare, reply, mention and follow accounts.',
  tools: twitterApiTools,
};
