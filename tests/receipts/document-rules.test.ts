import t from 'tap';
import { quoteDocument, renderQuoteDocument } from '../../api/quotes/document.ts';
import { creditNoteDocument, renderCreditNote } from '../../api/receipts/credit-note.ts';
import { layoutDocument, type DocumentLayout } from '../../api/receipts/document.ts';
import { invoiceDocument, renderInvoice } from '../../api/receipts/invoice.ts';
import { receiptLayout } from '../../api/receipts/layout.ts';
import { INVOICE_CSP } from '../../api/receipts/schemas.ts';
import { renderText } from '../../api/receipts/text.ts';
import type { ReceiptInput, SaleRecord } from '../../api/sales/schemas.ts';
import type { ShopLogoImage } from '../../api/shop/queries.ts';
import { quoteInput, sampleQuote } from '../quotes/quote-fixtures.ts';
import { CUSTOMER, item, payment, receiptInput, visibleText } from './receipt-fixtures.ts';

/**
 * What the A4 documents (invoice, credit note, quote) and the till receipts print, rule by rule
 * (issue 31, points 4 and 5): each a pure function of its input, built by hand.
 */

type Locale = 'fr' | 'en';
type Refund = SaleRecord['refunds'][number];

const LEGAL = {
  legal_form: 'SARL',
  share_capital_xaf: 1_000_000,
  trade_register_no: 'RC/DLA/2019/B/1234',
  tax_regime: 'Réel',
  tax_centre: 'CIME Douala',
};
const BUSINESS = { ...CUSTOMER, tax_id: 'M051812345678P', trade_register_no: 'RC/YAO/2021/A/77' };
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

const layout = (input: ReceiptInput, locale: Locale = 'fr'): DocumentLayout => layoutDocument(invoiceDocument(input, locale), input.shop, locale);
const sellerText = (html: string) => visibleText(/<div class="seller">[\s\S]*?<\/div><div class="title">/.exec(html)![0]);
const partyText = (html: string) => visibleText(/<section class="party">[\s\S]*?<\/section>/.exec(html)?.[0] ?? '');
const amount = (value: string) => Number(value.replace(/[^\d-]/g, ''));
const totalsOf = (page: DocumentLayout) => Object.fromEntries(page.totals.map((row) => [row.label, amount(row.value)]));

function refund(credit_note_no: number, created_at: string, items: Refund['items'], fields: Partial<Refund> = {}): Refund {
  const total_xaf = items.reduce((sum, part) => sum + part.total_xaf, 0);
  const vat_xaf = items.reduce((sum, part) => sum + part.vat_xaf, 0);
  return { id: `00000000-0000-4000-a000-${String(credit_note_no).padStart(12, '0')}`, credit_note_no, method: 'cash', reason: 'Article abîmé', total_xaf, vat_xaf, items, created_at, certification: null, ...fields };
}

/**
 * The sample sale (17 250 FCFA) with two credit notes: n° 3 gave back one of the two coffees (2 250,
 * its share of the line's discount taken off), n° 4 half of the tomatoes (500, exempt). Net 14 500.
 */
function partlyRefunded(): ReceiptInput {
  const input = receiptInput({ customer: CUSTOMER, sale: { status: 'partially_refunded' } });
  const [coffee, , tomatoes] = input.sale.items;
  input.sale.refunds = [
    refund(3, '2026-11-22T09:00:00.000Z', [{ sale_item_id: coffee!.id, quantity: 1, total_xaf: 2250, vat_xaf: 363 }]),
    refund(4, '2026-11-23T23:30:00.000Z', [{ sale_item_id: tomatoes!.id, quantity: 0.5, total_xaf: 500, vat_xaf: 0 }]),
  ];
  return input;
}

/**
 * The sample sale without any discount: Café 5 000, Riz 12 500, Tomates 1 500 (exempt).
 * 17 500 at 19.25 %: base 14 675, VAT 2 825; total 19 000.
 */
function undiscounted(fields: Partial<SaleRecord> = {}): ReceiptInput {
  const input = receiptInput({ sale: { discount_xaf: 0, total_xaf: 19000, vat_xaf: 2825, paid_xaf: 19000, change_xaf: 0, payments: [payment('cash', 19000)], ...fields } });
  input.sale.items = input.sale.items.map((line) => ({ ...line, discount_xaf: 0, promotion_id: null, promotion_discount_xaf: 0, total_xaf: line.quantity * line.unit_price_xaf }));
  input.sale.vat_breakdown = [
    { rate: 0, base_xaf: 1500, vat_xaf: 0, total_xaf: 1500 },
    { rate: 19.25, base_xaf: 14675, vat_xaf: 2825, total_xaf: 17500 },
  ];
  return input;
}

