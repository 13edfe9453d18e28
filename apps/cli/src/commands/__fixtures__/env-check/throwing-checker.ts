/** An environment whose checker throws (for `seal env check` tests). */
import type { EnvironmentV2 } from '@seal/spec';

export const environment: EnvironmentV2 = {
  specificationVersion: 'v2',
  environmentId: 'throwing-checker',
  openSession: () =>
    Promise.resolve({
      listTools: () => Promise.resolve([]),
      call: () =>
        Promise.resolve({ kind: 'ok', ok: true, content: 'fine' } as const),
      close: () => Promise.resolve(),
    }),
  checker: () => Promise.reject(new Error('the checker has a bug')),
};
