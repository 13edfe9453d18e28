import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BuiltGraph } from '../model/graph-families';
import {
  createOrtSession,
  type ExecutionProvider,
  type WebGpuValidation,
  type ort,
} from './ort-session';
import { readPlacementProfile, type GraphPlacement } from './placement';

/** An ORT session. */
export type Session = ort.InferenceSession;

/** How a graph's session is created. */
export type SessionOptions = {
  /** ORT's CPU memory arena; default true (see {@link SessionCache.get}). */
  memoryArena?: boolean;
  /** Outputs that stay on the device. */
  deviceOutputs?: readonly string[];
};

/**
 * The engine's ORT sessions, one per graph family and shape bucket, least
 * recently used released past `maxSessions`. With `recordPlacement`, the
 * first session of each family records where its nodes ran.
 */
export class SessionCache {
  private readonly sessions = new Map<string, Promise<Session>>();
  /** Placements recorded so far, by graph family (with `recordPlacement`). */
  private readonly placementsByFamily = new Map<string, GraphPlacement>();

  constructor(
    private readonly settings: {
      executionProvider: ExecutionProvider;
      maxSessions: number;
      recordPlacement: boolean;
      webgpuValidation: WebGpuValidation | undefined;
    },
  ) {}

  /**
   * Builds the session for a graph family once per shape bucket. Generation
   * graphs (prefill, decode) pass `memoryArena: false`: their shapes vary with
   * every batch of prompts, and an arena per session keeps each one's peak (a
   * 64-row prefill holds GiBs of attention scores), so a long run grew past
   * 13 GiB; without it memory goes back after each run, at no measured cost to
   * generation speed. Training and scoring keep the arena (30% faster steps;
   * decision 0011).
   */
  get(
    key: string,
    build: () => BuiltGraph,
    threads: number,
    { memoryArena = true, deviceOutputs }: SessionOptions = {},
  ): Promise<Session> {
    const cached = this.sessions.get(key);
    if (cached !== undefined) {
      // Refresh LRU order.
      this.sessions.delete(key);
      this.sessions.set(key, cached);
      return cached;
    }
    // The first session of each graph family is profiled for its first run
    // only, to record where its nodes ran.
    const family = key.split(':')[0]!;
    const profileDirectory =
      this.settings.recordPlacement && !this.placementsByFamily.has(family)
        ? mkdtempSync(join(tmpdir(), 'seal-placement-'))
        : undefined;
    if (profileDirectory !== undefined) {
      this.placementsByFamily.set(family, {
        family,
        key,
        device: this.settings.executionProvider,
        nodes: [],
      });
    }
    const created = createOrtSession({
      model: build().model,
      settings: {
        executionProvider: this.settings.executionProvider,
        threads,
        optimizationLevel: 'all',
        memoryArena,
        ...(deviceOutputs === undefined ? {} : { deviceOutputs }),
        ...(this.settings.webgpuValidation === undefined
          ? {}
          : { webgpuValidation: this.settings.webgpuValidation }),
        ...(profileDirectory === undefined
          ? {}
          : { profileFilePrefix: join(profileDirectory, 'profile') }),
      },
    }).then((session) =>
      profileDirectory === undefined
        ? session
        : this.recordFirstRun({ session, family, profileDirectory }),
    );
    created.catch(() => this.sessions.delete(key));
    this.sessions.set(key, created);
    while (this.sessions.size > this.settings.maxSessions) {
      const oldest = this.sessions.keys().next().value!;
      const evicted = this.sessions.get(oldest)!;
      this.sessions.delete(oldest);
      void evicted.then((session) => session.release()).catch(() => undefined);
    }
    return created;
  }

  /**
   * Wraps the session's `run` so that its first run ends profiling, reads
   * where each node ran and removes the profile.
   */
  private recordFirstRun({
    session,
    family,
    profileDirectory,
  }: {
    session: Session;
    family: string;
    profileDirectory: string;
  }): Session {
    const run = session.run.bind(session);
    session.run = (async (...args: Parameters<Session['run']>) => {
      session.run = run;
      let output: Awaited<ReturnType<Session['run']>>;
      try {
        output = await run(...args);
      } finally {
        session.endProfiling();
      }
      try {
        const file = readdirSync(profileDirectory).find((name) =>
          name.endsWith('.json'),
        );
        const nodes =
          file === undefined
            ? []
            : readPlacementProfile(
                readFileSync(join(profileDirectory, file), 'utf8'),
              );
        this.placementsByFamily.set(family, {
          ...this.placementsByFamily.get(family)!,
          nodes,
        });
      } finally {
        rmSync(profileDirectory, { recursive: true, force: true });
      }
      return output;
    }) as Session['run'];
    return session;
  }

  /**
   * Where the nodes of each graph family ran, recorded on the family's first
   * session (with `recordPlacement`), in order of first use.
   */
  get placements(): GraphPlacement[] {
    return [...this.placementsByFamily.values()].filter(
      (placement) => placement.nodes.length > 0,
    );
  }

  /** Releases every session. */
  async close(): Promise<void> {
    const sessions = [...this.sessions.values()];
    this.sessions.clear();
    for (const session of sessions) {
      try {
        await (await session).release();
      } catch {
        // A session that failed to build has nothing to release.
      }
    }
  }
}