/** A credit sale of the whole 17 250 on the customer's account, made at `created_at`. */
function creditSale(created_at: string, payment_terms_days: number | null | undefined, timezone = 'Africa/Douala'): ReceiptInput {
  return receiptInput({
    customer: CUSTOMER,
    shop: { payment_terms_days, timezone },
    sale: { created_at, credit_xaf: 17250, paid_xaf: 0, change_xaf: 0, payments: [payment('credit', 17250)] },
  });
}

/** Every document a sale and a quote print, with whatever `shop` and `customer` say, in `locale`. */
function everyDocument(locale: Locale, shop: Partial<ReceiptInput['shop']> = {}, customer: ReceiptInput['customer'] = CUSTOMER): Record<string, string> {
  const input = partlyRefunded();
  Object.assign(input.shop, shop);
  input.customer = customer;
  return {
    invoice: renderInvoice(input, 'a4', locale),
    'credit note': renderCreditNote(input, input.sale.refunds[0]!, 'a4', locale),
    quote: renderQuoteDocument(quoteInput({ shop, customer }), 'a4', locale),
  };
}

// ---------------------------------------------------------------------------------------------
// The seller's and the customer's legal mentions

t.test('the seller prints its legal form and capital, NIU, RCCM, tax regime and tax centre on every document', async (t) => {
  for (const [name, html] of Object.entries(everyDocument('fr', LEGAL))) {
    const seller = sellerText(html);
    for (const expected of ['SARL au capital de 1 000 000 FCFA', 'NIU : M012345678901X', 'RCCM : RC/DLA/2019/B/1234', 'Régime fiscal : Réel', 'Centre des impôts : CIME Douala']) {
      t.ok(seller.includes(expected), `${name}: ${expected}`);
    }
  }
  t.same(
    layout(receiptInput({ shop: LEGAL })).seller.lines,
    [
      'SARL au capital de 1 000 000 FCFA',
      'Rue de la Joie',
      'Douala',
      { label: 'Tél.', value: '+237 699 00 00 00' },
      { label: 'E-mail', value: 'contact@boutique-awa.cm' },
      { label: 'NIU', value: 'M012345678901X' },
      { label: 'RCCM', value: 'RC/DLA/2019/B/1234' },
      { label: 'Régime fiscal', value: 'Réel' },
      { label: 'Centre des impôts', value: 'CIME Douala' },
      'Ouvert 7j/7',
    ],
    'the legal form under the name, the registrations after the contacts',
  );
});

t.test('a legal mention the shop has not given is not printed, nor its label', async (t) => {
  const none = { tax_id: null, trade_register_no: null, legal_form: null, share_capital_xaf: null, tax_regime: null, tax_centre: null };
  for (const [name, html] of Object.entries(everyDocument('fr', none))) {
    t.notMatch(sellerText(html), /NIU|RCCM|capital|Régime fiscal|Centre des impôts|SARL/, `${name}: no empty mention`);
  }
  t.same(layout(receiptInput({ shop: { ...none, legal_form: 'SARL' } })).seller.lines[0], 'SARL', 'a legal form without a capital');
  t.same(layout(receiptInput({ shop: { ...none, share_capital_xaf: 500_000 } })).seller.lines[0], 'au capital de 500 000 FCFA', 'a capital without a legal form');
});

t.test('the customer\'s NIU and RCCM print in the customer\'s box', async (t) => {
  for (const [name, html] of Object.entries(everyDocument('fr', {}, BUSINESS))) {
    const party = partyText(html);
    t.ok(party.includes('NIU : M051812345678P'), `${name}: the customer's NIU`);
    t.ok(party.includes('RCCM : RC/YAO/2021/A/77'), `${name}: the customer's RCCM`);
  }
  for (const [name, html] of Object.entries(everyDocument('fr'))) t.notMatch(partyText(html), /NIU|RCCM/, `${name}: none for a customer without them`);
});

t.test('the legal mentions read in English on an English document', async (t) => {
  for (const [name, html] of Object.entries(everyDocument('en', LEGAL, BUSINESS))) {
    const seller = sellerText(html);
    for (const expected of ['SARL with a share capital of 1,000,000 FCFA', 'NIU: M012345678901X', 'RCCM: RC/DLA/2019/B/1234', 'Tax regime: Réel', 'Tax centre: CIME Douala']) {
      t.ok(seller.includes(expected), `${name}: ${expected}`);
    }
    t.ok(partyText(html).includes('NIU: M051812345678P RCCM: RC/YAO/2021/A/77'), `${name}: the customer's`);
    t.notMatch(visibleText(html), /au capital|Régime fiscal|Centre des impôts|contribuable|Tax ID/, `${name}: no French label, no "Tax ID"`);
  }
});

