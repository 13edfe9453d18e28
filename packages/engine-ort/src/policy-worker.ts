/**
 * The policy worker: owns a {@link PolicyCore} and answers requests from
 * `createOrtPolicy` one at a time, in arrival order (ORT's `run` blocks this
 * thread, which is the point of running it here).
 */
import { toSealError } from '@seal/spec';
import { parentPort } from 'node:worker_threads';
import { PolicyCore } from './policy/policy-core';
import type { WorkerRequest, WorkerResponse } from './policy/create-ort-policy';

const port = parentPort;
if (port === null) throw new Error('policy-worker must run in a worker thread');

let core: PolicyCore | undefined;
let queue: Promise<void> = Promise.resolve();

async function handle({ method, argument }: WorkerRequest): Promise<unknown> {
  if (method === 'init') {
    core = await PolicyCore.create(
      argument as Parameters<typeof PolicyCore.create>[0],
    );
    return core.info;
  }
  if (core === undefined) throw new Error('policy worker used before init');
  switch (method) {
    case 'generate':
      return core.generate(argument as Parameters<PolicyCore['generate']>[0]);
    case 'score':
      return core.score(argument as Parameters<PolicyCore['score']>[0]);
    case 'train':
      return core.train(argument as Parameters<PolicyCore['train']>[0]);
    case 'save':
      return core.save(argument as string);
    case 'load':
      return core.load(argument as string);
    case 'resetCache':
      return core.resetCache();
    case 'close':
      return core.close();
    default:
      throw new Error(`unknown policy worker method ${method}`);
  }
}

port.on('message', (request: WorkerRequest) => {
  queue = queue.then(async () => {
    let response: WorkerResponse;
    try {
      response = { id: request.id, ok: true, value: await handle(request) };
    } catch (error) {
      const sealError = toSealError(error);
      response = { id: request.id, ok: false, error: sealError.toJSON() };
    }
    port.postMessage(response);
  });
});
