/**
 * The entry of one worker thread of a multi-core environment server (see
 * `createEnvWorkerPool`): builds its own {@link EnvService} from the
 * settings module the server names, then answers `{id, endpoint, text}`
 * messages with `{id, status, text}` (the HTTP status and body the
 * single-threaded server would send), and reports the instances its idle
 * reclamation dropped. Each instance lives in exactly one worker.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { parseJsonText } from '@seal/spec';
import {
  createEnvService,
  type EnvServiceEndpoint,
  type EnvServiceSettings,
} from './env-service';
import type {
  EnvWorkerData,
  EnvWorkerReply,
  EnvWorkerRequest,
} from './env-worker-pool';
import { errorResponse } from './error-response';

const data = workerData as EnvWorkerData;
const port = parentPort!;
const module = (await import(data.settingsModule)) as {
  createEnvServiceSettings: (options: unknown) => Promise<EnvServiceSettings>;
};
const settings = await module.createEnvServiceSettings(data.settingsOptions);
const service = createEnvService({
  ...settings,
  // The pool enforces the server-wide limit before a create reaches a worker.
  maxInstances: Number.MAX_SAFE_INTEGER,
  idleTimeoutMs: data.idleTimeoutMs,
});

const timer = setInterval(() => {
  const reclaimed = service.reclaimIdle();
  if (reclaimed.length > 0)
    port.postMessage({
      type: 'reclaimed',
      ids: reclaimed,
    } satisfies EnvWorkerReply);
}, data.reclaimIntervalMs);
timer.unref();

port.on('message', (message: EnvWorkerRequest) => {
  void answer(message).then((reply) => port.postMessage(reply));
});
port.postMessage({ type: 'ready' } satisfies EnvWorkerReply);

async function answer({
  id,
  endpoint,
  text,
}: EnvWorkerRequest): Promise<EnvWorkerReply> {
  try {
    const body =
      text.trim() === ''
        ? undefined
        : parseJsonText({ text, source: 'request body' });
    const result = await service.handle({
      endpoint: endpoint as EnvServiceEndpoint,
      body,
    });
    return {
      type: 'answer',
      id,
      status: 200,
      text: JSON.stringify(result),
      ...(endpoint === 'create'
        ? {
            created: (result.data as { info: { instance_id: string } }).info
              .instance_id,
          }
        : {}),
    };
  } catch (error) {
    let reference:
      { reference: string; message: string; stack?: string } | undefined;
    const { status, body } = errorResponse({
      error,
      exposeInternalErrors: data.exposeInternalErrors,
      onInternalError: ({ error: internal, reference: name }) => {
        reference = {
          reference: name,
          message:
            internal instanceof Error ? internal.message : String(internal),
          ...(internal instanceof Error && internal.stack
            ? { stack: internal.stack }
            : {}),
        };
      },
    });
    return {
      type: 'answer',
      id,
      status,
      text: JSON.stringify(body),
      ...(reference ? { internalError: reference } : {}),
    };
  }
}