// ---------------------------------------------------------------------------------------------
// Where to pay, and when

t.test('"Règlement" gives the bank details and the mobile money merchant number when the shop has them, and is absent otherwise', async (t) => {
  const both = { bank_details: 'Afriland First Bank - 10005 00001 01234567890 12', momo_merchant_no: '#150*47*123456#' };
  for (const [name, html] of Object.entries(everyDocument('fr', both))) {
    t.match(
      html,
      '<div class="pay-to"><h2>Règlement</h2><p><span class="label">Banque :</span> Afriland First Bank - 10005 00001 01234567890 12</p><p><span class="label">Mobile money :</span> #150*47*123456#</p></div>',
      `${name}: both`,
    );
  }
  t.match(renderInvoice(receiptInput({ shop: both }), 'a4', 'en'), '<h2>Payment details</h2><p><span class="label">Bank:</span> Afriland');
  t.same(layout(receiptInput({ shop: { momo_merchant_no: '677123456' } })).pay_to, { heading: 'Règlement', lines: [{ label: 'Mobile money', value: '677123456' }] }, 'only what is set');
  for (const [name, html] of Object.entries(everyDocument('fr'))) {
    t.notOk(html.includes('class="pay-to"'), `${name}: no block without them`);
    t.notOk(visibleText(html).includes('Règlement'), `${name}: nor its heading`);
  }
});

t.test('a credit sale\'s invoice shows its payment terms and its due date, counted from the sale\'s day in the shop\'s time zone', async (t) => {
  // 23:30 UTC is 00:30 the next day in Douala (UTC+1): the sale is of 22/11, due 30 days later.
  const late = creditSale('2026-11-21T23:30:00.000Z', 30);
  t.same(layout(late).details.slice(2, 4), [{ label: 'Conditions de paiement', value: '30 jours' }, { label: 'Échéance', value: '22/12/2026' }]);
  t.ok(visibleText(renderInvoice(late, 'a4', 'fr')).includes('Conditions de paiement : 30 jours Échéance : 22/12/2026'));
  t.ok(visibleText(renderInvoice(late, 'a4', 'en')).includes('Payment terms: 30 days Due date: 22/12/2026'));
  const abidjan = creditSale('2026-11-21T23:30:00.000Z', 30, 'Africa/Abidjan');
  t.ok(visibleText(renderInvoice(abidjan, 'a4', 'fr')).includes('Échéance : 21/12/2026'), 'in Abidjan (UTC) the same instant is still the 21st');
  const cash = creditSale('2026-12-31T23:30:00.000Z', 0);
  t.ok(visibleText(renderInvoice(cash, 'a4', 'fr')).includes('Conditions de paiement : comptant Échéance : 01/01/2027'), '0 days: cash, due the sale\'s own day');
  t.ok(visibleText(renderInvoice(cash, 'a4', 'en')).includes('Payment terms: cash Due date: 01/01/2027'));
  t.ok(visibleText(renderInvoice(creditSale('2027-01-31T10:00:00.000Z', 30), 'a4', 'fr')).includes('Échéance : 02/03/2027'), 'across the end of February');
});

t.test('no payment terms nor due date on a sale paid at the till, a voided credit sale or in a shop without payment terms', async (t) => {
  const terms = /Conditions de paiement|Échéance/;
  t.notMatch(visibleText(renderInvoice(receiptInput({ customer: CUSTOMER, shop: { payment_terms_days: 30 } }), 'a4', 'fr')), terms, 'paid at the till');
  t.notMatch(visibleText(renderInvoice(creditSale('2026-11-21T10:00:00.000Z', null), 'a4', 'fr')), terms, 'no payment terms set');
  t.notMatch(visibleText(renderInvoice(creditSale('2026-11-21T10:00:00.000Z', undefined), 'a4', 'fr')), terms, 'payment terms unknown');
  const voided = creditSale('2026-11-21T10:00:00.000Z', 30);
  voided.sale.status = 'voided';
  t.notMatch(visibleText(renderInvoice(voided, 'a4', 'fr')), terms, 'voided');
  t.match(visibleText(renderInvoice(creditSale('2026-11-21T10:00:00.000Z', 30), 'a4', 'fr')), terms, 'the same credit sale standing has them');
});

