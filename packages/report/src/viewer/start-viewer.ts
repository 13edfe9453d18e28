import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { join } from 'node:path';
import { HttpError, listen, sendJson as sendJsonBody } from '@seal/http';
import {
  overlayLineSchema,
  runDirectoryLayout,
  toSealError,
  type EnvironmentEpisodeRecord,
  type InterfaceOverlay,
  type PackRunRecord,
} from '@seal/spec';
import type {
  EpisodeAssessment,
  EpisodeDiagnoser,
} from '../episode-assessment';
import {
  listEpisodeFiles,
  parseEpisodeFileName,
  readEpisodeFile,
  type EpisodeFile,
} from '../episode-files';
import {
  listPackRunFiles,
  parsePackRunFileName,
  readPackRuns,
  type PackRunFile,
} from '../pack-run-files';
import { readJsonLines } from '../read-json-lines';
import { readRunDirectory } from '../read-run-directory';
import { renderPackFilePage, renderPackRunPage } from './render-pack-pages';
import {
  renderEpisodePage,
  renderErrorPage,
  renderIndexPage,
  type ViewerRunInfo,
} from './render-viewer-pages';

/** Options of {@link startViewer}. */
export type StartViewerOptions = {
  /** The run directory to browse (read on each request, so a live run shows new steps). */
  runDirectory: string;
  /** Port; `0` picks a free one. Default 8090. */
  port?: number;
  /** Interface to bind. Default `127.0.0.1`. */
  host?: string;
  /** Derives an episode's verdict and per-turn tags (runs do not record them). */
  diagnose?: EpisodeDiagnoser;
};

