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
import { callText, int } from '../py-build';
import { twitterState, type Post } from '../states';
import type { FamilyContext, TaskFamily } from '../task-family';
import { hashtags, postTexts, replyTexts } from '../word-lists';
import { supplyIntents } from './supply-intents';

const classes = ['TwitterAPI'] as const;

/** Draws post ids (1–500) without repeats, across the core and noise streams. */
export class PostIds {
  private readonly used = new Set<number>();
  /** A fresh id. */
  next(random: PyRandom): number {
    for (;;) {
      const id = between(random, 1, 500);
      if (!this.used.has(id)) {
        this.used.add(id);
        return id;
      }
    }
  }
}

/**
 * Distractor posts by other accounts (noise stream). `exclude` rejects post
 * texts (a keyword that must stay unique); tags never equal `keyword`.
 */
export function noisePosts(
  context: FamilyContext,
  ids: PostIds,
  {
    keywords = [],
    authors = new Set<string>(),
  }: { keywords?: readonly string[]; authors?: ReadonlySet<string> } = {},
): Post[] {
  const { noise } = context;
  const count = distractors(context, { base: [1, 2], long: [7, 10] });
  const lowered = keywords.map((keyword) => keyword.toLowerCase());
  const texts = pickSome(noise, postTexts, count, (post) =>
    lowered.some((keyword) => post.text.toLowerCase().includes(keyword)),
  );
  return texts.map((post) => ({
    id: ids.next(noise),
    author: handle(noise, authors),
    content: post.text,
    tags: chance(noise, 0.5)
      ? [
          pick(
            noise,
            hashtags.filter((tag) => !lowered.includes(tag.toLowerCase())),
          ),
        ]
      : [],
    mentions: [],
  }));
}

/** Noise accounts followed (noise stream). */
function noiseFollowing(
  context: FamilyContext,
  avoid: ReadonlySet<string>,
): string[] {
  const count = distractors(context, { base: [1, 2], long: [7, 10] });
  const names = new Set<string>();
  while (names.size < count)
    names.add(handle(context.noise, new Set([...avoid, ...names])));
  return [...names];
}

const loginFeed = defineIntent('posts.login', [
  'Log in to my feed as {user} with password {password}.',
  'Sign in to the social feed: user {user}, password {password}.',
  'Authenticate me as {user}, password {password}.',
  'Feed login please, {user} / {password}.',
]);
const postTagged = defineIntent('posts.post-tagged', [
  "Post '{text}' with the tag {tag}.",
  "Publish '{text}' tagged {tag}.",
  "Share a post saying '{text}' with {tag}.",
  "Put '{text}' on my feed, hashtag {tag}.",
]);
const postTaggedNoText = defineIntent('posts.post-tagged.no-text', [
  'Post something with the tag {tag}.',
  'Publish a post tagged {tag}.',
  'Share a post with {tag}.',
  'Put a post on my feed, hashtag {tag}.',
]);

/** Sign in to the feed, then post a tagged message. */
export const loginPostFamily: TaskFamily = {
  id: 'posts.login-post',
  longContext: false,
  classes,
  difficulty: 'medium',
  pool: 'in-distribution',
  summary:
    'Sign in with the given credentials and publish a post with one hashtag.',
  intents: [loginFeed, postTagged, postTaggedNoText, supplyIntents.text],
  build(context) {
    const { random } = context;
    const user = handle(random);
    const secret = password(random);
    const text = pick(random, postTexts).text;
    const tag = pick(random, hashtags);
    const ids = new PostIds();
    const own = {
      id: ids.next(random),
      author: user,
      content: pick(random, postTexts).text,
      tags: [],
      mentions: [],
    };
    const posts = context.noise.shuffle([
      own,
      ...noisePosts(context, ids, { authors: new Set([user]) }),
    ]);
    const draft = context.begin({
      TwitterAPI: twitterState({
        username: user,
        password: secret,
        authenticated: false,
        posts,
        following: noiseFollowing(context, new Set([user])),
      }),
    });
    draft.turn({
      request: context.phrase(loginFeed, { user, password: secret }),
      calls: [
        callText('authenticate_twitter', { username: user, password: secret }),
      ],
    });
    draft.turn({
      request: context.phrase(postTagged, { text, tag }),
      calls: [callText('post_tweet', { content: text, tags: [tag] })],
      missing: {
        request: context.phrase(postTaggedNoText, { tag }),
        supply: context.phrase(supplyIntents.text, { value: text }),
        slot: 'content',
        withheld: [text],
      },
    });
    return draft.finish();
  },
};