// ---------------------------------------------------------------------------------------------
// Totals, columns, rates

t.test('without discounts the totals are Total HT, Total TVA and Total TTC, with no gross amount above them', async (t) => {
  const page = layout(undiscounted());
  t.same(page.totals.map((row) => row.label), ['Total HT', 'Total TVA', 'Total TTC']);
  t.same(page.totals.map((row) => row.value), ['16 175 FCFA', '2 825 FCFA', '19 000 FCFA']);
  t.same(layout(undiscounted(), 'en').totals.map((row) => row.label), ['Total excl. VAT', 'Total VAT', 'Total incl. VAT']);
  t.notMatch(visibleText(renderInvoice(undiscounted(), 'a4', 'fr')), /Montant brut|Sous-total|Remises/);
});

t.test('with discounts the totals read downwards: the gross amount, each discount, then Total HT, Total TVA and Total TTC', async (t) => {
  const input = receiptInput({ sale: { points_redeemed: 1250, discount_xaf: 2000, total_xaf: 17000, vat_xaf: 2502 } });
  input.sale.items[1]!.points_discount_xaf = 250;
  input.sale.vat_breakdown[1] = { rate: 19.25, base_xaf: 13000, vat_xaf: 2500, total_xaf: 15500 };
  const page = layout(input);
  t.same(
    page.totals.map((row) => [row.label, row.value]),
    [
      ['Montant brut TTC', '19 000 FCFA'],
      ['Remises', '-500 FCFA'],
      ['Promotions', '-1 250 FCFA'],
      ['Remise points (1 250)', '-250 FCFA'],
      ['Total HT', '14 500 FCFA'],
      ['Total TVA', '2 500 FCFA'],
      ['Total TTC', '17 000 FCFA'],
    ],
  );
  t.same(page.totals.map((row) => Boolean(row.grand)), [false, false, false, false, false, false, true], 'the grand total last');
  const rows = page.totals.map((row) => amount(row.value));
  t.equal(rows.slice(0, 4).reduce((sum, value) => sum + value, 0), rows[6], 'the gross amount less the discounts is the total');
});

t.test('Total HT plus Total TVA is Total TTC on the invoice, the credit note and the quote', async (t) => {
  const input = partlyRefunded();
  const pages = {
    invoice: layout(input),
    'undiscounted invoice': layout(undiscounted()),
    'credit note 3': layoutDocument(creditNoteDocument(input, input.sale.refunds[0]!, 'fr'), input.shop, 'fr'),
    'credit note 4': layoutDocument(creditNoteDocument(input, input.sale.refunds[1]!, 'fr'), input.shop, 'fr'),
    quote: layoutDocument(quoteDocument(quoteInput(), 'fr'), quoteInput().shop, 'fr'),
  };
  for (const [name, page] of Object.entries(pages)) {
    const totals = totalsOf(page);
    t.equal(totals['Total HT']! + totals['Total TVA']!, totals['Total TTC'], `${name}: ${totals['Total HT']} + ${totals['Total TVA']} = ${totals['Total TTC']}`);
  }
});

t.test('the discount column prints only when a line has a discount, and every row has as many cells as the header', async (t) => {
  const columns = (page: DocumentLayout) => page.lines.columns.map((column) => column.label);
  const cellsAgree = (page: DocumentLayout) => page.lines.rows.every((row) => (Array.isArray(row) ? row : row.cells).length === page.lines.columns.length);
  t.same(columns(layout(receiptInput())), ['#', 'Désignation', 'Qté', 'Prix TTC', 'Remise', 'TVA', 'Montant']);
  t.ok(cellsAgree(layout(receiptInput())));
  t.same(columns(layout(undiscounted())), ['#', 'Désignation', 'Qté', 'Prix TTC', 'TVA', 'Montant']);
  t.ok(cellsAgree(layout(undiscounted())));
  t.same(columns(layout(undiscounted(), 'en')), ['#', 'Item', 'Qty', 'Unit price incl. VAT', 'VAT', 'Amount']);

  const htmlAgrees = (html: string) => {
    const table = /<table class="lines">([\s\S]*?)<\/table>/.exec(html)![1]!;
    const heads = (table.match(/<th[ >]/g) ?? []).length;
    return table.split('<tr>').slice(2).every((row) => (row.match(/<td[ >]/g) ?? []).length === heads) && heads;
  };
  const input = partlyRefunded();
  t.equal(htmlAgrees(renderInvoice(undiscounted(), 'a4', 'fr')), 6, 'the invoice without discounts: six columns, every row of six');
  t.equal(htmlAgrees(renderInvoice(input, 'a4', 'fr')), 7, 'with discounts: seven');
  t.equal(htmlAgrees(renderCreditNote(input, input.sale.refunds[0]!, 'a4', 'fr')), 7, 'a credit note giving back part of a discounted line shows its discount');
  t.equal(htmlAgrees(renderCreditNote(input, input.sale.refunds[1]!, 'a4', 'fr')), 6, 'one without a discount does not');
  const plainQuote = sampleQuote();
  plainQuote.items = plainQuote.items.map((line) => ({ ...line, discount_xaf: 0, promotion_id: null, promotion_discount_xaf: 0 }));
  t.equal(htmlAgrees(renderQuoteDocument({ ...quoteInput(), quote: plainQuote }, 'a4', 'fr')), 6, 'a quote without discounts');
  t.equal(htmlAgrees(renderQuoteDocument(quoteInput(), 'a4', 'fr')), 7, 'a quote with');
});

