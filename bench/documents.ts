/**
 * `npm run bench:documents`: what a document costs the web process to make (issue 31). For invoices of
 * 12, 30 and 68 lines of a hardware shop in Douala: the A4 PDF (pdfmake: ms each, pages, bytes), the
 * printable HTML page and the phone page (ms each); then the heap and resident memory after
 * `BENCH_DOCUMENTS` PDFs made one after another, against before, so that a leak shows. No database:
 * rendering is a pure function of the sale, as the routes read it.
 *
 * The first PDF loads pdfmake and parses the fonts: printed apart, as "first PDF".
 */
import type { ReceiptInput, SaleRecord } from '../api/sales/schemas.ts';
import { renderInvoice } from '../api/receipts/invoice.ts';
import { invoicePdf } from '../api/receipts/pdf.ts';
import { renderSalePage } from '../api/receipts/phone-page.ts';
import { say } from './support.ts';

const DOCUMENTS = Number(process.env.BENCH_DOCUMENTS ?? 200);

const NAMES = [
  'Ciment CIMENCAM 42,5 R - sac 50 kg',
  'Tôle ondulée bac alu 0,40 mm, 2 m',
  'Pointes tête homme 70 mm (kg)',
  'Clé à molette réglable 250 mm',
  'Peinture glycéro Seigneurie blanc cassé 4 L',
  'Fer à béton HA 10 - barre de 12 m',
];

/** A credit sale of `count` lines with a business customer, amounts into the millions; its totals added up as the sale would. */
function invoiceOf(count: number): ReceiptInput {
  const items: SaleRecord['items'] = Array.from({ length: count }, (_, i) => {
    const quantity = 1 + (i % 7);
    const unit = 2_500 + i * 1_175;
    const total = quantity * unit;
    const vat = Math.round((total * 19.25) / 119.25);
    return {
      id: `00000000-0000-4000-8000-${String(i + 1).padStart(12, '0')}`,
      line_no: i + 1,
      product_id: null,
      variant_id: null,
      name: NAMES[i % NAMES.length]!,
      quantity,
      unit_price_xaf: unit,
      discount_xaf: 0,
      promotion_id: null,
      promotion_discount_xaf: 0,
      points_discount_xaf: 0,
      vat_rate: 19.25,
      vat_xaf: vat,
      total_xaf: total,
      refunded_quantity: 0,
    } as SaleRecord['items'][number];
  });
  const total = items.reduce((sum, item) => sum + item.total_xaf, 0);
  const vat = items.reduce((sum, item) => sum + item.vat_xaf, 0);
  const sale = {
    id: '0b7c6a52-5d1e-4c3b-9f43-2f1a8e6d9c10',
    receipt_no: 1042,
    status: 'completed',
    customer_id: 'c0000000-0000-4000-8000-000000000001',
    device_id: null,
    cashier_id: null,
    cashier_name: 'Awa Ndiaye',
    shift_id: null,
    note: null,
    subtotal_xaf: total,
    discount_xaf: 0,
    vat_xaf: vat,
    total_xaf: total,
    paid_xaf: total - 50_000,
    change_xaf: 0,
    credit_xaf: 50_000,
    points_earned: 0,
    points_redeemed: 0,
    items,
    payments: [
      { id: 'p1', kind: 'payment', method: 'cash', amount_xaf: total - 50_000, reference: null, created_at: '2026-11-21T13:05:00.000Z' },
      { id: 'p2', kind: 'payment', method: 'credit', amount_xaf: 50_000, reference: null, created_at: '2026-11-21T13:05:00.000Z' },
    ],
    vat_breakdown: [{ rate: 19.25, base_xaf: total - vat, vat_xaf: vat, total_xaf: total }],
    refunds: [],
    created_at: '2026-11-21T13:05:00.000Z',
    voided_at: null,
    void_reason: null,
  } as unknown as SaleRecord;
  return {
    sale,
    shop: {
      name: 'Quincaillerie Ébène',
      phone: '+237 699 00 00 00',
      email: 'contact@ebene.cm',
      address: 'Boulevard de la Liberté, Akwa',
      city: 'Douala',
      tax_id: 'M051912345678K',
      trade_register_no: 'RC/DLA/2019/B/1234',
      legal_form: 'SARL',
      share_capital_xaf: 10_000_000,
      tax_regime: 'Réel',
      tax_centre: 'CIME Douala',
      bank_details: 'Afriland First Bank, RIB 10005 00001 01234567890 12',
      momo_merchant_no: 'MTN MoMo marchand 456789',
      payment_terms_days: 30,
      receipt_header: null,
      receipt_footer: 'Merci de votre confiance.',
      locale: 'fr',
      timezone: 'Africa/Douala',
    },
    customer: { id: 'c0000000-0000-4000-8000-000000000001', name: 'Ets Kamga & Fils', phone: '+237 677 11 22 33', email: null, tax_id: 'M041812345678A', trade_register_no: 'RC/DLA/2021/B/0456', address: 'Bonabéri' },
  };
}

const pagesOf = (pdf: Buffer) => (pdf.toString('latin1').match(/\/Type\s*\/Page(?![a-z])/g) ?? []).length;

async function timed<T>(times: number, make: () => T | Promise<T>): Promise<{ ms: number; last: T }> {
  let last!: T;
  const started = performance.now();
  for (let i = 0; i < times; i++) last = await make();
  return { ms: (performance.now() - started) / times, last };
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

const first = performance.now();
await invoicePdf(invoiceOf(1), 'fr', null);
say(`first PDF (loads pdfmake and the fonts): ${(performance.now() - first).toFixed(0)} ms`);

for (const count of [12, 30, 68]) {
  const input = invoiceOf(count);
  const pdf = await timed(20, () => invoicePdf(input, 'fr', null));
  const html = await timed(200, () => renderInvoice(input, 'a4', 'fr'));
  const phone = await timed(200, () => renderSalePage(input, 'fr', null, { pdf: '/s/x/pdf', receipt: '/s/x/receipt' }));
  say(
    `${count} lines: PDF ${pdf.ms.toFixed(1)} ms, ${pagesOf(pdf.last)} page(s), ${(pdf.last.length / 1024).toFixed(0)} KiB; ` +
      `HTML page ${html.ms.toFixed(2)} ms; phone page ${phone.ms.toFixed(2)} ms`,
  );
}

global.gc?.();
const before = process.memoryUsage();
const thirty = invoiceOf(30);
const run = await timed(DOCUMENTS, () => invoicePdf(thirty, 'fr', null));
global.gc?.();
const after = process.memoryUsage();
say(
  `${DOCUMENTS} PDFs of 30 lines one after another: ${run.ms.toFixed(1)} ms each (${(1000 / run.ms).toFixed(0)}/s on one core); ` +
    `heap ${mb(before.heapUsed)} -> ${mb(after.heapUsed)} MB, RSS ${mb(before.rss)} -> ${mb(after.rss)} MB` +
    (global.gc ? '' : ' (run with node --expose-gc for a collected heap)'),
);
