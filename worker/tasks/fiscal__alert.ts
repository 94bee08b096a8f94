import type { Task } from 'graphile-worker';
import { z } from 'zod';
import type { WorkerContext } from '../context.ts';
import { escapeHtml, mailShopStaff } from '../mailer.ts';

const Payload = z.object({ shop_id: z.uuid() });

interface Waiting {
  chain_no: string;
  kind: 'sale' | 'void' | 'refund';
  number: string;
  status: 'pending' | 'rejected';
  error: string | null;
  error_detail: string | null;
}

const TEXT = {
  fr: {
    subject: (shop: string, count: number) => `${shop} : ${count} ${count > 1 ? 'documents non certifiés' : 'document non certifié'} par l'administration fiscale`,
    record: (row: Waiting) =>
      row.kind === 'sale' ? `Ticket n° ${row.number}` : row.kind === 'refund' ? `Avoir n° ${row.number}` : `Annulation du ticket n° ${row.number}`,
    rejected: 'Refusé par l\'administration fiscale',
    lost:
      'Envoyé, mais la réponse de l\'administration s\'est perdue. Cherchez-le sur votre portail de l\'administration, puis indiquez ' +
      'dans l\'application s\'il y est (avec son numéro) ou non (il sera renvoyé). Les ventes suivantes attendent ce choix.',
    advice: 'Les ventes restent enregistrées. La liste : Certification > Refusés, dans l\'application.',
  },
  en: {
    subject: (shop: string, count: number) => `${shop}: ${count} ${count > 1 ? 'documents' : 'document'} not certified by the tax authority`,
    record: (row: Waiting) => (row.kind === 'sale' ? `Receipt no. ${row.number}` : row.kind === 'refund' ? `Credit note no. ${row.number}` : `Void of receipt no. ${row.number}`),
    rejected: 'Rejected by the tax authority',
    lost:
      'Sent, but the authority\'s answer was lost. Look it up on the authority\'s portal, then say in the app whether it is there ' +
      '(with its number) or not (it is sent again). The later sales wait for that answer.',
    advice: 'The sales stay recorded. The list: Certification > Rejected, in the app.',
  },
} as const;

/**
 * Tells a shop's owners and managers what the tax authority did not certify (CONTRACT section 14):
 * the records it rejected, with its reason, and those whose answer was lost and wait for the owner.
 * Queued by fiscal__certify with a delay (FISCAL_ALERT_DELAY_MS) and one key per shop, so that one
 * e-mail covers what came meanwhile, and a lost answer that a retry recovered is not mentioned. Each
 * record is told once (alerted_at).
 */
export const fiscalAlert = (ctx: WorkerContext): Task => async (raw, helpers) => {
  const { shop_id: shopId } = Payload.parse(raw);
  const { rows } = await helpers.query<Waiting>(
    `select c.chain_no, c.kind, c.status, c.error, c.error_detail,
            case when c.kind = 'refund' then (select r.credit_note_no from refunds r where r.shop_id = c.shop_id and r.id = c.ref_id)
                 else (select s.receipt_no from sales s where s.shop_id = c.shop_id and s.id = c.ref_id) end::text as number
       from fiscal_certifications c
      where c.shop_id = $1 and c.alerted_at is null
        and (c.status = 'rejected' or (c.status = 'pending' and c.error = 'answer_lost'))
      order by c.chain_no limit 50`,
    [shopId],
  );
  if (!rows.length) return;
  const { rows: shops } = await helpers.query<{ name: string; locale: 'fr' | 'en' }>('select name, locale from shops where id = $1', [shopId]);
  const shop = shops[0]!;
  const t = TEXT[shop.locale];
  const lines = rows.map((row) => `${t.record(row)} : ${row.status === 'rejected' ? `${t.rejected} (${row.error_detail ?? row.error})` : t.lost}`);
  const text = [...lines, '', t.advice, ''].join('\n');
  const html = `<ul>${lines.map((line) => `<li>${escapeHtml(line)}</li>`).join('')}</ul>\n<p>${escapeHtml(t.advice)}</p>`;
  const last = rows[rows.length - 1]!.chain_no;
  const recipients = await mailShopStaff(ctx.mailer, helpers.query, shopId, ['owner', 'manager'], { subject: t.subject(shop.name, rows.length), text, html, fromName: shop.name }, `fiscal-alert.${shopId}.${last}`);
  await helpers.query(`update fiscal_certifications set alerted_at = now() where shop_id = $1 and chain_no = any($2::bigint[])`, [shopId, rows.map((row) => row.chain_no)]);
  ctx.log.info({ task: 'fiscal__alert', shop_id: shopId, records: rows.length, recipients }, 'certification alert sent');
};
