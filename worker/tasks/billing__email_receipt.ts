import type { Task } from 'graphile-worker';
import { z } from 'zod';
import type { WorkerContext } from '../context.ts';
import { escapeHtml, mailShopStaff, xafFormatter } from '../mailer.ts';

const Payload = z.object({ reference: z.string().min(1).max(64) });

const TEXT = {
  fr: {
    subject: (shop: string) => `${shop} : reçu de votre abonnement`,
    lines: (c: Receipt, xaf: (n: number) => string, day: (d: Date) => string) => [
      `Paiement reçu : ${xaf(c.amount_xaf)} par mobile money (${c.phone}).`,
      `Formule : ${c.plan_name} (${c.period_days} jours).`,
      `Référence : ${c.reference}.`,
      `Votre abonnement court jusqu'au ${day(c.subscription_ends_at)}.`,
    ],
    thanks: 'Merci de votre confiance.',
  },
  en: {
    subject: (shop: string) => `${shop}: your subscription receipt`,
    lines: (c: Receipt, xaf: (n: number) => string, day: (d: Date) => string) => [
      `Payment received: ${xaf(c.amount_xaf)} by mobile money (${c.phone}).`,
      `Plan: ${c.plan_name} (${c.period_days} days).`,
      `Reference: ${c.reference}.`,
      `Your subscription runs until ${day(c.subscription_ends_at)}.`,
    ],
    thanks: 'Thank you for your trust.',
  },
} as const;

interface Receipt {
  reference: string;
  amount_xaf: number;
  phone: string;
  plan_name: string;
  period_days: number;
  subscription_ends_at: Date;
  shop_id: string;
  shop_name: string;
  locale: string;
  timezone: string;
}

/**
 * The receipt of a charge that succeeded (queued by charge_settle in the transaction that settled
 * it), mailed to the shop's owners in the shop's language. Safe to run twice: each owner's mail is
 * sent once (sendOnce, keyed by charge and recipient).
 */
export function billingEmailReceipt(ctx: WorkerContext): Task {
  return async (rawPayload, helpers) => {
    const { reference } = Payload.parse(rawPayload);
    const { rows } = await helpers.query<Receipt>(
      `select c.reference, c.amount_xaf::int as amount_xaf, c.phone, p.name as plan_name, p.period_days, c.subscription_ends_at,
              s.id as shop_id, s.name as shop_name, s.locale, s.timezone
         from subscription_charges c join plans p on p.id = c.plan_id join shops s on s.id = c.shop_id
        where c.reference = $1 and c.status = 'succeeded'`,
      [reference],
    );
    const receipt = rows[0];
    if (!receipt) return;
    const locale = receipt.locale === 'en' ? 'en' : 'fr';
    const t = TEXT[locale];
    const xaf = xafFormatter(locale);
    const day = (date: Date) => new Intl.DateTimeFormat(locale === 'fr' ? 'fr-FR' : 'en-GB', { dateStyle: 'long', timeZone: receipt.timezone }).format(date);
    const lines = t.lines(receipt, xaf, day);
    const subject = t.subject(receipt.shop_name);
    const text = [subject, '', ...lines, '', t.thanks, ''].join('\n');
    const html = [`<h2>${escapeHtml(subject)}</h2>`, ...lines.map((line) => `<p>${escapeHtml(line)}</p>`), `<p>${escapeHtml(t.thanks)}</p>`].join('\n');
    await mailShopStaff(ctx.mailer, helpers.query, receipt.shop_id, ['owner'], { subject, text, html }, `billing-receipt.${reference}`);
  };
}