t.test('an exempt line (VAT 0) reads "Exonéré" in its line and in the VAT breakdown, "Exempt" in English, never "0 %"', async (t) => {
  const input = partlyRefunded();
  const documents = (locale: Locale) => ({
    invoice: renderInvoice(input, 'a4', locale),
    'credit note': renderCreditNote(input, input.sale.refunds[1]!, 'a4', locale),
    quote: renderQuoteDocument(quoteInput(), 'a4', locale),
  });
  const zeroRate = /(?<![\d.,])0 ?%/;
  for (const [locale, word] of [['fr', 'Exonéré'], ['en', 'Exempt']] as const) {
    for (const [name, html] of Object.entries(documents(locale))) {
      t.match(html, `<td>Tomates</td>`, `${name}: the exempt line prints`);
      t.match(html, new RegExp(`<td>Tomates</td>(?:<td class="num">[^<]*</td>){2,3}<td class="num">${word}</td>`), `${locale} ${name}: its rate is ${word}`);
      t.match(html, new RegExp(`<table class="vat">.*?<tr><td>${word}</td><td class="num">`), `${locale} ${name}: and in the VAT breakdown`);
      t.notMatch(visibleText(html), zeroRate, `${locale} ${name}: no 0 %`);
    }
  }
});

// ---------------------------------------------------------------------------------------------
// Loyalty points

t.test('loyalty points are left off the invoice of a customer with a NIU, and grouped by three elsewhere', async (t) => {
  const points = { points_earned: 1250, points_redeemed: 12500 };
  const business = renderInvoice(receiptInput({ customer: BUSINESS, sale: points }), 'a4', 'fr');
  t.notMatch(visibleText(business), /Points gagnés|Points utilisés/, 'a business\'s invoice goes to its accountant without them');
  const person = visibleText(renderInvoice(receiptInput({ customer: CUSTOMER, sale: points }), 'a4', 'fr'));
  t.ok(person.includes('Points gagnés 1 250'), 'a person\'s invoice: grouped by three');
  t.ok(person.includes('Points utilisés 12 500'));
  t.ok(visibleText(renderInvoice(receiptInput({ customer: CUSTOMER, sale: points }), 'a4', 'en')).includes('Points earned 1,250'));
  const receipt = receiptLayout(receiptInput({ customer: BUSINESS, sale: points }), 32, 'fr').flatMap((block) => (block.kind === 'line' ? [block.text] : []));
  t.ok(receipt.includes('Points gagnés              1 250'), 'the till receipt: grouped');
  t.ok(receipt.includes('Points utilisés           12 500'));
  t.ok(renderText(receiptInput({ sale: points }), 'fr', 'chat').includes('Points gagnés : 1 250'), 'the chat receipt too');
});

// ---------------------------------------------------------------------------------------------
// Credit notes on the invoice, and the total in words

t.test('a partly refunded invoice lists each credit note by its number, with the item and the quantity it gave back', async (t) => {
  const page = layout(partlyRefunded());
  const table = page.sections.find((section) => section.kind === 'table' && section.name === 'refunds');
  t.ok(table && table.kind === 'table');
  if (!table || table.kind !== 'table') return;
  t.same(table.columns.map((column) => column.label), ['Avoir', 'Désignation', 'Qté', 'Montant']);
  t.same(table.rows, [
    ['Avoir n° 3 - 22/11/2026 10:00 - Espèces', 'Café moulu 250 g', '1', '-2 250 FCFA'],
    ['Avoir n° 4 - 24/11/2026 00:30 - Espèces', 'Tomates', '0,5', '-500 FCFA'],
  ]);
  t.ok(visibleText(renderInvoice(partlyRefunded(), 'a4', 'en')).includes('Credit note no. 3 - 22/11/2026 10:00 - Cash Café moulu 250 g 1 -2,250 FCFA'));
});

