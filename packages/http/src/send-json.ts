import type { ServerResponse } from 'node:http';

/**
 * Answers with `body` as JSON (`application/json; charset=utf-8`, with its
 * `content-length`). `space` pretty-prints it (then a newline ends the
 * text); `headers` are added to, or override, the JSON ones.
 */
export function sendJson({
  response,
  status,
  body,
  headers = {},
  space,
}: {
  response: ServerResponse;
  status: number;
  body: unknown;
  headers?: Readonly<Record<string, string>>;
  space?: number;
}): void {
  const text =
    space === undefined
      ? JSON.stringify(body)
      : `${JSON.stringify(body, null, space)}\n`;
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  response.end(text);
}
