import t from 'tap';
import { quotePdf } from '../../api/quotes/document-pdf.ts';
import { formatXaf, lineGross } from '../../api/receipts/format.ts';
import { COLUMNS, receiptLayout } from '../../api/receipts/layout.ts';
import { creditNotePdf, invoicePdf, pdfFileName, receiptPdf } from '../../api/receipts/pdf.ts';
import type { ReceiptInput, SaleRecord } from '../../api/sales/schemas.ts';
import type { ShopLogoImage } from '../../api/shop/queries.ts';
import { registerShop, type ShopFixture } from '../support/fixtures.ts';
import { startService } from '../support/service.ts';
import { createQuote, freeLine, quoteInput } from '../quotes/quote-fixtures.ts';
import { openShift, refundSale, sell } from '../sales/sale-fixtures.ts';
import { png } from '../shop/image-files.ts';
import { pdfFonts, pdfImages, pdfInfo, pdfPages, pdfText } from './pdf-reader.ts';
import { CUSTOMER, item, payment, receiptInput } from './receipt-fixtures.ts';

/**
 * The documents as PDF files (api/receipts/pdf.ts), read back with poppler-utils as a customer's
 * reader shows them: pages, text, fonts, images. Then through the API: `?format=pdf` on each document.
 */

const A4 = { width: 595.28, height: 841.89 };
const MM = 72 / 25.4;

/** What a hardware shop in Douala sells: names with accents, a dash, a decimal comma. */
const NAMES = ['Ciment CIMENCAM 42,5 R — sac 50 kg', 'Tôle ondulée bac alu 0,40', 'Pointes tête homme 70 mm', 'Clé à molette', 'Peinture glycéro Seigneurie blanc cassé'];

const vatIn = (total: number, rate: number) => Math.round((total * rate) / (100 + rate));

/**
 * An invoice of `count` lines to a business customer (NIU and RCCM) of a shop with its legal mentions
 * and bank details: every fourth line exempt, the rest at 19.25 %, half paid by MTN MoMo, half in cash.
 */
function hardwareSale(count: number): ReceiptInput {
  const items = Array.from({ length: count }, (_, index) => {
    const rate = index % 5 === 3 ? 0 : 19.25;
    const [quantity, unit] = [(index % 4) + 1, 1500 + index * 2350];
    const total = quantity * unit;
    return item({ line_no: index + 1, name: `${NAMES[index % NAMES.length]} ${index + 1}`, quantity, unit_price_xaf: unit, vat_rate: rate, vat_xaf: vatIn(total, rate), total_xaf: total });
  });
  const total = items.reduce((sum, line) => sum + line.total_xaf, 0);
  const vat_breakdown = [0, 19.25].map((rate) => {
    const lines = items.filter((line) => line.vat_rate === rate);
    const [total_xaf, vat_xaf] = [lines.reduce((sum, line) => sum + line.total_xaf, 0), lines.reduce((sum, line) => sum + line.vat_xaf, 0)];
    return { rate, base_xaf: total_xaf - vat_xaf, vat_xaf, total_xaf };
  });
  const momo = Math.floor(total / 2);
  const input = receiptInput({
    customer: { ...CUSTOMER, address: 'Akwa, Douala', tax_id: 'M051812345678P', trade_register_no: 'RC/YAO/2021/A/77' },
    shop: { legal_form: 'SARL', share_capital_xaf: 1_000_000, trade_register_no: 'RC/DLA/2019/B/1234', tax_regime: 'Réel', tax_centre: 'CIME Douala', bank_details: 'Afriland First Bank 10005 00001 01234567890 12', momo_merchant_no: '654321' },
    sale: { items, subtotal_xaf: total, discount_xaf: 0, total_xaf: total, vat_xaf: vat_breakdown.reduce((sum, v) => sum + v.vat_xaf, 0), vat_breakdown, paid_xaf: total, change_xaf: 0, points_earned: 0 },
  });
  input.sale.payments = [payment('carrier1_momo', momo, { reference: 'MP-2611-0042' }), payment('cash', total - momo)];
  return input;
}

const LOGO: ShopLogoImage = { media_type: 'image/png', width: 240, height: 80, content: png({ width: 240, height: 80 }) };

