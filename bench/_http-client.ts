/**
 * A lean HTTP/1.1 client for load generators: one keep-alive connection,
 * one request at a time, `POST` with a JSON body, responses framed by
 * `content-length`. `node:http`'s client costs about as much CPU per request
 * as the service it measures, and on a two-core machine the load generator's
 * CPU is taken from the server; this one costs a fraction of it. It speaks
 * only what `seal serve` answers (no chunked encoding, no pipelining) and
 * says so when it meets anything else.
 */
import { connect, type Socket } from 'node:net';

/** A response: its status and body text. */
export type LeanAnswer = { status: number; text: string };

const headerEnd = Buffer.from('\r\n\r\n');

/** One connection to `host:port`, reopened when the server closes it. */
export class LeanHttpConnection {
  private socket: Socket | undefined;
  private buffered: Buffer = Buffer.alloc(0);
  private waiting:
    | { resolve: (answer: LeanAnswer) => void; reject: (error: Error) => void }
    | undefined;
  /** Connections opened so far (1 while the server keeps them alive). */
  opened = 0;

  constructor(
    private readonly host: string,
    private readonly port: number,
  ) {}

  /** Sends `POST /path` with `body` (text, or bytes sent as they are) and resolves the answer. */
  post(path: string, body: string | Buffer): Promise<LeanAnswer> {
    if (this.waiting) throw new Error('one request at a time per connection');
    const socket = this.socket ?? this.open();
    const length =
      typeof body === 'string' ? Buffer.byteLength(body) : body.length;
    const head = `POST ${path} HTTP/1.1\r\nhost: ${this.host}:${this.port}\r\ncontent-type: application/json\r\ncontent-length: ${length}\r\n\r\n`;
    return new Promise<LeanAnswer>((resolve, reject) => {
      this.waiting = { resolve, reject };
      if (typeof body === 'string') socket.write(head + body);
      else {
        socket.write(head);
        socket.write(body);
      }
    });
  }

  close(): void {
    this.socket?.destroy();
    this.socket = undefined;
  }

  private open(): Socket {
    const socket = connect({ host: this.host, port: this.port, noDelay: true });
    this.opened++;
    this.buffered = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => this.receive(socket, chunk));
    const lost = (error?: Error) => {
      if (this.socket === socket) this.socket = undefined;
      const waiting = this.waiting;
      this.waiting = undefined;
      waiting?.reject(error ?? new Error('the server closed the connection'));
    };
    socket.on('error', lost);
    socket.on('close', () => lost());
    this.socket = socket;
    return socket;
  }

  private receive(socket: Socket, chunk: Buffer): void {
    this.buffered =
      this.buffered.length === 0
        ? chunk
        : Buffer.concat([this.buffered, chunk]);
    const end = this.buffered.indexOf(headerEnd);
    if (end < 0) return;
    const head = this.buffered.toString('latin1', 0, end);
    const status = Number(head.slice(9, 12));
    const lengthMatch = /\r\ncontent-length:\s*(\d+)/i.exec(head);
    const waiting = this.waiting;
    if (!lengthMatch || !Number.isInteger(status)) {
      this.waiting = undefined;
      socket.destroy();
      waiting?.reject(
        new Error(`unsupported response framing: ${head.slice(0, 200)}`),
      );
      return;
    }
    const bodyStart = end + 4;
    const bodyEnd = bodyStart + Number(lengthMatch[1]);
    if (this.buffered.length < bodyEnd) return;
    const text = this.buffered.toString('utf8', bodyStart, bodyEnd);
    this.buffered = this.buffered.subarray(bodyEnd);
    if (/\r\nconnection:\s*close/i.test(head)) {
      if (this.socket === socket) this.socket = undefined;
      socket.removeAllListeners('close');
      socket.destroy();
    }
    this.waiting = undefined;
    waiting?.resolve({ status, text });
  }
}
