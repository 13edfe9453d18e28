import type { IncomingMessage } from 'node:http';

/** What {@link readBody} found. */
export type ReadBodyResult =
  { text: string } | { tooLarge: true; cut: boolean };

/**
 * Reads a request body up to `limit` bytes. A larger body is read on and
 * discarded up to `drainLimit` (so the client sees the 413 instead of a
 * reset), then refused; beyond that the connection is to be cut (`cut`).
 * A declared `content-length` over `drainLimit` is refused at once (`cut`);
 * one between the limits is read to its end, unbuffered, before the answer,
 * so the connection stays usable: answering first and closing while the
 * client still writes makes its writes fail (EPIPE) or resets the socket.
 */
export function readBody({
  request,
  limit,
  drainLimit,
}: {
  request: IncomingMessage;
  /** Largest body read, in bytes. */
  limit: number;
  /** Bytes read on and discarded past `limit` before the connection is to be cut. */
  drainLimit: number;
}): Promise<ReadBodyResult> {
  const declared = Number(request.headers['content-length'] ?? Number.NaN);
  return new Promise((resolve, reject) => {
    if (Number.isFinite(declared) && declared > drainLimit) {
      request.resume();
      resolve({ tooLarge: true, cut: true });
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
      else if (size > drainLimit && !settled) {
        settled = true;
        resolve({ tooLarge: true, cut: true });
      }
    });
    request.on('end', () => {
      if (settled) return;
      settled = true;
      resolve(
        size > limit
          ? { tooLarge: true, cut: false }
          : { text: Buffer.concat(chunks).toString('utf8') },
      );
    });
    request.on('error', (error) => {
      if (settled) return;
      settled = true;
      reject(error);
    });
  });
}
