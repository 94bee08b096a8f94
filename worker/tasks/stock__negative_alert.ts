import type { Task } from 'graphile-worker';
import { z } from 'zod';
import type { WorkerContext } from '../context.ts';
import { escapeHtml, mailShopStaff } from '../mailer.ts';

const Payload = z.object({
  shop_id: z.uuid(),
  product_id: z.uuid(),
  variant_id: z.uuid().nullable(),
  movement_id: z.uuid(),
});

const TEXT = {
  fr: {
    subject: (item: string) => `Stock négatif : ${item}`,
    body: (item: string, onHand: string, shop: string) =>
      `${shop} : le stock de « ${item} » est à ${onHand}. Une vente (souvent faite hors ligne) a vendu plus que le stock enregistré.`,
    advice: 'Comptez cet article (inventaire) ou enregistrez la réception qui manque.',
  },
  en: {
    subject: (item: string) => `Negative stock: ${item}`,
    body: (item: string, onHand: string, shop: string) =>
      `${shop}: the stock of "${item}" is ${onHand}. A sale (often made offline) sold more than the recorded stock.`,
    advice: 'Count this item (stocktake) or record the delivery that is missing.',
  },
} as const;

interface Item {
  shop_name: string;
  locale: 'fr' | 'en';
  item: string;
  on_hand: string;
}

/**
 * Tells a shop's owners and managers that an item's stock went below zero (queued by a trigger on
 * stock_movements, db/functions/stock/negative_stock_alert.sql). Reads the item as it is now: back at zero or more
 * by the time the job runs (a delivery came in), there is nothing left to say. Safe to run twice: each
 * recipient's mail is sent once per job (sendOnce).
 */
export function stockNegativeAlert(ctx: WorkerContext): Task {
  return async (rawPayload, helpers) => {
    const payload = Payload.parse(rawPayload);
    const { rows } = await helpers.query<Item>(
      `select sh.name as shop_name, sh.locale,
              item_name(p.name, v.options) as item,
              coalesce(v.on_hand, p.on_hand)::text as on_hand
         from products p
         join shops sh on sh.id = p.shop_id
         left join variants v on v.id = $3 and v.product_id = p.id
        where p.id = $2 and p.shop_id = $1 and coalesce(v.on_hand, p.on_hand) < 0`,
      [payload.shop_id, payload.product_id, payload.variant_id],
    );
    const item = rows[0];
    if (!item) {
      ctx.log.info({ task: 'stock__negative_alert', product_id: payload.product_id }, 'stock alert skipped: no longer negative');
      return;
    }
    const t = TEXT[item.locale];
    const onHand = String(Number(item.on_hand));
    const text = [t.body(item.item, onHand, item.shop_name), '', t.advice, ''].join('\n');
    const html = `<p>${escapeHtml(t.body(item.item, onHand, item.shop_name))}</p>\n<p>${escapeHtml(t.advice)}</p>`;
    const recipients = await mailShopStaff(ctx.mailer, helpers.query, payload.shop_id, ['owner', 'manager'], { subject: t.subject(item.item), text, html }, `stock-alert.${payload.movement_id}.${helpers.job.id}`);
    ctx.log.info({ task: 'stock__negative_alert', product_id: payload.product_id, recipients }, 'stock alert sent');
  };
}