t.test('a partly refunded invoice\'s totals take off each credit note and end on the net', async (t) => {
  const page = layout(partlyRefunded());
  t.same(
    page.totals.slice(-4).map((row) => [row.label, row.value, Boolean(row.grand)]),
    [
      ['Total TTC', '17 250 FCFA', false],
      ['Avoir n° 3 du 22/11/2026', '-2 250 FCFA', false],
      ['Avoir n° 4 du 24/11/2026', '-500 FCFA', false],
      ['Net après avoirs', '14 500 FCFA', true],
    ],
  );
  const [total, ...rest] = page.totals.slice(-4).map((row) => amount(row.value));
  t.equal(total! + rest[0]! + rest[1]!, rest[2], 'net = total - the credit notes');
  t.same(layout(partlyRefunded(), 'en').totals.slice(-1)[0], { label: 'Net after credit notes', value: '14,500 FCFA', grand: true });
  t.equal((renderInvoice(partlyRefunded(), 'a4', 'fr').match(/class="grand"/g) ?? []).length, 1, 'one grand total: the net');
});

t.test('a partly refunded invoice closes in words on the net, "déduction faite des avoirs"', async (t) => {
  t.equal(layout(partlyRefunded()).words, 'Arrêtée la présente facture, déduction faite des avoirs, à la somme de quatorze mille cinq cents francs CFA.');
  t.equal(layout(partlyRefunded(), 'en').words, 'Amount of this invoice after credit notes in words: fourteen thousand five hundred CFA francs.');
  t.equal(layout(receiptInput()).words, 'Arrêtée la présente facture à la somme de dix-sept mille deux cent cinquante francs CFA.', 'without credit notes, the total');
});

t.test('a voided invoice has no sentence in words at all', async (t) => {
  const voided = receiptInput({ sale: { status: 'voided', voided_at: '2026-11-21T14:00:00Z', void_reason: 'Erreur' } });
  for (const locale of ['fr', 'en'] as const) {
    const html = renderInvoice(voided, 'a4', locale);
    t.notOk(html.includes('class="block words"'), `${locale}: no words block`);
    t.notMatch(visibleText(html), /Arrêtée|in words|francs CFA|CFA francs/, `${locale}: no amount in words`);
  }
  t.equal(layout(voided).words, null);
});

t.test('the English documents close with "Amount of this ... in words"', async (t) => {
  const input = partlyRefunded();
  t.match(renderInvoice(receiptInput(), 'a4', 'en'), '<p class="block words">Amount of this invoice in words: seventeen thousand two hundred fifty CFA francs.</p>');
  t.match(renderCreditNote(input, input.sale.refunds[0]!, 'a4', 'en'), '<p class="block words">Amount of this credit note in words: two thousand two hundred fifty CFA francs.</p>');
  t.match(renderQuoteDocument(quoteInput(), 'a4', 'en'), '<p class="block words">Amount of this proforma invoice in words: seventeen thousand CFA francs.</p>');
  for (const html of Object.values(everyDocument('en'))) t.notMatch(html, /is closed at the sum/);
});

// ---------------------------------------------------------------------------------------------
// No ids; the quote's own page