/** A running trajectory viewer. */
export type RunViewer = {
  /** `http://host:port`. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** Stops listening; requests in flight finish. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
};

/** Pages are built from untrusted model output: they run no script and load nothing. */
const securityHeaders = {
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

type CachedFile = {
  key: string;
  records: EnvironmentEpisodeRecord[];
  warnings: string[];
};
type CachedPackFile = {
  key: string;
  records: PackRunRecord[];
  warnings: string[];
};

const noDiagnoser: EpisodeDiagnoser = () => ({
  type: 'unavailable',
  reason:
    'runs do not record verdicts, and the viewer was started without a task source to re-verify episodes',
});

/**
 * Starts the trajectory viewer: an HTTP server over one run directory.
 * `GET /` lists episode files and a file's episodes (task, category, reward,
 * dominant tag); `GET /episode/FILE/INDEX` shows one episode's turns with
 * messages, tool calls, results, the verdict and per-turn tags, and the
 * overlay in force; `GET /api/...` returns the same as JSON;
 * `GET /report.html` serves the run's report when there is one. For a
 * Connect the Dots run, `GET /?packs=FILE` lists the pack runs of a file of
 * `packs/` and `GET /pack/FILE/INDEX` shows one pack run: each task with the
 * hints it was solved with, and between the tasks the update-context episode
 * that rewrote them (`GET /api/packs/...` as JSON). Model output
 * is escaped everywhere, and pages carry a Content-Security-Policy that runs
 * no script. Unknown files, episodes and paths get a 404 that says what was
 * looked for. A torn last line of an episode file is skipped.
 *
 * Throws a SealError `FILE_NOT_FOUND` when the run directory does not exist,
 * and `INVALID_ARGUMENT` when the port is taken or cannot be bound.
 */
export async function startViewer(
  options: StartViewerOptions,
): Promise<RunViewer> {
  const initial = await readRunDirectory({
    runDirectory: options.runDirectory,
  });
  const root = initial.root;
  const diagnose = options.diagnose ?? noDiagnoser;
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? 8090;
  const fileCache = new Map<string, CachedFile>();
  const packCache = new Map<string, CachedPackFile>();
  const assessmentCache = new Map<string, EpisodeAssessment>();
  let overlayCache:
    | {
        key: string;
        byHash: Map<string, { overlay: InterfaceOverlay; steps: number[] }>;
      }
    | undefined;

  const runInfo = (): ViewerRunInfo => ({
    directory: root,
    runId: initial.config?.runId ?? null,
    method: initial.config?.method ?? null,
    hasReport: existsSync(join(root, 'report.html')),
  });

  const fileKey = async (path: string): Promise<string> => {
    const info = await stat(path);
    return `${info.mtimeMs}:${info.size}`;
  };

  const loadFile = async (file: EpisodeFile): Promise<CachedFile> => {
    const key = await fileKey(
      join(root, runDirectoryLayout.episodes, file.name),
    );
    const cached = fileCache.get(file.name);
    if (cached && cached.key === key) return cached;
    const { values, warnings } = await readEpisodeFile({
      runDirectory: root,
      file,
    });
    const entry = {
      key,
      records: values,
      warnings: warnings.map((warning) =>
        warning.type === 'other' ? warning.message : JSON.stringify(warning),
      ),
    };
    fileCache.set(file.name, entry);
    return entry;
  };

  const loadPackFile = async (file: PackRunFile): Promise<CachedPackFile> => {
    const key = await fileKey(join(root, runDirectoryLayout.packs, file.name));
    const cached = packCache.get(file.name);
    if (cached && cached.key === key) return cached;
    const { values, warnings } = await readPackRuns({
      runDirectory: root,
      file,
    });
    const entry = {
      key,
      records: values,
      warnings: warnings.map((warning) =>
        warning.type === 'other' ? warning.message : JSON.stringify(warning),
      ),
    };
    packCache.set(file.name, entry);
    return entry;
  };

  const findPackFile = (name: string): PackRunFile => {
    const file = parsePackRunFileName(name);
    if (!file || !existsSync(join(root, runDirectoryLayout.packs, name))) {
      throw new HttpError({
        status: 404,
        message: `no pack-run file ${JSON.stringify(name)} in ${join(root, runDirectoryLayout.packs)}`,
      });
    }
    return file;
  };

  const findPackRun = async (name: string, indexText: string) => {
    const file = findPackFile(name);
    const { records } = await loadPackFile(file);
    if (!/^\d+$/.test(indexText))
      throw new HttpError({
        status: 404,
        message: `pack run index must be a whole number, not ${JSON.stringify(indexText)}`,
      });
    const index = Number(indexText);
    const record = records[index];
    if (!record) {
      throw new HttpError({
        status: 404,
        message: `no pack run ${index} in ${name}: it holds ${records.length} pack run${records.length === 1 ? '' : 's'}${records.length > 0 ? ` (0–${records.length - 1})` : ''}`,
      });
    }
    return { file, index, record, count: records.length };
  };

  const packFileList = async () =>
    Promise.all(
      (await listPackRunFiles(root)).map(async (file) => ({
        file,
        packRuns: (await loadPackFile(file)).records.length,
      })),
    );

  const assess = (
    file: EpisodeFile,
    index: number,
    record: EnvironmentEpisodeRecord,
  ): EpisodeAssessment => {
    const key = `${file.name}#${index}#${record.episodeId}`;
    let assessment = assessmentCache.get(key);
    if (!assessment) {
      try {
        assessment = diagnose({ record });
      } catch (error) {
        assessment = {
          type: 'unavailable',
          reason: toSealError(error).message,
        };
      }
      assessmentCache.set(key, assessment);
    }
    return assessment;
  };

  const overlays = async () => {
    const path = join(root, runDirectoryLayout.overlays);
    if (!existsSync(path))
      return new Map<string, { overlay: InterfaceOverlay; steps: number[] }>();
    const key = await fileKey(path);
    if (overlayCache?.key === key) return overlayCache.byHash;
    const byHash = new Map<
      string,
      { overlay: InterfaceOverlay; steps: number[] }
    >();
    for (const line of (
      await readJsonLines({ path, schema: overlayLineSchema })
    ).values) {
      const entry = byHash.get(line.hash) ?? {
        overlay: line.overlay,
        steps: [],
      };
      entry.steps.push(line.step);
      byHash.set(line.hash, entry);
    }
    overlayCache = { key, byHash };
    return byHash;
  };

  const findFile = async (name: string): Promise<EpisodeFile> => {
    const file = parseEpisodeFileName(name);
    if (!file || !existsSync(join(root, runDirectoryLayout.episodes, name))) {
      throw new HttpError({
        status: 404,
        message: `no episode file ${JSON.stringify(name)} in ${join(root, runDirectoryLayout.episodes)}`,
      });
    }
    return file;
  };

  const findEpisode = async (name: string, indexText: string) => {
    const file = await findFile(name);
    const { records } = await loadFile(file);
    if (!/^\d+$/.test(indexText))
      throw new HttpError({
        status: 404,
        message: `episode index must be a whole number, not ${JSON.stringify(indexText)}`,
      });
    const index = Number(indexText);
    const record = records[index];
    if (!record) {
      throw new HttpError({
        status: 404,
        message: `no episode ${index} in ${name}: it holds ${records.length} episode${records.length === 1 ? '' : 's'}${records.length > 0 ? ` (0–${records.length - 1})` : ''}`,
      });
    }
    return {
      file,
      index,
      record,
      count: records.length,
      assessment: assess(file, index, record),
    };
  };

  const fileList = async () => {
    const files = await listEpisodeFiles(root);
    return Promise.all(
      files.map(async (file) => {
        const text = await readFile(
          join(root, runDirectoryLayout.episodes, file.name),
          'utf8',
        );
        // Complete lines only: a line still being written is not an episode yet.
        const complete = text.slice(0, text.lastIndexOf('\n') + 1);
        return {
          file,
          episodes: complete.split('\n').filter((line) => line.trim() !== '')
            .length,
        };
      }),
    );
  };

  const send = (
    response: ServerResponse,
    status: number,
    body: string,
    type: string,
    extra: Record<string, string> = {},
  ) => {
    response.writeHead(status, {
      'content-type': type,
      ...securityHeaders,
      ...extra,
    });
    response.end(body);
  };
  const sendHtml = (response: ServerResponse, status: number, body: string) =>
    send(response, status, body, 'text/html; charset=utf-8');
  const sendJson = (response: ServerResponse, status: number, value: unknown) =>
    sendJsonBody({
      response,
      status,
      body: value,
      headers: securityHeaders,
      space: 2,
    });

  const handle = async (
    request: IncomingMessage,
    response: ServerResponse,
  ): Promise<void> => {
    const url = new URL(request.url ?? '/', 'http://viewer.invalid');
    const api = url.pathname.startsWith('/api/');
    try {
      if (request.method !== 'GET' && request.method !== 'HEAD')
        throw new HttpError({
          status: 405,
          message: `${request.method} is not supported; the viewer only reads`,
        });
      const parts = url.pathname
        .split('/')
        .filter((part) => part !== '')
        .map((part) => {
          try {
            return decodeURIComponent(part);
          } catch {
            throw new HttpError({
              status: 404,
              message: `malformed path ${url.pathname}`,
            });
          }
        });
      if (url.pathname === '/' || url.pathname === '/index.html') {
        const files = await fileList();
        const packFiles = await packFileList();
        const requestedPacks = url.searchParams.get('packs');
        // A Connect the Dots run has pack runs and no episode files: show its latest training packs.
        const packFile =
          requestedPacks !== null
            ? findPackFile(requestedPacks)
            : files.length === 0 && url.searchParams.get('file') === null
              ? (
                  [...packFiles]
                    .reverse()
                    .find((entry) => entry.file.kind === 'train') ??
                  packFiles.at(-1)
                )?.file
              : undefined;
        if (packFile) {
          const loaded = await loadPackFile(packFile);
          sendHtml(
            response,
            200,
            renderPackFilePage({
              run: runInfo(),
              files,
              packFiles,
              file: packFile,
              records: loaded.records,
              warnings: loaded.warnings,
            }),
          );
          return;
        }
        const requested = url.searchParams.get('file');
        const file =
          requested !== null
            ? await findFile(requested)
            : ([...files].reverse().find((entry) => entry.file.kind === 'train')
                ?.file ?? files[0]?.file);
        const loaded = file
          ? await loadFile(file)
          : { records: [], warnings: [] };
        const category = url.searchParams.get('category') ?? undefined;
        sendHtml(
          response,
          200,
          renderIndexPage({
            run: runInfo(),
            files,
            ...(file ? { file } : {}),
            records: loaded.records,
            assessments: file
              ? loaded.records.map((record, index) =>
                  assess(file, index, record),
                )
              : [],
            ...(category ? { category } : {}),
            warnings: loaded.warnings,
            packFiles,
          }),
        );
        return;
      }
      if (parts[0] === 'pack' && parts.length === 3) {
        const { file, index, record, count } = await findPackRun(
          parts[1]!,
          parts[2]!,
        );
        sendHtml(
          response,
          200,
          renderPackRunPage({ run: runInfo(), file, index, count, record }),
        );
        return;
      }
      if (parts[0] === 'api' && parts[1] === 'packs' && parts.length === 2) {
        sendJson(response, 200, {
          files: (await packFileList()).map(({ file, packRuns }) => ({
            ...file,
            packRuns,
          })),
        });
        return;
      }
      if (parts[0] === 'api' && parts[1] === 'packs' && parts.length === 3) {
        const file = findPackFile(parts[2]!);
        const { records, warnings } = await loadPackFile(file);
        sendJson(response, 200, {
          file,
          warnings,
          packRuns: records.map((record, index) => ({
            index,
            packRunId: record.packRunId,
            strategy: record.strategy,
            regularity: record.regularity,
            success: record.solves.map((solve) => solve.success),
            taskRewards: record.taskRewards,
            hintRewards: record.hintRewards,
            hintsParsed: record.updates.filter((update) => update.parsed)
              .length,
          })),
        });
        return;
      }
      if (parts[0] === 'api' && parts[1] === 'packs' && parts.length === 4) {
        sendJson(response, 200, {
          record: (await findPackRun(parts[2]!, parts[3]!)).record,
        });
        return;
      }
      if (parts[0] === 'episode' && parts.length === 3) {
        const { file, index, record, count, assessment } = await findEpisode(
          parts[1]!,
          parts[2]!,
        );
        const overlay = (await overlays()).get(record.overlayHash);
        sendHtml(
          response,
          200,
          renderEpisodePage({
            run: runInfo(),
            file,
            index,
            count,
            record,
            assessment,
            ...(overlay ? { overlay: overlay.overlay } : {}),
            overlaySteps: overlay?.steps ?? [],
          }),
        );
        return;
      }
      if (
        url.pathname === '/report.html' &&
        existsSync(join(root, 'report.html'))
      ) {
        // The report's own policy lets its inline scripts run (and nothing else).
        response.writeHead(200, {
          'content-type': 'text/html; charset=utf-8',
          'content-security-policy':
            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:",
          'x-content-type-options': 'nosniff',
          'cache-control': 'no-store',
        });
        response.end(await readFile(join(root, 'report.html')));
        return;
      }
      if (parts[0] === 'api' && parts[1] === 'files' && parts.length === 2) {
        sendJson(response, 200, {
          files: (await fileList()).map(({ file, episodes }) => ({
            ...file,
            episodes,
          })),
        });
        return;
      }
      if (parts[0] === 'api' && parts[1] === 'episodes' && parts.length === 3) {
        const file = await findFile(parts[2]!);
        const { records, warnings } = await loadFile(file);
        sendJson(response, 200, {
          file,
          warnings,
          episodes: records.map((record, index) => {
            const assessment = assess(file, index, record);
            return {
              index,
              episodeId: record.episodeId,
              taskId: record.taskId,
              category: record.category,
              turns: record.turns.length,
              modelCalls: record.modelCalls,
              endReason: record.endReason,
              ...(assessment.type === 'diagnosed'
                ? {
                    reward: assessment.diagnosis.reward,
                    success: assessment.diagnosis.success,
                    dominantTag: assessment.diagnosis.dominantTag,
                  }
                : { unavailable: assessment.reason }),
            };
          }),
        });
        return;
      }
      if (parts[0] === 'api' && parts[1] === 'episodes' && parts.length === 4) {
        const { record, assessment } = await findEpisode(parts[2]!, parts[3]!);
        sendJson(response, 200, {
          record,
          assessment,
          overlay: (await overlays()).get(record.overlayHash)?.overlay ?? null,
        });
        return;
      }
      throw new HttpError({
        status: 404,
        message: `nothing at ${url.pathname}: see / for the episode list`,
      });
    } catch (error) {
      if (HttpError.isInstance(error)) {
        if (api)
          sendJson(response, error.status, {
            error: {
              code: error.status === 404 ? 'NOT_FOUND' : 'INVALID_ARGUMENT',
              message: error.message,
            },
          });
        else
          sendHtml(
            response,
            error.status,
            renderErrorPage({
              run: runInfo(),
              status: error.status,
              message: error.message,
            }),
          );
        return;
      }
      const sealError = toSealError(error);
      if (api) sendJson(response, 500, { error: sealError.toJSON() });
      else
        sendHtml(
          response,
          500,
          renderErrorPage({
            run: runInfo(),
            status: 500,
            message: sealError.message,
          }),
        );
    }
  };

  const server: Server = createServer((request, response) => {
    handle(request, response).catch(() => response.destroy());
  });
  server.keepAliveTimeout = 5_000;
  const listening = await listen({ server, host, port });
  return {
    url: listening.url,
    host: listening.host,
    port: listening.port,
    close: listening.close,
    [Symbol.asyncDispose]: listening.close,
  };
}
