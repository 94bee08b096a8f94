import type { Task } from 'graphile-worker';
import { z } from 'zod';
import { paymentLabels } from '../../api/lib/payment-labels.ts';
import { moneyTakenIn } from '../../api/reports/z.ts';
import type { WorkerContext } from '../context.ts';
import { escapeHtml, mailShopStaff, xafFormatter } from '../mailer.ts';

const Payload = z.object({ shop_id: z.uuid(), day: z.iso.date() });

interface ZFigures {
  z_no: number;
  date: string;
  sales: { count: number; total_xaf: number };
  late_sales: { count: number; total_xaf: number };
  voids: { count: number; total_xaf: number };
  refunds: { count: number; total_xaf: number };
  net_total_xaf: number;
  vat_xaf: number;
  grand_total_xaf: number;
  payments: { method: string; amount_xaf: number }[];
  settlements: { method: string; amount_xaf: number }[];
  expenses: { count: number; total_xaf: number };
}

const TEXT = {
  fr: {
    subject: (shop: string, z: ZFigures) => `${shop} : Z n° ${z.z_no} du ${z.date}`,
    lines: (z: ZFigures, xaf: (n: number) => string) => [
      `Ventes : ${z.sales.count}, ${xaf(z.sales.total_xaf)}`,
      ...(z.late_sales.count ? [`dont ventes tardives (jours déjà clos) : ${z.late_sales.count}, ${xaf(z.late_sales.total_xaf)}`] : []),
      `Annulations : ${z.voids.count}, ${xaf(z.voids.total_xaf)}`,
      `Remboursements : ${z.refunds.count}, ${xaf(z.refunds.total_xaf)}`,
      `Total net TTC : ${xaf(z.net_total_xaf)} (TVA ${xaf(z.vat_xaf)})`,
      `Dépenses : ${z.expenses.count}, ${xaf(z.expenses.total_xaf)}`,
      `Grand total cumulé : ${xaf(z.grand_total_xaf)}`,
    ],
    payments: 'Encaissements (ventes nettes des remboursements, plus règlements des comptes clients)',
    credit: (amount: string) => `Vendu à crédit sur les comptes clients (non encaissé) : ${amount}`,
    settlements: (amount: string) => `dont règlements des comptes clients : ${amount}`,
    outro: 'Le Z complet : GET /reports/z dans votre application.',
  },
  en: {
    subject: (shop: string, z: ZFigures) => `${shop}: Z no. ${z.z_no} of ${z.date}`,
    lines: (z: ZFigures, xaf: (n: number) => string) => [
      `Sales: ${z.sales.count}, ${xaf(z.sales.total_xaf)}`,
      ...(z.late_sales.count ? [`of which late sales (days already closed): ${z.late_sales.count}, ${xaf(z.late_sales.total_xaf)}`] : []),
      `Voids: ${z.voids.count}, ${xaf(z.voids.total_xaf)}`,
      `Refunds: ${z.refunds.count}, ${xaf(z.refunds.total_xaf)}`,
      `Net total incl. VAT: ${xaf(z.net_total_xaf)} (VAT ${xaf(z.vat_xaf)})`,
      `Expenses: ${z.expenses.count}, ${xaf(z.expenses.total_xaf)}`,
      `Cumulative grand total: ${xaf(z.grand_total_xaf)}`,
    ],
    payments: 'Money taken in (sales net of refunds, plus payments on customer accounts)',
    credit: (amount: string) => `Sold on credit to customer accounts (not money taken in): ${amount}`,
    settlements: (amount: string) => `of which payments on customer accounts: ${amount}`,
    outro: 'The whole Z: GET /reports/z in your application.',
  },
} as const;

/**
 * The sealed Z of one shop's day (queued by its sealing, report__seal_z), mailed to the shop's owners
 * in the shop's language. It reads the stored Z, which never changes. Safe to run twice: each
 * owner's mail is sent once (sendOnce, keyed by shop, day and recipient).
 */
export function reportEmailZ(ctx: WorkerContext): Task {
  return async (rawPayload, helpers) => {
    const { shop_id, day } = Payload.parse(rawPayload);
    const { rows } = await helpers.query<{ name: string; locale: 'fr' | 'en'; payment_method_labels: Record<string, string> | null; report: ZFigures }>(
      `select s.name, s.locale, s.payment_method_labels, z.report from z_reports z join shops s on s.id = z.shop_id where z.shop_id = $1 and z.day = $2::date`,
      [shop_id, day],
    );
    const found = rows[0];
    if (!found) return;
    const locale = found.locale === 'en' ? 'en' : 'fr';
    const t = TEXT[locale];
    const xaf = xafFormatter(locale);
    const z = found.report;
    const colon = locale === 'fr' ? ' :' : ':';
    // The shop's own names of its payment methods (MTN MoMo, Orange Money...), as on its receipts.
    const methods: Record<string, string> = paymentLabels(locale, found.payment_method_labels);
    const paymentLines = moneyTakenIn(z).map(({ method, amount_xaf }) => `- ${methods[method] ?? method}${colon} ${xaf(amount_xaf)}`);
    const settled = z.settlements.reduce((sum, settlement) => sum + settlement.amount_xaf, 0);
    const credit = z.payments.find((payment) => payment.method === 'credit')?.amount_xaf ?? 0;
    const lines = [
      ...t.lines(z, xaf),
      '',
      `${t.payments}${colon}`,
      ...paymentLines,
      ...(settled ? [t.settlements(xaf(settled))] : []),
      ...(credit ? ['', t.credit(xaf(credit))] : []),
    ];
    const text = [t.subject(found.name, z), '', ...lines, '', t.outro, ''].join('\n');
    const html = [`<h2>${escapeHtml(t.subject(found.name, z))}</h2>`, ...lines.map((line) => (line ? `<p>${escapeHtml(line)}</p>` : '')), `<p>${escapeHtml(t.outro)}</p>`].join('\n');
    const recipients = await mailShopStaff(ctx.mailer, helpers.query, shop_id, ['owner'], { subject: t.subject(found.name, z), text, html }, `z-report.${shop_id}.${day}`);
    ctx.log.info({ task: 'report__email_z', shop_id, day, recipients }, 'Z report mailed');
  };
}
