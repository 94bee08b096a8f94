import type { Task } from 'graphile-worker';
import { z } from 'zod';
import { createSql } from '../../api/db.ts';
import { LABELS } from '../../api/receipts/format.ts';
import { renderInvoice } from '../../api/receipts/invoice.ts';
import { renderText } from '../../api/receipts/text.ts';
import { loadReceiptInput } from '../../api/sales/queries.ts';
import type { ReceiptInput } from '../../api/sales/schemas.ts';
import type { WorkerContext } from '../context.ts';

const Payload = z.object({
  sale_id: z.uuid(),
  shop_id: z.uuid(),
  email: z.email(),
  locale: z.enum(['fr', 'en']),
});

/**
 * The sale as the API reads it. The worker is the schema owner, whom row-level security does not
 * bind, so the shop is both set (the queries read `app_shop_id()`) and checked against the sale.
 */
async function readReceipt(ownerUrl: string, shopId: string, saleId: string): Promise<ReceiptInput | null> {
  const sql = createSql(ownerUrl, { max: 1, applicationName: 'pos-worker' });
  try {
    return await sql.begin(async (tx) => {
      await tx`select set_config('app.shop_id', ${shopId}, true)`;
      const [owned] = await tx`select 1 from sales where id = ${saleId} and shop_id = ${shopId}`;
      return owned ? loadReceiptInput(tx, saleId) : null;
    });
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/**
 * E-mails a sale's receipt: the text receipt as the text part, the A4 invoice as the HTML part.
 * Safe to run twice: the mail is sent once per job (sendOnce); a failing mail server throws,
 * so graphile-worker retries. A sale that no longer exists in the shop has nothing to retry.
 */
export function saleEmailReceipt(ctx: WorkerContext): Task {
  return async (rawPayload, helpers) => {
    const payload = Payload.parse(rawPayload);
    const input = await readReceipt(ctx.ownerUrl, payload.shop_id, payload.sale_id);
    if (!input) {
      ctx.log.warn({ task: 'sale__email_receipt', sale_id: payload.sale_id }, 'receipt e-mail skipped: no such sale in the shop');
      return;
    }
    const t = LABELS[payload.locale];
    await ctx.mailer.send({
      to: payload.email,
      subject: `${t.receiptNo} ${input.sale.receipt_no} - ${input.shop.name}`,
      text: renderText(input, payload.locale),
      html: renderInvoice(input, 'a4', payload.locale),
      key: `sale-receipt.${payload.sale_id}.${helpers.job.id}`,
    });
    ctx.log.info({ task: 'sale__email_receipt', sale_id: payload.sale_id }, 'receipt e-mail sent');
  };
}
