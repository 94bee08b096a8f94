import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';

/** Text for an HTML part. */
export const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
}

/**
 * Through SMTP when SMTP_URL is set; otherwise each message is written as an `.eml` file under
 * `<dataDir>/outbox/`, so a shop without a mail server can still read what would have been sent.
 */
export function createMailer(options: { smtpUrl?: string; from: string; dataDir: string }): Mailer {
  if (options.smtpUrl) {
    const transport = nodemailer.createTransport(options.smtpUrl);
    return {
      async send(mail) {
        await transport.sendMail({ from: options.from, ...mail });
      },
    };
  }
  const outbox = path.resolve(options.dataDir, 'outbox');
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async send(mail) {
      const info = await transport.sendMail({ from: options.from, ...mail });
      await mkdir(outbox, { recursive: true });
      const id = String(info.messageId).replace(/[^\w.-]/g, '');
      await writeFile(path.join(outbox, `${new Date().toISOString().replace(/[:.]/g, '-')}-${id}.eml`), info.message as Buffer);
    },
  };
}
