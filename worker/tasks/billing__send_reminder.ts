import { createHash } from 'node:crypto';
import type { Task } from 'graphile-worker';
import { z } from 'zod';
import type { WorkerContext } from '../context.ts';
import { escapeHtml, mailShopStaff } from '../mailer.ts';

const Payload = z.object({ shop_id: z.uuid(), ends_at: z.string() });

const TEXT = {
  fr: {
    subject: (shop: string) => `${shop} : votre abonnement se termine bientôt`,
    body: (day: string) => [
      `Votre abonnement se termine le ${day}.`,
      'Renouvelez-le depuis l\'application (Abonnement), par mobile money : vos caisses continuent sans interruption.',
      'Après cette date, l\'application reste consultable mais n\'enregistre plus de ventes.',
    ],
  },
  en: {
    subject: (shop: string) => `${shop}: your subscription ends soon`,
    body: (day: string) => [
      `Your subscription ends on ${day}.`,
      'Renew it from the app (Subscription), by mobile money: your tills carry on without a break.',
      'After that day the app can still be read but records no more sales.',
    ],
  },
} as const;

/**
 * The renewal reminder of one shop (queued by billing__remind_renewal), mailed to its owners in the
 * shop's language. Safe to run twice: each owner's mail is sent once (keyed by shop, end, recipient).
 */
export function billingSendReminder(ctx: WorkerContext): Task {
  return async (rawPayload, helpers) => {
    const { shop_id, ends_at } = Payload.parse(rawPayload);
    const { rows } = await helpers.query<{ name: string; locale: string; timezone: string }>(`select name, locale, timezone from shops where id = $1`, [shop_id]);
    const shop = rows[0];
    if (!shop) return;
    const locale = shop.locale === 'en' ? 'en' : 'fr';
    const t = TEXT[locale];
    const day = new Intl.DateTimeFormat(locale === 'fr' ? 'fr-FR' : 'en-GB', { dateStyle: 'long', timeZone: shop.timezone }).format(new Date(ends_at));
    const subject = t.subject(shop.name);
    const lines = t.body(day);
    const text = [subject, '', ...lines, ''].join('\n');
    const html = [`<h2>${escapeHtml(subject)}</h2>`, ...lines.map((line) => `<p>${escapeHtml(line)}</p>`)].join('\n');
    const end = createHash('sha256').update(ends_at).digest('hex').slice(0, 8);
    await mailShopStaff(ctx.mailer, helpers.query, shop_id, ['owner'], { subject, text, html }, `billing-reminder.${shop_id}.${end}`);
  };
}
