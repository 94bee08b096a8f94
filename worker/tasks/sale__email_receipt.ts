import type { Task } from 'graphile-worker';
import { z } from 'zod';
import { createSql } from '../../api/db.ts';
import { receiptEmail } from '../../api/receipts/email.ts';
import { cleanText } from '../../api/receipts/format.ts';
import { loadReceiptInput } from '../../api/sales/queries.ts';
import type { ReceiptInput } from '../../api/sales/schemas.ts';
import { findShopLogo, type ShopLogoImage } from '../../api/shop/queries.ts';
import type { WorkerContext } from '../context.ts';

const Payload = z.object({
  sale_id: z.uuid(),
  shop_id: z.uuid(),
  email: z.email(),
  locale: z.enum(['fr', 'en']),
});

/**
 * The sale as the API reads it, the shop's logo, and where the customer's answer goes: the shop's
 * e-mail, else its first owner's. The worker is the schema owner, whom row-level security does not
 * bind, so the shop is both set (the queries read `app_shop_id()`) and checked against the sale.
 */
async function readReceipt(
  ctx: WorkerContext,
  shopId: string,
  saleId: string,
): Promise<{ input: ReceiptInput; logo: ShopLogoImage | null; replyTo: string | null } | null> {
  const sql = createSql(ctx.ownerUrl, { max: 1, applicationName: 'pos-worker', preparedStatements: ctx.config.DB_PREPARED_STATEMENTS });
  try {
    return await sql.begin(async (tx) => {
      await tx`select set_config('app.shop_id', ${shopId}, true)`;
      const [owned] = await tx<{ owner_email: string | null }[]>`
        select (select email from users where shop_id = ${shopId} and role = 'owner' and deleted_at is null order by created_at limit 1) as owner_email
          from sales where id = ${saleId} and shop_id = ${shopId}`;
      const input = owned ? await loadReceiptInput(tx, saleId) : null;
      return input ? { input, logo: await findShopLogo(tx), replyTo: input.shop.email ?? owned!.owner_email } : null;
    });
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/**
 * E-mails a sale's receipt (api/receipts/email.ts: the chat-style text receipt, the phone-first HTML
 * receipt with the shop's logo, the A4 invoice attached as a PDF), from the shop's name at the
 * service's address, answers to the shop. Who asked for it recorded it in receipt_emails
 * (sale_record, POST /sales/{id}/receipt/email). Safe to run twice: the mail is sent once per job
 * (sendOnce); a failing mail server throws, so graphile-worker retries. A sale that no longer exists
 * in the shop has nothing to retry.
 */
export function saleEmailReceipt(ctx: WorkerContext): Task {
  return async (rawPayload, helpers) => {
    const payload = Payload.parse(rawPayload);
    const found = await readReceipt(ctx, payload.shop_id, payload.sale_id);
    if (!found) {
      ctx.log.warn({ task: 'sale__email_receipt', sale_id: payload.sale_id }, 'receipt e-mail skipped: no such sale in the shop');
      return;
    }
    const { input, logo, replyTo } = found;
    await ctx.mailer.send({
      ...(await receiptEmail(input, payload.locale, logo)),
      to: payload.email,
      fromName: cleanText(input.shop.name),
      ...(replyTo ? { replyTo } : {}),
      key: `sale-receipt.${payload.sale_id}.${helpers.job.id}`,
    });
    ctx.log.info({ task: 'sale__email_receipt', sale_id: payload.sale_id }, 'receipt e-mail sent');
  };
}
