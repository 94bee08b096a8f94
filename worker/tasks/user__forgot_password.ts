import type { Task } from 'graphile-worker';
import { z } from 'zod';
import { unseal } from '../../api/lib/secrets.ts';
import type { WorkerContext } from '../context.ts';
import { escapeHtml } from '../mailer.ts';

const Payload = z.object({
  user_id: z.uuid(),
  email: z.email(),
  name: z.string(),
  locale: z.enum(['fr', 'en']),
  sealed_token: z.string(),
});

const TEXT = {
  fr: {
    subject: 'Réinitialisation de votre mot de passe',
    greeting: (name: string) => `Bonjour ${name},`,
    body: 'Vous avez demandé à réinitialiser votre mot de passe. Voici votre code, valable 60 minutes et utilisable une seule fois :',
    link: 'Ou ouvrez ce lien :',
    ignore: "Si vous n'êtes pas à l'origine de cette demande, ignorez ce message : votre mot de passe reste inchangé.",
  },
  en: {
    subject: 'Reset your password',
    greeting: (name: string) => `Hello ${name},`,
    body: 'You asked to reset your password. Here is your code, valid for 60 minutes and usable once:',
    link: 'Or open this link:',
    ignore: 'If you did not ask for this, ignore this message: your password stays as it is.',
  },
} as const;

/**
 * Sends the reset token by e-mail, in the user's language. Safe to run twice: the mail is sent once
 * per job (sendOnce), and a second copy would carry the same token, which still works once.
 */
export function userForgotPassword(ctx: WorkerContext): Task {
  return async (rawPayload, helpers) => {
    const payload = Payload.parse(rawPayload);
    const token = unseal(ctx.appKey, payload.sealed_token);
    const t = TEXT[payload.locale];
    const link = ctx.config.APP_URL
      ? `${ctx.config.APP_URL.replace(/\/$/, '')}/reset-password?token=${encodeURIComponent(token)}&email=${encodeURIComponent(payload.email)}`
      : null;
    const text = [t.greeting(payload.name), '', t.body, '', token, '', ...(link ? [t.link, link, ''] : []), t.ignore, ''].join('\n');
    const html = [
      `<p>${escapeHtml(t.greeting(payload.name))}</p>`,
      `<p>${escapeHtml(t.body)}</p>`,
      `<p style="font-family:monospace;font-size:16px"><strong>${escapeHtml(token)}</strong></p>`,
      link ? `<p>${escapeHtml(t.link)} <a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p>` : '',
      `<p>${escapeHtml(t.ignore)}</p>`,
    ].join('\n');
    await ctx.mailer.send({ to: payload.email, subject: t.subject, text, html, key: `password-reset.${payload.user_id}.${helpers.job.id}` });
    ctx.log.info({ task: 'user__forgot_password', user_id: payload.user_id }, 'password reset e-mail sent');
  };
}
