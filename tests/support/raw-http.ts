import { connect, type Socket } from 'node:net';

/** One HTTP/1.1 answer as it came over a socket: header names lower-cased, repeated ones joined with `, `. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** The answer's body as JSON, or undefined when it is not JSON. */
export function answerJson(answer: RawAnswer): any {
  try {
    return JSON.parse(answer.body.toString('utf8'));
  } catch {
    return undefined;
  }
}

const HEAD_END = Buffer.from('\r\n\r\n');

/** A chunked body's length in `data` from `start`, and its bytes; undefined while incomplete. */
function chunkedBody(data: Buffer, start: number): { end: number; body: Buffer } | undefined {
  const parts: Buffer[] = [];
  let at = start;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', at);
    if (lineEnd === -1) return undefined;
    const size = parseInt(data.subarray(at, lineEnd).toString('latin1'), 16);
    if (size === 0) {
      const trailerEnd = data.indexOf(HEAD_END, lineEnd);
      return trailerEnd === -1 ? undefined : { end: trailerEnd + 4, body: Buffer.concat(parts) };
    }
    if (data.length < lineEnd + 2 + size + 2) return undefined;
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}

/** The first whole answer in `data` and where it ends; undefined while incomplete (a body without length is whole once `closed`). */
export function parseAnswer(data: Buffer, closed: boolean): { answer: RawAnswer; end: number } | undefined {
  const headEnd = data.indexOf(HEAD_END);
  if (headEnd === -1) return undefined;
  const [statusLine = '', ...lines] = data.subarray(0, headEnd).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? NaN);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  const bodyStart = headEnd + 4;
  if ((status >= 100 && status < 200) || status === 204 || status === 304) return { answer: { status, headers, body: Buffer.alloc(0) }, end: bodyStart };
  if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
    const chunked = chunkedBody(data, bodyStart);
    return chunked && { answer: { status, headers, body: chunked.body }, end: chunked.end };
  }
  if (headers['content-length'] !== undefined) {
    const end = bodyStart + Number(headers['content-length']);
    return data.length < end ? undefined : { answer: { status, headers, body: data.subarray(bodyStart, end) }, end };
  }
  return closed ? { answer: { status, headers, body: data.subarray(bodyStart) }, end: data.length } : undefined;
}

/** A raw TCP connection to the service that reads HTTP/1.1 answers (interim 1xx answers skipped). */
export class RawConnection {
  private data = Buffer.alloc(0);
  private wake: (() => void) | undefined;
  closed = false;

  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.data = Buffer.concat([this.data, chunk]);
      this.wake?.();
    });
    // A reset after the answer (the server closed with bytes of ours unread) is a close like any other.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.closed = true;
      this.wake?.();
    });
  }

  static open(port: number): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.off('error', reject);
        resolve(new RawConnection(socket));
      });
      socket.once('error', reject);
    });
  }

  write(bytes: string | Uint8Array): void {
    if (!this.socket.destroyed) this.socket.write(bytes);
  }

  /** Half-closes: this side sends nothing more. */
  end(): void {
    if (!this.socket.destroyed) this.socket.end();
  }

  destroy(): void {
    this.socket.destroy();
  }

  private async waitForData(deadline: number, what: string): Promise<void> {
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`no ${what} within the time allowed`);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, left);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.wake = undefined;
  }

  /** The next final answer, or undefined when the server closed with no further answer. Throws after `timeoutMs`. */
  async answer(timeoutMs = 5_000): Promise<RawAnswer | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const parsed = parseAnswer(this.data, this.closed);
      if (parsed) {
        this.data = this.data.subarray(parsed.end);
        if (parsed.answer.status >= 200 || Number.isNaN(parsed.answer.status)) return parsed.answer;
        continue;
      }
      if (this.closed) {
        if (this.data.length) throw new Error(`an answer cut short: ${JSON.stringify(this.data.toString('latin1').slice(0, 200))}`);
        return undefined;
      }
      await this.waitForData(deadline, 'answer');
    }
  }

  /** Resolves once the server has closed the connection; throws after `timeoutMs`. */
  async untilClosed(timeoutMs = 5_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.closed) await this.waitForData(deadline, 'close');
  }
}

/**
 * Sends `request` on a new connection and reads every answer until the server closes it. After the
 * first answer that leaves the connection open, this side half-closes (it has nothing more to ask),
 * and the server closes once it has answered what it read. A request known to be `truncated` is
 * half-closed at once: the end of the connection is what makes it incomplete.
 */
export async function exchange(port: number, request: string | Uint8Array, { truncated = false, timeoutMs = 5_000 } = {}): Promise<RawAnswer[]> {
  const connection = await RawConnection.open(port);
  try {
    connection.write(request);
    if (truncated) connection.end();
    const answers: RawAnswer[] = [];
    for (;;) {
      const answer = await connection.answer(timeoutMs);
      if (!answer) return answers;
      answers.push(answer);
      connection.end();
    }
  } finally {
    connection.destroy();
  }
}