t.test('no UUID anywhere on the invoice, the credit note and the quote', async (t) => {
  const input = partlyRefunded();
  input.sale.payments.push(payment('carrier1_momo', 100, { reference: 'MP-1' }));
  const voided = receiptInput({ customer: BUSINESS, sale: { status: 'voided', voided_at: '2026-11-21T14:00:00Z', void_reason: 'Doublon' } });
  const converted = quoteInput({ quote: { status: 'converted', sale_id: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d', converted_at: '2026-11-25T09:30:00Z', note: 'Livraison sous 8 jours' } });
  for (const locale of ['fr', 'en'] as const) {
    for (const format of ['a4', 'a3'] as const) {
      const pages = {
        invoice: renderInvoice(input, format, locale),
        'voided invoice': renderInvoice(voided, format, locale),
        'credit note': renderCreditNote(input, input.sale.refunds[0]!, format, locale),
        quote: renderQuoteDocument(quoteInput(), format, locale),
        'converted quote': renderQuoteDocument(converted, format, locale),
      };
      for (const [name, html] of Object.entries(pages)) t.notMatch(html, UUID, `${locale} ${format} ${name}`);
    }
  }
  t.match(input.sale.id, UUID, 'the sale has one to leak');
});

t.test('the quote prints no shop receipt footer, and closes on a "Bon pour accord" box beside the seller\'s', async (t) => {
  const shop = { receipt_footer: 'Les marchandises vendues ne sont ni reprises ni échangées' };
  const quote = renderQuoteDocument(quoteInput({ shop }), 'a4', 'fr');
  t.notOk(quote.includes('ni reprises ni échangées'), 'the footer is about goods sold');
  t.match(quote, '<section class="block closing"><div class="signature-box"><p class="box-title">Bon pour accord</p><p>Date :</p><p>Nom, signature et cachet du client :</p></div><div class="signature-box"><p class="box-title">Signature et cachet du vendeur</p></div></section>');
  t.ok(renderInvoice(receiptInput({ shop }), 'a4', 'fr').includes('ni reprises ni échangées'), 'the invoice prints it');
});

t.test('the English quote is a "Proforma invoice", numbered "Proforma no. 12"', async (t) => {
  const html = renderQuoteDocument(quoteInput(), 'a4', 'en');
  t.match(html, '<div class="title"><h1>Proforma invoice</h1><p>Proforma no. 12</p>');
  t.match(html, '<title>Proforma no. 12 - Boutique Awa</title>');
  t.notMatch(visibleText(html), /\bQuote\b/);
});

t.test('a credit sale\'s customer signs in a box titled "Signature du client" with a "Date :" line', async (t) => {
  const html = renderInvoice(creditSale('2026-11-21T10:00:00.000Z', 30), 'a4', 'fr');
  t.match(html, '<section class="block closing"><div class="signature-box"><p class="box-title">Signature du client</p><p>Date :</p></div></section>');
  t.match(renderInvoice(creditSale('2026-11-21T10:00:00.000Z', 30), 'a4', 'en'), '<p class="box-title">Customer signature</p><p>Date:</p>');
  t.notOk(renderInvoice(receiptInput(), 'a4', 'fr').includes('class="signature-box"'), 'nothing to sign on a sale paid at the till');
});

// ---------------------------------------------------------------------------------------------
// The till receipts

const receiptLines = (input: ReceiptInput, locale: Locale = 'fr') => receiptLayout(input, 32, locale).flatMap((block) => (block.kind === 'line' ? [block.text.trim()] : []));

t.test('a phone number, "12 / m" and "12 500" are never split across two lines of a 32-column receipt', async (t) => {
  // Each lands across the end of a 32-column line when words are cut at every space.
  const input = receiptInput({ shop: { receipt_header: 'Commandes par téléphone : +237 677 12 34 56' }, customer: { ...CUSTOMER, name: 'Ets Mbarga et Fils +237 699 11 22 33' } });
  input.sale.items.push(
    item({ name: 'Tissu wax hollandais motif 12 / m', quantity: 3, unit_price_xaf: 4000 }),
    item({ name: 'Bon d\'achat cadeau de valeur 12 500 FCFA', quantity: 1, unit_price_xaf: 12500 }),
  );
  for (const [name, lines] of [
    ['ESC/POS lines', receiptLines(input)],
    ['text receipt', renderText(input, 'fr', 'fixed').split('\n').map((line) => line.trim())],
  ] as const) {
    t.ok(lines.every((line) => [...line].length <= 32), `${name}: no line over 32 columns`);
    for (const whole of ['+237 677 12 34 56', '+237 699 11 22 33', '12 / m', '12 500 FCFA']) {
      t.ok(lines.some((line) => line.includes(whole)), `${name}: "${whole}" on one line`);
    }
    t.ok(lines.includes('Commandes par téléphone :'), `${name}: the words before it wrap instead`);
  }
  t.ok(receiptLines(input).includes('12 / m'), 'the unit moves to the next line with its number');
});

t.test('a word longer than the receipt\'s line is still cut across lines', async (t) => {
  const input = receiptInput();
  input.sale.items = [item({ name: `Réf ${'X'.repeat(70)}`, quantity: 1, unit_price_xaf: 1000 })];
  const lines = receiptLines(input);
  t.ok(lines.join('\n').includes(['Réf', 'X'.repeat(32), 'X'.repeat(32), 'X'.repeat(6)].join('\n')), 'cut at 32 columns, nothing lost');
  t.ok(lines.every((line) => [...line].length <= 32));
});

t.test('a run of numbers longer than the line breaks between two numbers, never inside one', async (t) => {
  const input = receiptInput({ shop: { phone: '+237 677 12 34 56 / +237 699 00 00 00' } });
  const lines = receiptLines(input);
  t.ok(lines.every((line) => [...line].length <= 32));
  t.ok(lines.some((line) => line.includes('+237 677 12 34 56')), 'the first phone whole');
  t.ok(lines.some((line) => line.includes('+237 699 00 00 00')), 'the second phone whole');
  t.notOk(lines.includes('Tél.'), 'the label stays with its number');
});

t.test('the chat receipt\'s line to sign on is dotted: an underscore would make WhatsApp italicise', async (t) => {
  const input = receiptInput({ customer: CUSTOMER, sale: { credit_xaf: 2000 } });
  input.sale.payments.push(payment('credit', 2000));
  const chat = renderText(input, 'fr', 'chat').split('\n');
  const at = chat.indexOf('Signature du client :');
  t.ok(at >= 0, 'the signature label');
  t.match(chat[at + 1], /^\.{8,}$/, 'a dotted line under it');
  t.notOk(chat.join('\n').includes('_'));
  t.ok(renderText(input, 'fr', 'fixed').includes('_'.repeat(32)), 'the printed receipt keeps its line');
});

t.test('the receipt prints an exempt rate as "TVA Exonéré", "VAT Exempt" in English', async (t) => {
  const fr = receiptLines(receiptInput());
  t.ok(fr.includes('TVA Exonéré               0 FCFA'));
  t.notOk(fr.some((line) => /(?<![\d.,])0 ?%/.test(line)), 'never 0 %');
  t.ok(receiptLines(receiptInput(), 'en').includes('VAT Exempt                0 FCFA'));
  t.ok(renderText(receiptInput(), 'fr', 'chat').includes('TVA Exonéré : 0 FCFA'), 'the chat receipt too');
});

// ---------------------------------------------------------------------------------------------
// The logo

/** The eight bytes of a PNG's signature and a few more: the page embeds bytes, it does not decode them. */
const LOGO: ShopLogoImage = { media_type: 'image/png', width: 240, height: 80, content: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0xfe, 0xff]) };

t.test('the shop\'s logo prints once, inline as a data: URL, on every document; none without one', async (t) => {
  const input = partlyRefunded();
  const tag = `<img class="logo" alt="" src="data:image/png;base64,${LOGO.content.toString('base64')}">`;
  const pages = {
    invoice: [renderInvoice(input, 'a4', 'fr', LOGO), renderInvoice(input, 'a4', 'fr')],
    'credit note': [renderCreditNote(input, input.sale.refunds[0]!, 'a4', 'fr', LOGO), renderCreditNote(input, input.sale.refunds[0]!, 'a4', 'fr')],
    quote: [renderQuoteDocument(quoteInput(), 'a3', 'en', LOGO), renderQuoteDocument(quoteInput(), 'a3', 'en')],
  };
  for (const [name, [withLogo, without]] of Object.entries(pages)) {
    t.equal((withLogo!.match(/<img/g) ?? []).length, 1, `${name}: one image`);
    t.ok(withLogo!.includes(tag), `${name}: the logo's bytes, inline`);
    t.match(withLogo!, /<div class="seller"><img class="logo"/, `${name}: above the shop's name`);
    t.notOk(without!.includes('<img'), `${name}: no image without a logo`);
  }
  const jpeg = renderInvoice(input, 'a4', 'fr', { ...LOGO, media_type: 'image/jpeg' });
  t.match(jpeg, 'src="data:image/jpeg;base64,');
});

t.test('the documents\' Content-Security-Policy lets the inline logo show and nothing be fetched', async (t) => {
  const directives = Object.fromEntries(INVOICE_CSP.split(';').map((part) => part.trim().split(/\s+/)).map(([name, ...values]) => [name, values]));
  t.same(directives['img-src'], ['data:'], 'images from data: URLs only');
  t.same(directives['default-src'], ["'none'"], 'nothing else from anywhere');
  const html = renderInvoice(partlyRefunded(), 'a4', 'fr', LOGO);
  const sources = [...html.matchAll(/\ssrc="([^"]*)"/g)].map((match) => match[1]!);
  t.ok(sources.length === 1 && sources.every((source) => source.startsWith('data:image/png;base64,')), 'the one source the page has is a data: URL');
  t.notMatch(html, /\shref=|url\(|@import/i, 'no other reference');
});