const searchFeed = defineIntent('posts.search', [
  "Find the post about '{keyword}'.",
  "Search the feed for '{keyword}'.",
  "Which post mentions '{keyword}'?",
  "Is there anything on the feed about '{keyword}'?",
]);
const replyFound = defineIntent('posts.reply-found', [
  "Reply '{reply}' to it.",
  "Comment '{reply}' on that post.",
  "Leave the comment '{reply}' there.",
  "Answer that post with '{reply}'.",
]);
const replyFoundNoText = defineIntent('posts.reply-found.no-text', [
  'Reply to it.',
  'Comment on that post.',
  'Leave a comment there.',
  'Answer that post for me.',
]);

/** Find a post by keyword and reply to it (id copied from the search result). */
export const replyFamily: TaskFamily = {
  id: 'posts.reply',
  longContext: false,
  classes,
  difficulty: 'medium',
  pool: 'in-distribution',
  summary: 'Search the feed by keyword and comment on the post found.',
  intents: [searchFeed, replyFound, replyFoundNoText, supplyIntents.text],
  build(context) {
    const { random } = context;
    const user = handle(random);
    const target = pick(random, postTexts);
    const reply = pick(random, replyTexts);
    const ids = new PostIds();
    const author = handle(random, new Set([user]));
    const post: Post = {
      id: ids.next(random),
      author,
      content: target.text,
      tags: [],
      mentions: [],
    };
    const posts = context.noise.shuffle([
      post,
      ...noisePosts(context, ids, { keywords: [target.keyword] }),
    ]);
    const draft = context.begin({
      TwitterAPI: twitterState({
        username: user,
        password: password(random),
        authenticated: true,
        posts,
        following: noiseFollowing(context, new Set([user])),
      }),
    });
    draft.turn({
      request: context.phrase(searchFeed, { keyword: target.keyword }),
      calls: [callText('search_tweets', { keyword: target.keyword })],
    });
    draft.turn({
      request: context.phrase(replyFound, { reply }),
      calls: [
        callText('comment', { tweet_id: int(post.id), comment_content: reply }),
      ],
      missing: {
        request: context.phrase(replyFoundNoText, {}),
        supply: context.phrase(supplyIntents.text, { value: reply }),
        slot: 'comment',
        withheld: [reply],
      },
    });
    return draft.finish();
  },
};

const follow = defineIntent('posts.follow', [
  'Follow {account}.',
  'Start following {account}.',
  'Add {account} to the accounts I follow.',
  'I want to keep up with {account}; follow them.',
]);
const followNobody = defineIntent('posts.follow.no-account', [
  'Follow someone new for me.',
  'Start following an account.',
  'Add an account to the ones I follow.',
  'I want to keep up with a friend; follow them.',
]);
const listFollowing = defineIntent('posts.list-following', [
  'Who do I follow now?',
  'List the accounts I follow.',
  'Show my following list.',
  'Remind me which accounts I am following.',
]);
const unfollow = defineIntent('posts.unfollow', [
  'Unfollow {account}.',
  'Stop following {account}.',
  'Remove {account} from my follows.',
  'I am done with {account}; drop them.',
]);

