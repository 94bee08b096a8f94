import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nodemailer, { type SendMailOptions } from 'nodemailer';
import addressparser from 'nodemailer/lib/addressparser';
import type { JobHelpers } from 'graphile-worker';
import type pg from 'pg';
import { formatXaf } from '../api/receipts/format.ts';

export { escapeHtml } from '../api/lib/html.ts';

/** Integer XAF in a mail's language: `12 500 FCFA` in French, `12,500 FCFA` in English. */
export function xafFormatter(locale: 'fr' | 'en'): (amount: number) => string {
  return (amount) => formatXaf(amount, locale);
}

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** The sender's name in place of the service's own (a shop's name); the address stays the service's. */
  fromName?: string;
  /** Where an answer goes (a shop's own address). */
  replyTo?: string;
  /**
   * Files attached (a PDF as bytes); one with a `cid` is an inline part the HTML shows as
   * `<img src="cid:...">` (the shop's logo), not a file the reader is offered.
   */
  attachments?: { filename: string; content: string | Buffer; contentType: string; cid?: string }[];
  /**
   * What makes this message this one, the same on every run of the job that sends it (the task, the
   * job's id, the recipient when a job writes to several): its Message-ID, and what sendOnce records.
   */
  key: string;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
}

/** The Message-ID of a mail: its key at the sender's domain. */
export function messageId(key: string, from: string): string {
  const domain = /@([^>\s]+)>?\s*$/.exec(from)?.[1] ?? 'pos.local';
  return `<${key.replace(/[^\w.-]/g, '-')}@${domain}>`;
}

export interface MailerOptions {
  smtpUrl?: string;
  from: string;
  dataDir: string;
  /**
   * The longest wait on the SMTP server (SMTP_TIMEOUT_MS): to connect, for its greeting, for each of
   * its answers. A server that stops answering fails the send, and graphile-worker retries the job.
   */
  timeoutMs?: number;
  /** Aborted, it cuts every SMTP exchange under way: their sends fail (the worker's shutdown). */
  signal?: AbortSignal;
}

/**
 * Through SMTP when SMTP_URL is set; otherwise each message is written as an `.eml` file under
 * `<dataDir>/outbox/`, named after its key (a second write of the same message replaces the first), so
 * a shop without a mail server can still read what would have been sent.
 */
export function createMailer(options: MailerOptions): Mailer {
  const sender = addressparser(options.from, { flatten: true })[0]?.address;
  // Addresses go to nodemailer as objects, never as header text: a name or an address carrying a
  // line break or a comma stays one encoded address, whatever it holds.
  const envelope = ({ key, fromName, replyTo, ...mail }: Mail) => ({
    from: fromName && sender ? { name: fromName, address: sender } : options.from,
    ...(replyTo ? { replyTo: { name: '', address: replyTo } } : {}),
    messageId: messageId(key, options.from),
    ...mail,
  });
  if (options.smtpUrl) {
    // nodemailer's own waits are 2 minutes to connect and 10 minutes of silence per answer.
    const timeoutMs = options.timeoutMs ?? 30_000;
    const transport = nodemailer.createTransport({
      url: options.smtpUrl,
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
      dnsTimeout: timeoutMs,
    });
    return {
      async send(mail) {
        // nodemailer 10 takes a signal per message (its types do not say so yet).
        await transport.sendMail({ ...envelope(mail), signal: options.signal } as SendMailOptions);
      },
    };
  }
  const outbox = path.resolve(options.dataDir, 'outbox');
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async send(mail) {
      const info = await transport.sendMail(envelope(mail));
      await mkdir(outbox, { recursive: true });
      await writeFile(path.join(outbox, `${mail.key.replace(/[^\w.-]/g, '-')}.eml`), info.message as Buffer);
    },
  };
}

/**
 * Each message once: a message whose key is recorded as sent is not sent again (its job ran again
 * after the server had accepted it: a worker killed before the job's end, a retry of a later step).
 * The record is written once the server has accepted the message, so the only second copy possible is
 * one whose SMTP exchange was cut after the server accepted and before the answer came back. Two runs
 * of one job at once (its lock freed while the first still ran) queue on an advisory lock of the key.
 *
 * The lock is a transaction's (`pg_advisory_xact_lock`), held by a transaction open for the exchange,
 * that records the message and ends with it: a session's lock would stay on a server connection that a
 * pooler in transaction mode (PgBouncer) hands to someone else once the statement is done, and its
 * unlock would reach another session. The transaction takes no row lock and no transaction id until
 * its record, so it holds back neither the sync cursors nor vacuum while the mail server answers.
 * Should its connection be lost meanwhile (a server's or the pooler's idle-in-transaction timeout),
 * the record of a message the server accepted is still written, on another connection.
 */
export function sendOnce(mailer: Mailer, pool: pg.Pool): Mailer {
  const record = (client: pg.Pool | pg.PoolClient, key: string) =>
    client.query('insert into sent_messages (message_id) values ($1) on conflict do nothing', [key]);
  return {
    async send(mail) {
      const client = await pool.connect();
      let accepted = false;
      let lost: Error | undefined;
      try {
        await client.query('begin');
        await client.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [mail.key]);
        const { rowCount } = await client.query('select 1 from sent_messages where message_id = $1', [mail.key]);
        if (!rowCount) {
          await mailer.send(mail);
          accepted = true;
          await record(client, mail.key);
        }
        await client.query('commit');
      } catch (error) {
        await client.query('rollback').catch((failed: Error) => (lost = failed));
        if (!accepted) throw error;
        await record(pool, mail.key);
      } finally {
        // A connection that could not even roll back is closed rather than reused.
        client.release(lost);
      }
    },
  };
}

/**
 * Mails a shop's staff of the given roles (not deleted, oldest first), each once: the key of each
 * message is `key` and a hash of its recipient, so a job run again sends nothing twice (sendOnce).
 * Answers how many were written to.
 */
export async function mailShopStaff(
  mailer: Mailer,
  query: JobHelpers['query'],
  shopId: string,
  roles: readonly ('owner' | 'manager' | 'cashier')[],
  mail: Omit<Mail, 'to' | 'key'>,
  key: string,
): Promise<number> {
  const { rows } = await query<{ email: string }>(
    `select email from users where shop_id = $1 and role = any($2::text[]) and deleted_at is null order by created_at`,
    [shopId, roles],
  );
  for (const { email } of rows) {
    const recipient = createHash('sha256').update(email).digest('hex').slice(0, 12);
    await mailer.send({ ...mail, to: email, key: `${key}.${recipient}` });
  }
  return rows.length;
}
