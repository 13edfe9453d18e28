import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SealError } from '@seal/spec';

/** A server that is listening (see {@link listen}). */
export type ListeningServer = {
  /** `http://host:port` (an IPv6 host in brackets). */
  readonly url: string;
  /** The bound address. */
  readonly host: string;
  /** The bound port (the real one when asked for port 0). */
  readonly port: number;
  /**
   * Stops accepting connections and ends idle keep-alive ones; requests in
   * flight get two seconds to finish before their connections are cut.
   * Resolves once the server is closed. Idempotent.
   */
  close(): Promise<void>;
};

/**
 * Starts `server` listening on `host:port` and resolves once it listens. A
 * port in use or an address that cannot be bound rejects with a SealError
 * `INVALID_ARGUMENT` that names the address (and says that port 0 picks a
 * free port), with the system error as `cause`.
 */
export async function listen({
  server,
  host,
  port,
}: {
  server: Server;
  host: string;
  port: number;
}): Promise<ListeningServer> {
  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      server.off('listening', onListening);
      reject(
        new SealError({
          code: 'INVALID_ARGUMENT',
          message:
            error.code === 'EADDRINUSE'
              ? `${host}:${port} is already in use; pick another --port (0 picks a free one)`
              : `cannot listen on ${host}:${port} (${error.code ?? error.message})`,
          cause: error,
          details: { host, port },
        }),
      );
    };
    const onListening = (): void => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });
  const address = server.address() as AddressInfo;
  const urlHost =
    address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${address.port}`,
    host: address.address,
    port: address.port,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        // Requests in flight finish; their connections then close.
        setTimeout(() => server.closeAllConnections(), 2_000).unref();
      });
      return closing;
    },
  };
}
