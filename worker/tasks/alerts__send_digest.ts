import type { Task } from 'graphile-worker';
import { z } from 'zod';
import type { WorkerContext } from '../context.ts';
import { escapeHtml, mailShopStaff } from '../mailer.ts';

const Payload = z.object({ shop_id: z.uuid(), day: z.iso.date() });

/** What the digest tells about; low stock and negative stock have their own ways (the list, the immediate alert). */
const KINDS = ['expired', 'expiring', 'out_of_stock', 'dead_stock'] as const;
type Kind = (typeof KINDS)[number];
/** Items shown per kind; the count says how many there are in all. */
const SHOWN = 10;

const TEXT = {
  fr: {
    subject: (shop: string, count: number) => `${shop} : ${count} alerte${count > 1 ? 's' : ''} de stock`,
    intro: (shop: string, day: string) => `Alertes de stock de ${shop} au ${day}.`,
    kinds: { expired: 'Périmés', expiring: 'Expirent sous 30 jours', out_of_stock: 'En rupture', dead_stock: 'Sans vente depuis 90 jours' } as Record<Kind, string>,
    more: (n: number) => `… et ${n} de plus`,
    item: (name: string, quantity: string) => `${name} : ${quantity}`,
    expired: (date: string) => `périmé depuis le ${date}`,
    expiring: (date: string) => `expire le ${date}`,
    lastSold: (date: string | null) => (date ? `dernière vente le ${date}` : 'jamais vendu'),
    outro: 'La liste complète : GET /alerts dans votre application de caisse.',
  },
  en: {
    subject: (shop: string, count: number) => `${shop}: ${count} stock alert${count > 1 ? 's' : ''}`,
    intro: (shop: string, day: string) => `Stock alerts of ${shop} on ${day}.`,
    kinds: { expired: 'Expired', expiring: 'Expiring within 30 days', out_of_stock: 'Out of stock', dead_stock: 'No sale for 90 days' } as Record<Kind, string>,
    more: (n: number) => `… and ${n} more`,
    item: (name: string, quantity: string) => `${name}: ${quantity}`,
    expired: (date: string) => `expired on ${date}`,
    expiring: (date: string) => `expires on ${date}`,
    lastSold: (date: string | null) => (date ? `last sold on ${date}` : 'never sold'),
    outro: 'The full list: GET /alerts in your till application.',
  },
} as const;

interface AlertRow {
  kind: Kind;
  name: string;
  quantity: string;
  batch_number: string | null;
  expiry_date: string | null;
  last_sold_on: string | null;
}

/**
 * The daily digest of one shop's stock alerts (queued by alerts__daily_digest once per shop and day),
 * to its owners and managers in the shop's language: counts and the first items of each kind, from
 * stock_alerts (the same definition as GET /alerts). Nothing to say: nothing sent. Safe to run twice:
 * each recipient's mail is sent once (sendOnce, keyed by shop, day and recipient).
 */
export function alertsSendDigest(ctx: WorkerContext): Task {
  return async (rawPayload, helpers) => {
    const { shop_id, day } = Payload.parse(rawPayload);
    const { shop, alerts } = await helpers.withPgClient(async (client) => {
      await client.query('begin read only');
      try {
        await client.query(`select set_config('app.shop_id', $1, true)`, [shop_id]);
        const shopRows = await client.query<{ name: string; locale: 'fr' | 'en' }>('select name, locale from shops where id = $1', [shop_id]);
        const alertRows = await client.query<AlertRow>(
          `select a.kind, a.name, a.quantity::text, a.batch_number, to_char(a.expiry_date, 'YYYY-MM-DD') as expiry_date,
                  to_char(a.last_sold_at at time zone s.timezone, 'YYYY-MM-DD') as last_sold_on
             from stock_alerts(90, 30, 100000) a, shops s where s.id = $2 and a.kind = any($1::text[])`,
          [KINDS, shop_id],
        );
        await client.query('commit');
        return { shop: shopRows.rows[0], alerts: alertRows.rows };
      } catch (error) {
        await client.query('rollback');
        throw error;
      }
    });
    if (!shop || alerts.length === 0) {
      ctx.log.info({ task: 'alerts__send_digest', shop_id, day }, 'stock digest skipped: nothing to say');
      return;
    }
    const t = TEXT[shop.locale] ?? TEXT.fr;
    const sections = KINDS.map((kind) => ({ kind, rows: alerts.filter((alert) => alert.kind === kind) })).filter((section) => section.rows.length > 0);
    const quantity = new Intl.NumberFormat(shop.locale, { maximumFractionDigits: 3 });
    const detail = (alert: AlertRow) =>
      alert.kind === 'expired' ? t.expired(alert.expiry_date!) : alert.kind === 'expiring' ? t.expiring(alert.expiry_date!) : alert.kind === 'dead_stock' ? t.lastSold(alert.last_sold_on) : null;
    const line = (alert: AlertRow) =>
      [`${t.item(alert.name, quantity.format(Number(alert.quantity)))}${alert.batch_number ? ` (${alert.batch_number})` : ''}`, detail(alert)].filter(Boolean).join(', ');
    const text = [
      t.intro(shop.name, day),
      '',
      ...sections.flatMap(({ kind, rows }) => [
        `${t.kinds[kind]} (${rows.length})`,
        ...rows.slice(0, SHOWN).map((alert) => `- ${line(alert)}`),
        ...(rows.length > SHOWN ? [t.more(rows.length - SHOWN)] : []),
        '',
      ]),
      t.outro,
      '',
    ].join('\n');
    const html = [
      `<p>${escapeHtml(t.intro(shop.name, day))}</p>`,
      ...sections.map(
        ({ kind, rows }) =>
          `<h3>${escapeHtml(`${t.kinds[kind]} (${rows.length})`)}</h3>\n<ul>${rows
            .slice(0, SHOWN)
            .map((alert) => `<li>${escapeHtml(line(alert))}</li>`)
            .join('')}${rows.length > SHOWN ? `<li>${escapeHtml(t.more(rows.length - SHOWN))}</li>` : ''}</ul>`,
      ),
      `<p>${escapeHtml(t.outro)}</p>`,
    ].join('\n');
    const recipients = await mailShopStaff(ctx.mailer, helpers.query, shop_id, ['owner', 'manager'], { subject: t.subject(shop.name, alerts.length), text, html }, `alerts-digest.${shop_id}.${day}`);
    ctx.log.info({ task: 'alerts__send_digest', shop_id, day, alerts: alerts.length, recipients }, 'stock digest sent');
  };
}