const invoices = new Map<number, Buffer>();
for (const count of [12, 30, 68]) invoices.set(count, await invoicePdf(hardwareSale(count), 'fr', null));

/** The lines of the text, each with its runs of spaces made one. */
const flat = (text: string) => text.split('\n').map((line) => line.trim().replace(/\s+/g, ' '));

t.test('an invoice of 12 or 30 lines holds on one A4 page, with its customer, VAT split and payments; 68 lines take two or three', async (t) => {
  const pages = Object.fromEntries([...invoices].map(([count, pdf]) => [count, pdfInfo(pdf).pages]));
  t.comment(`pages: 12 lines -> ${pages[12]}, 30 lines -> ${pages[30]}, 68 lines -> ${pages[68]}`);
  t.equal(pages[12], 1);
  t.equal(pages[30], 1);
  t.ok(pages[68]! >= 2 && pages[68]! <= 3, `68 lines: ${pages[68]} pages`);
  for (const pdf of invoices.values()) {
    const { width, height } = pdfInfo(pdf);
    t.ok(Math.abs(width - A4.width) < 1 && Math.abs(height - A4.height) < 1, `A4 portrait (${width} x ${height})`);
  }
  const text = pdfText(invoices.get(30)!);
  for (const part of ['Jean Mbarga', 'NIU : M051812345678P', 'dont TVA 17,5 %', 'dont CAC 10 % (de la TVA)', 'MTN MoMo', 'MP-2611-0042', 'Merci de votre visite !']) t.ok(text.includes(part), `one page holds "${part}"`);
});

t.test('every line prints its name, accents intact, and its amount on its row', async (t) => {
  const input = hardwareSale(68);
  const rows = flat(pdfText(invoices.get(68)!));
  for (const line of input.sale.items) {
    const amount = formatXaf(lineGross(line.quantity, line.unit_price_xaf), 'fr');
    t.ok(rows.some((row) => row.startsWith(`${line.line_no} ${line.name} `) && row.endsWith(` ${amount}`)), `${line.line_no}: ${line.name} ... ${amount}`);
  }
  const text = pdfText(invoices.get(12)!);
  for (const accented of ['Ciment CIMENCAM 42,5 R — sac 50 kg', 'Tôle ondulée bac alu 0,40', 'Pointes tête homme 70 mm', 'Clé à molette', 'Peinture glycéro Seigneurie blanc cassé', 'Désignation', 'Qté', 'PAYÉE', 'Réel']) {
    t.ok(text.includes(accented), accented);
  }
});