/** Follow an account, list the follows, maybe unfollow one of them. */
export const followFamily: TaskFamily = {
  id: 'posts.follow',
  longContext: true,
  classes,
  difficulty: 'medium',
  pool: 'in-distribution',
  summary:
    'Follow an account, list who is followed, and optionally unfollow one.',
  intents: [
    follow,
    followNobody,
    listFollowing,
    unfollow,
    supplyIntents.account,
  ],
  build(context) {
    const { random } = context;
    const user = handle(random);
    const account = handle(random, new Set([user]));
    const old = handle(random, new Set([user, account]));
    const drop = chance(random, 0.5);
    const ids = new PostIds();
    const noise = noiseFollowing(context, new Set([user, account, old]));
    const following = context.noise.shuffle([old, ...noise]);
    const draft = context.begin({
      TwitterAPI: twitterState({
        username: user,
        password: password(random),
        authenticated: true,
        posts: noisePosts(context, ids),
        following,
      }),
    });
    draft.turn({
      request: context.phrase(follow, { account }),
      calls: [callText('follow_user', { username_to_follow: account })],
      missing: {
        request: context.phrase(followNobody, {}),
        supply: context.phrase(supplyIntents.account, { value: account }),
        slot: 'account',
        withheld: [account],
      },
    });
    draft.turn({
      request: context.phrase(listFollowing, {}),
      calls: [callText('list_all_following')],
    });
    if (drop) {
      draft.turn({
        request: context.phrase(unfollow, { account: old }),
        calls: [callText('unfollow_user', { username_to_unfollow: old })],
      });
    }
    return draft.finish();
  },
};

const userPosts = defineIntent('posts.user-posts', [
  'Show me the posts by {author}.',
  'What has {author} posted?',
  "List {author}'s posts.",
  'Pull up everything {author} wrote.',
]);
const userPostsNobody = defineIntent('posts.user-posts.no-author', [
  'Show me the posts by my friend.',
  'What has my friend posted?',
  "List a friend's posts.",
  'Pull up everything my friend wrote.',
]);
const reshareTopic = defineIntent('posts.reshare-topic', [
  'Retweet the one about {keyword}.',
  'Reshare their post about {keyword}.',
  'Share the {keyword} post again.',
  'Boost the post that talks about {keyword}.',
]);

/** List an author's posts and retweet the one on a topic (id from the listing). */
export const reshareFamily: TaskFamily = {
  id: 'posts.reshare',
  longContext: true,
  classes,
  difficulty: 'hard',
  pool: 'in-distribution',
  summary: "List an account's posts and retweet the one about a topic.",
  intents: [userPosts, userPostsNobody, reshareTopic, supplyIntents.account],
  build(context) {
    const { random } = context;
    const user = handle(random);
    const author = handle(random, new Set([user]));
    const [wanted, other] = pickSome(random, postTexts, 2);
    const ids = new PostIds();
    const target: Post = {
      id: ids.next(random),
      author,
      content: wanted!.text,
      tags: [],
      mentions: [],
    };
    const sibling: Post = {
      id: ids.next(random),
      author,
      content: other!.text,
      tags: [pick(random, hashtags)],
      mentions: [],
    };
    const noise = noisePosts(context, ids, {
      authors: new Set([user, author]),
    });
    // The long form gives the author more posts of their own, so the listing
    // the agent reads grows; none of them shares the wanted keyword.
    const more = context.scale === 'long' ? between(context.noise, 4, 6) : 0;
    const own = pickSome(
      context.noise,
      postTexts,
      more,
      (post) =>
        [wanted!.text, other!.text].includes(post.text) ||
        post.text.toLowerCase().includes(wanted!.keyword),
    ).map((post) => ({
      id: ids.next(context.noise),
      author,
      content: post.text,
      tags: [],
      mentions: [],
    }));
    const draft = context.begin({
      TwitterAPI: twitterState({
        username: user,
        password: password(random),
        authenticated: true,
        posts: context.noise.shuffle([target, sibling, ...own, ...noise]),
        following: noiseFollowing(context, new Set([user])),
      }),
    });
    draft.turn({
      request: context.phrase(userPosts, { author }),
      calls: [callText('get_user_tweets', { username: author })],
      missing: {
        request: context.phrase(userPostsNobody, {}),
        supply: context.phrase(supplyIntents.account, { value: author }),
        slot: 'author',
        withheld: [author],
      },
    });
    draft.turn({
      request: context.phrase(reshareTopic, { keyword: wanted!.keyword }),
      calls: [callText('retweet', { tweet_id: int(target.id) })],
    });
    return draft.finish();
  },
};

/** The TwitterAPI families. */
export const twitterFamilies: readonly TaskFamily[] = [
  loginPostFamily,
  replyFamily,
  followFamily,
  reshareFamily,
];
