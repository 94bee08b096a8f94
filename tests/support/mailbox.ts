import { createServer, type AddressInfo, type Socket } from 'node:net';
import { SMTPServer } from 'smtp-server';
import type { Test } from 'tap';
import { createLogger } from '../../api/logger.ts';
import type { Runtime } from '../../api/runtime.ts';
import { startWorker } from '../../worker/worker.ts';
import type { Service } from './service.ts';

/** A real SMTP server and a small MIME reader, to receive what the worker sends. */

export interface ReceivedMail {
  to: string[];
  subject: string;
  text: string;
  raw: string;
}

function parseHeaders(head: string): Map<string, string> {
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return headers;
}

function splitEntity(raw: string): { headers: Map<string, string>; body: string } {
  const match = /\r?\n\r?\n/.exec(raw);
  if (!match) return { headers: parseHeaders(raw), body: '' };
  return { headers: parseHeaders(raw.slice(0, match.index)), body: raw.slice(match.index + match[0].length) };
}

function decodeQuotedPrintable(value: string): string {
  const bytes: number[] = [];
  const input = value.replace(/=\r?\n/g, '');
  for (let i = 0; i < input.length; i++) {
    if (input[i] === '=' && /^[0-9A-Fa-f]{2}$/.test(input.slice(i + 1, i + 3))) {
      bytes.push(parseInt(input.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(input[i]!, 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** RFC 2047 encoded words (`=?UTF-8?Q?...?=`), as nodemailer writes non-ASCII subjects. */
function decodeEncodedWords(value: string): string {
  return value
    .replace(/(\?=)\s+(=\?)/g, '$1$2')
    .replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (_, _charset: string, encoding: string, text: string) =>
      encoding.toUpperCase() === 'B' ? Buffer.from(text, 'base64').toString('utf8') : decodeQuotedPrintable(text.replace(/_/g, ' ')),
    );
}

function decodeBody(headers: Map<string, string>, body: string): string {
  const encoding = (headers.get('content-transfer-encoding') ?? '7bit').toLowerCase();
  if (encoding === 'quoted-printable') return decodeQuotedPrintable(body);
  if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  return body;
}

/** The text/plain part of a message, decoded. */
function plainText(entity: { headers: Map<string, string>; body: string }): string | null {
  const type = entity.headers.get('content-type') ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (/^multipart\//i.test(type) && boundary) {
    const parts = entity.body.split(`--${boundary}`).slice(1);
    for (const part of parts) {
      if (part.startsWith('--')) break;
      const found = plainText(splitEntity(part.replace(/^\r?\n/, '')));
      if (found !== null) return found;
    }
    return null;
  }
  return /^text\/plain/i.test(type) ? decodeBody(entity.headers, entity.body).replace(/\r\n/g, '\n') : null;
}

/**
 * A message's headers (encoded words decoded) and its leaf parts, each with its headers and decoded
 * body, in order: for what plain-text readers do not see (the HTML part, the attachments).
 */
export function mimeParts(raw: string): { headers: Map<string, string>; parts: { headers: Map<string, string>; body: string }[] } {
  const leaves = (entity: { headers: Map<string, string>; body: string }): { headers: Map<string, string>; body: string }[] => {
    const type = entity.headers.get('content-type') ?? 'text/plain';
    const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
    if (!/^multipart\//i.test(type) || !boundary) return [{ headers: entity.headers, body: decodeBody(entity.headers, entity.body) }];
    const parts = entity.body.split(`--${boundary}`).slice(1);
    const end = parts.findIndex((part) => part.startsWith('--'));
    return (end < 0 ? parts : parts.slice(0, end)).flatMap((part) => leaves(splitEntity(part.replace(/^\r?\n/, ''))));
  };
  const message = splitEntity(raw);
  const headers = new Map([...message.headers].map(([name, value]) => [name, decodeEncodedWords(value)]));
  return { headers, parts: leaves(message) };
}

export interface Mailbox {
  port: number;
  /** The next message to `to` not yet taken, waiting up to `timeoutMs` (15 s) for it. */
  next(to: string, timeoutMs?: number): Promise<ReceivedMail>;
  /** Every message received so far. */
  received: ReceivedMail[];
}

export async function startMailbox(t: Test): Promise<Mailbox> {
  const received: ReceivedMail[] = [];
  const taken = new Set<ReceivedMail>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const entity = splitEntity(raw);
        received.push({
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address.toLowerCase()),
          subject: decodeEncodedWords(entity.headers.get('subject') ?? ''),
          text: plainText(entity) ?? '',
          raw,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return {
    port: (server.server.address() as AddressInfo).port,
    received,
    async next(to, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const mail = received.find((m) => !taken.has(m) && m.to.includes(to.toLowerCase()));
        if (mail) {
          taken.add(mail);
          return mail;
        }
        if (Date.now() > deadline) throw new Error(`no e-mail to ${to} within ${timeoutMs} ms (received: ${received.length})`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
  };
}

/** A real graphile-worker whose mailer talks to `mailbox`; stopped when the (sub)test ends. */
export async function startMailWorker(t: Test, api: Service, mailbox: Mailbox): Promise<void> {
  const runtime: Runtime = { ...api.runtime, config: { ...api.config, SMTP_URL: `smtp://127.0.0.1:${mailbox.port}` } };
  const worker = await startWorker(runtime, createLogger('silent'));
  t.teardown(() => worker.stop());
}

/**
 * An SMTP server that greets and then never answers: a job sending mail through it hangs mid-way.
 * `release()` cuts every connection (the hung sends fail); the test's teardown does it too.
 */
export async function startStallingSmtpServer(t: Test): Promise<{ port: number; connections: () => number; release: () => void }> {
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => {});
    socket.write('220 stalling ESMTP\r\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const release = () => sockets.forEach((socket) => socket.destroy());
  t.teardown(() => {
    release();
    server.close();
  });
  return { port: (server.address() as AddressInfo).port, connections: () => sockets.length, release };
}