t.test('a long invoice repeats the lines\' header row on every page, and every page\'s foot names the invoice and says "Page x / y"', async (t) => {
  const pages = pdfPages(invoices.get(68)!);
  t.ok(pages.length >= 2);
  pages.forEach((page, index) => {
    t.match(page, /#\s+Désignation\s+Qté\s+Prix TTC\s+TVA\s+Montant/, `page ${index + 1} has the header row`);
    t.match(page, new RegExp(`Boutique Awa - Facture n° 1042\\s+Page ${index + 1} / ${pages.length}`), `page ${index + 1}'s foot`);
  });
  const rows = (page: string) => flat(page).filter((row) => /^\d+ (Ciment|Tôle|Pointes|Clé|Peinture)/.test(row)).map((row) => Number(row.split(' ')[0]));
  const perPage = pages.map(rows);
  t.strictSame(perPage.flat(), Array.from({ length: 68 }, (_, index) => index + 1), 'each line once, in order, none cut between two pages');
  t.match(pdfText(invoices.get(12)!), /Page 1 \/ 1/);
});

t.test('every font is embedded: the reader needs none of its own for an accent to print', async (t) => {
  for (const [count, pdf] of invoices) {
    const fonts = pdfFonts(pdf);
    t.ok(fonts.length > 0 && fonts.every((font) => font.embedded), `${count} lines: ${fonts.map((font) => `${font.name} emb=${font.embedded}`).join(', ')}`);
    t.ok(fonts.some((font) => font.name.endsWith('+Roboto-Regular')), 'Roboto, subset');
  }
});

t.test('the totals, the VAT split and the total in words are the invoice\'s', async (t) => {
  const input = hardwareSale(30);
  const text = pdfText(invoices.get(30)!);
  const rows = flat(text);
  const sum = input.sale.items.reduce((total, line) => total + line.total_xaf, 0);
  t.equal(sum, 2_614_600);
  t.ok(rows.some((row) => row.endsWith('Total TTC 2 614 600 FCFA')), 'Total TTC');
  const vat = input.sale.vat_breakdown;
  t.ok(rows.some((row) => row.endsWith(`Total HT ${formatXaf(vat[0]!.base_xaf + vat[1]!.base_xaf, 'fr')}`)), 'Total HT');
  t.ok(rows.some((row) => row.endsWith(`Total TVA ${formatXaf(vat[1]!.vat_xaf, 'fr')}`)), 'Total TVA');
  t.ok(rows.some((row) => row.startsWith(`19,25 % ${formatXaf(vat[1]!.base_xaf, 'fr')} ${formatXaf(vat[1]!.vat_xaf, 'fr')} ${formatXaf(vat[1]!.total_xaf, 'fr')}`)), 'the 19.25 % row of the VAT breakdown');
  t.ok(rows.some((row) => row.startsWith(`Exonéré ${formatXaf(vat[0]!.base_xaf, 'fr')} 0 FCFA`)), 'the exempt row');
  t.ok(text.includes('Arrêtée la présente facture à la somme de deux millions six cent quatorze mille six cents francs CFA.'), 'the words');
  t.ok(rows.some((row) => row.endsWith(`MTN MoMo MP-2611-0042 ${formatXaf(1_307_300, 'fr')}`)), 'the MoMo payment with its reference');
});

t.test('a block too long for one page breaks rather than loses rows: a sale of 68 lines refunded one credit note per line prints all 68', async (t) => {
  const input = hardwareSale(68);
  input.sale.status = 'refunded';
  input.sale.refunds = input.sale.items.map((line, index) => ({
    id: `00000000-0000-4000-a000-${String(index + 1).padStart(12, '0')}`, credit_note_no: index + 1, method: 'cash' as const, reason: null,
    total_xaf: line.total_xaf, vat_xaf: line.vat_xaf, items: [{ sale_item_id: line.id, quantity: line.quantity, total_xaf: line.total_xaf, vat_xaf: line.vat_xaf }],
    created_at: '2026-11-22T09:00:00.000Z', certification: null,
  }));
  const pdf = await invoicePdf(input, 'fr', null);
  const text = pdfText(pdf);
  t.comment(`pages: ${pdfInfo(pdf).pages}`);
  const listed = input.sale.refunds.filter((refund) => text.includes(`Avoir n° ${refund.credit_note_no} - 22/11/2026 10:00`));
  const totalled = input.sale.refunds.filter((refund) => text.includes(`Avoir n° ${refund.credit_note_no} du 22/11/2026`));
  t.equal(listed.length, 68, 'every credit note in the refunds\' table');
  t.equal(totalled.length, 68, 'and under the total');
  t.ok(flat(text).some((row) => row.endsWith('Net après avoirs 0 FCFA')), 'down to the net');
});

t.test('the PDF carries the document\'s title, as the HTML page\'s tab does', async (t) => {
  t.equal(pdfInfo(invoices.get(12)!).title, 'Facture n° 1042 - Boutique Awa');
});

t.test('a voided invoice says so across the page and is closed by no sum in words', async (t) => {
  const input = hardwareSale(3);
  input.sale.status = 'voided';
  input.sale.voided_at = '2026-11-21T14:00:00.000Z';
  input.sale.void_reason = 'Erreur de caisse';
  const text = pdfText(await invoicePdf(input, 'fr', null));
  t.ok(text.includes('VENTE ANNULÉE - 21/11/2026 15:00'), 'the banner');
  t.ok(text.includes('Motif : Erreur de caisse'));
  t.notOk(text.includes('Arrêtée'), 'no words');
  t.notOk(text.includes('PAYÉE'), 'no stamp');
  t.ok(pdfText(await invoicePdf(hardwareSale(3), 'fr', null)).includes('Arrêtée'), 'which the same invoice not voided has');
});

t.test('a refund\'s credit note is a PDF of its own: "Avoir n° 3", the invoice it corrects, the lines given back, the words', async (t) => {
  const input = hardwareSale(4);
  const [first, second] = input.sale.items;
  const refund: SaleRecord['refunds'][number] = {
    id: '00000000-0000-4000-a000-000000000003', credit_note_no: 3, method: 'cash', reason: 'Tôle abîmée', total_xaf: 3850, vat_xaf: vatIn(3850, 19.25),
    items: [{ sale_item_id: second!.id, quantity: 1, total_xaf: 3850, vat_xaf: vatIn(3850, 19.25) }], created_at: '2026-11-22T09:00:00.000Z', certification: null,
  };
  input.sale.status = 'partially_refunded';
  input.sale.refunds = [refund];
  const pdf = await creditNotePdf(input, refund, 'fr', null);
  t.equal(pdfInfo(pdf).pages, 1);
  t.equal(pdfInfo(pdf).title, 'Avoir n° 3 - Boutique Awa');
  const text = pdfText(pdf);
  const rows = flat(text);
  for (const part of ['AVOIR', 'Avoir n° 3', 'Facture n° 1042 du 21/11/2026 14:05', 'Tôle abîmée', 'Arrêté le présent avoir à la somme de trois mille huit cent cinquante francs CFA.']) t.ok(text.includes(part), part);
  t.ok(rows.some((row) => row.startsWith(`1 ${second!.name} 1 3 850 FCFA`) && row.endsWith(' 3 850 FCFA')), 'the line given back');
  t.notOk(text.includes(first!.name), 'and no other');
});

t.test('a quote\'s PDF is the "Devis / Proforma" with its "Bon pour accord" box and none of the shop\'s receipt footer', async (t) => {
  const pdf = await quotePdf(quoteInput(), 'fr', null);
  const text = pdfText(pdf);
  for (const part of ['DEVIS / PROFORMA', 'Devis n° 12', "Valable jusqu'au 31/12/2026", 'Bon pour accord', "Ce devis n'est pas une facture.", 'Arrêté le présent devis']) t.ok(text.includes(part), part);
  t.notOk(text.includes('Merci de votre visite'), 'no receipt footer');
  t.equal(pdfInfo(pdf).title, 'Devis n° 12 - Boutique Awa');
  const en = pdfText(await quotePdf(quoteInput(), 'en', null));
  for (const part of ['PROFORMA INVOICE', 'Proforma no. 12', 'Accepted']) t.ok(en.includes(part), part);
});

t.test('the shop\'s logo is embedded when it has one, and no image is without', async (t) => {
  const withLogo = await invoicePdf(hardwareSale(3), 'fr', LOGO);
  t.strictSame(pdfImages(withLogo), [{ width: 240, height: 80 }], 'one image, the logo at its own size');
  t.strictSame(pdfImages(invoices.get(12)!), [], 'none without');
  t.strictSame(pdfImages(await quotePdf(quoteInput(), 'fr', LOGO)).length, 1, 'on the quote too');
});

t.test('an English invoice uses the English words and numbers', async (t) => {
  const pdf = await invoicePdf(hardwareSale(30), 'en', null);
  t.equal(pdfInfo(pdf).pages, 1);
  const text = pdfText(pdf);
  for (const part of ['INVOICE', 'Invoice no. 1042', 'Item', 'Unit price incl. VAT', 'Exempt', 'Total incl. VAT', '2,614,600 FCFA', 'two million six hundred', 'Page 1 / 1']) t.ok(text.includes(part), part);
  for (const french of ['Facture', 'Désignation', 'Exonéré', 'Arrêtée']) t.notOk(text.includes(french), `no "${french}"`);
});

t.test('the till receipt as a PDF is as wide as its roll, one page as long as the receipt, its lines the printer\'s in a monospace font', async (t) => {
  for (const width of [58, 80] as const) {
    const input = hardwareSale(5);
    const pdf = await receiptPdf(input, width, 'fr');
    const info = pdfInfo(pdf);
    t.equal(info.pages, 1, `${width} mm: one page`);
    t.ok(Math.abs(info.width - width * MM) < 0.5, `${width} mm wide (${info.width} pt)`);
    t.ok(info.height < A4.height, `as long as the receipt (${Math.round(info.height / MM)} mm)`);
    t.equal(info.title, 'Reçu n° 1042 - Boutique Awa');
    const fonts = pdfFonts(pdf);
    t.ok(fonts.length > 0 && fonts.every((font) => font.embedded && font.name.includes('RobotoMono')), fonts.map((font) => font.name).join(', '));
    const printed = flat(pdfText(pdf)).filter(Boolean);
    const expected = receiptLayout(input, COLUMNS[width], 'fr').flatMap((block) => (block.kind === 'line' && block.text.trim() ? [block.text.trim().replace(/\s+/g, ' ')] : []));
    t.strictSame(printed, expected, `${width} mm: the printer's ${COLUMNS[width]}-column lines, in order, none wrapped`);
  }
  const scanned = await receiptPdf(hardwareSale(5), 80, 'fr', 'https://pos.example.cm/s/Ab3dE5fG7hJ9');
  t.ok(pdfInfo(scanned).height - pdfInfo(await receiptPdf(hardwareSale(5), 80, 'fr')).height > 20 * MM, 'the QR code of the sale\'s page, when given, at least 2 cm more');
  const longer = await receiptPdf(hardwareSale(20), 80, 'fr');
  t.ok(pdfInfo(longer).height > pdfInfo(await receiptPdf(hardwareSale(5), 80, 'fr')).height, 'more lines, a longer page');
  t.equal(pdfInfo(longer).pages, 1);
});

t.test('a document\'s file is named after its kind and number in the language asked', async (t) => {
  t.equal(pdfFileName('invoice', 1042, 'fr'), 'facture-1042.pdf');
  t.equal(pdfFileName('invoice', 1042, 'en'), 'invoice-1042.pdf');
  t.equal(pdfFileName('credit_note', 3, 'fr'), 'avoir-3.pdf');
  t.equal(pdfFileName('credit_note', 3, 'en'), 'credit-note-3.pdf');
  t.equal(pdfFileName('quote', 12, 'fr'), 'devis-12.pdf');
  t.equal(pdfFileName('quote', 12, 'en'), 'proforma-12.pdf');
  t.equal(pdfFileName('receipt', 1042, 'fr'), 'recu-1042.pdf');
});

// ---------------------------------------------------------------------------------------------
// Through the API

const api = await startService(t);

/** A GET answered as bytes, with the headers a browser acts on. */
async function download(path: string, token: string) {
  const response = await fetch(`${api.baseUrl}/api/v1${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, type: response.headers.get('content-type'), disposition: response.headers.get('content-disposition'), bytes: Buffer.from(await response.arrayBuffer()) };
}

/** A shop with a logo and a sale of two lines, one of them partly refunded. */
async function shopWithSale(): Promise<{ owner: ShopFixture; sale: any; refund: any }> {
  const owner = await registerShop(api, { shop_name: 'Quincaillerie du Port' });
  await api.ownerSql`insert into shop_logos (shop_id, media_type, content, width, height, sha256)
    values (${owner.shop.id}, ${LOGO.media_type}, ${LOGO.content}, ${LOGO.width}, ${LOGO.height}, 'test')`;
  const sale = await sell(api, owner.token, {
    items: [
      { name: 'Tôle ondulée bac alu 0,40', quantity: 4, unit_price_xaf: 7500, vat_rate: 19.25 },
      { name: 'Clé à molette', quantity: 1, unit_price_xaf: 4500, vat_rate: 19.25 },
    ],
    payments: [{ method: 'cash', amount_xaf: 34500 }],
  });
  await openShift(api, owner.token);
  const refunded = await refundSale(api, owner.token, sale.id, { method: 'cash', reason: 'Tôle pliée', items: [{ sale_item_id: sale.items[0].id, quantity: 1 }] });
  if (refunded.status !== 201) throw new Error(`refund failed: ${refunded.status} ${JSON.stringify(refunded.body)}`);
  return { owner, sale, refund: (refunded.body as any).data.refunds.at(-1) };
}

t.test('?format=pdf answers each document as an inline PDF named after it, with the shop\'s logo', async (t) => {
  const { owner, sale, refund } = await shopWithSale();
  const quote = await createQuote(api, owner.token, { items: [freeLine(12500, { name: 'Pose de tôles — forfait' })] });
  const documents = [
    { path: `/sales/${sale.id}/invoice?format=pdf`, name: `facture-${sale.receipt_no}.pdf`, says: `Facture n° ${sale.receipt_no}` },
    { path: `/sales/${sale.id}/invoice?format=pdf&locale=en`, name: `invoice-${sale.receipt_no}.pdf`, says: `Invoice no. ${sale.receipt_no}` },
    { path: `/sales/${sale.id}/refunds/${refund.id}/credit-note?format=pdf`, name: `avoir-${refund.credit_note_no}.pdf`, says: `Avoir n° ${refund.credit_note_no}` },
    { path: `/quotes/${quote.id}/document?format=pdf`, name: `devis-${quote.quote_no}.pdf`, says: `Devis n° ${quote.quote_no}` },
    { path: `/quotes/${quote.id}/document?format=pdf&locale=en`, name: `proforma-${quote.quote_no}.pdf`, says: `Proforma no. ${quote.quote_no}` },
  ];
  for (const document of documents) {
    const answer = await download(document.path, owner.token);
    t.equal(answer.status, 200, document.path);
    t.equal(answer.type, 'application/pdf');
    t.equal(answer.disposition, `inline; filename="${document.name}"`);
    t.equal(answer.bytes.subarray(0, 5).toString('latin1'), '%PDF-');
    t.ok(pdfText(answer.bytes).includes(document.says), document.says);
    t.equal(pdfImages(answer.bytes).length, 1, 'the logo');
  }
  const page = await api.request('GET', `/sales/${sale.id}/invoice`, { token: owner.token });
  t.match(page.headers.get('content-type'), /^text\/html/, 'without format=pdf, the HTML page as before');
  t.match(page.body as string, `src="data:image/png;base64,${LOGO.content.toString('base64')}"`, 'with the logo inline');
});

t.test('GET /sales/{id}/receipt/pdf answers the till receipt on its roll; the ESC/POS receipt is unchanged', async (t) => {
  const { owner, sale } = await shopWithSale();
  const roll = await download(`/sales/${sale.id}/receipt/pdf?width=58`, owner.token);
  t.equal(roll.status, 200);
  t.equal(roll.type, 'application/pdf');
  t.equal(roll.disposition, `inline; filename="recu-${sale.receipt_no}.pdf"`);
  t.ok(Math.abs(pdfInfo(roll.bytes).width - 58 * MM) < 0.5, '58 mm');
  t.ok(pdfText(roll.bytes).includes(`Reçu n° ${sale.receipt_no}`));
  const [link] = await api.ownerSql`select count(*)::int as n from shared_links where sale_id = ${sale.id}`;
  t.equal(link!.n, 1, 'the link its QR code carries is recorded, as the printer\'s');
  t.ok(Math.abs(pdfInfo((await download(`/sales/${sale.id}/receipt/pdf`, owner.token)).bytes).width - 80 * MM) < 0.5, '80 mm by default');
  const escpos = await api.request('GET', `/sales/${sale.id}/receipt`, { token: owner.token });
  t.equal(escpos.status, 200);
  t.match(escpos.body, { data: { format: 'escpos', width: 80, columns: 48 } });
});

t.test('a document the caller cannot see is the same 404 with format=pdf; an unknown format is a 422', async (t) => {
  const { owner, sale, refund } = await shopWithSale();
  const other = await registerShop(api);
  const missing = '00000000-0000-4000-8000-0000000000ff';
  for (const [path, token] of [
    [`/sales/${missing}/invoice?format=pdf`, owner.token],
    [`/sales/${sale.id}/invoice?format=pdf`, other.token],
    [`/sales/${sale.id}/refunds/${missing}/credit-note?format=pdf`, owner.token],
    [`/sales/${sale.id}/refunds/${refund.id}/credit-note?format=pdf`, other.token],
    [`/quotes/${missing}/document?format=pdf`, owner.token],
    [`/sales/${sale.id}/receipt/pdf`, other.token],
  ] as const) {
    const answer = await api.request('GET', path, { token });
    t.equal(answer.status, 404, path);
    t.match(answer.body, { code: 'not_found' });
  }
  const bad = await api.request('GET', `/sales/${sale.id}/invoice?format=docx`, { token: owner.token });
  t.equal(bad.status, 422);
  t.ok(Object.keys((bad.body as any).errors).includes('format'));
});
