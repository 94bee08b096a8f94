import t from 'tap';
import { renderQuoteDocument, type QuoteDocumentInput } from '../../api/quotes/document.ts';
import type { QuoteRecord } from '../../api/quotes/schemas.ts';
import { CUSTOMER, receiptInput, visibleText } from '../receipts/receipt-fixtures.ts';

/** The document is a pure function of the quote, the shop and the customer: built by hand, no database needed. */

const QUOTE_ID = '7d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6';
const SALE_ID = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
const AT = '2026-11-21T13:05:00.000Z';

type QuoteItem = QuoteRecord['items'][number];

let counter = 0;
const uuid = () => `00000000-0000-4000-9000-${String(++counter).padStart(12, '0')}`;

function quoteItem(fields: Partial<QuoteItem> & Pick<QuoteItem, 'name' | 'quantity' | 'unit_price_xaf'>): QuoteItem {
  return { id: uuid(), line_no: 1, product_id: uuid(), variant_id: null, discount_xaf: 0, promotion_id: null, promotion_discount_xaf: 0, vat_rate: 19.25, vat_xaf: 0, total_xaf: 0, ...fields };
}

/**
 * A quote of three lines, worked out by the sale's rules:
 * - Café moulu 250 g: 2 x 2 500 = 5 000, line discount 500, total 4 500, VAT 19.25 % 726
 * - Riz parfumé 5 kg: 1 x 12 500, line discount 250 and promotion 1 250, total 11 000, VAT 19.25 % 1 776
 * - Tomates: 1.5 x 1 000 = 1 500, VAT 0 %
 * Subtotal 19 000, discounts 2 000, total 17 000, VAT 2 502.
 */
function sampleQuote(fields: Partial<QuoteRecord> = {}): QuoteRecord {
  return {
    id: QUOTE_ID,
    quote_no: 12,
    status: 'sent',
    customer_id: CUSTOMER.id,
    customer_name: CUSTOMER.name,
    note: null,
    valid_until: '2026-12-31',
    subtotal_xaf: 19000,
    discount_xaf: 2000,
    vat_xaf: 2502,
    total_xaf: 17000,
    items: [
      quoteItem({ line_no: 1, name: 'Café moulu 250 g', quantity: 2, unit_price_xaf: 2500, discount_xaf: 500, vat_xaf: 726, total_xaf: 4500 }),
      quoteItem({ line_no: 2, name: 'Riz parfumé 5 kg', quantity: 1, unit_price_xaf: 12500, discount_xaf: 250, promotion_id: uuid(), promotion_discount_xaf: 1250, vat_xaf: 1776, total_xaf: 11000 }),
      quoteItem({ line_no: 3, name: 'Tomates', quantity: 1.5, unit_price_xaf: 1000, vat_rate: 0, vat_xaf: 0, total_xaf: 1500 }),
    ],
    vat_breakdown: [
      { rate: 0, base_xaf: 1500, vat_xaf: 0, total_xaf: 1500 },
      { rate: 19.25, base_xaf: 12998, vat_xaf: 2502, total_xaf: 15500 },
    ],
    sale_id: null,
    created_by: uuid(),
    created_by_name: 'Awa Ndiaye',
    converted_at: null,
    created_at: AT,
    updated_at: AT,
    ...fields,
  };
}

function quoteInput(overrides: { quote?: Partial<QuoteRecord>; shop?: Partial<QuoteDocumentInput['shop']>; customer?: QuoteDocumentInput['customer'] } = {}): QuoteDocumentInput {
  return {
    quote: sampleQuote(overrides.quote),
    shop: receiptInput({ shop: overrides.shop }).shop,
    customer: overrides.customer === undefined ? CUSTOMER : overrides.customer,
  };
}

const render = (input = quoteInput(), format: 'a4' | 'a3' = 'a4', locale: 'fr' | 'en' = 'fr') => renderQuoteDocument(input, format, locale);

t.test('the quote is titled "Devis / Proforma" in French and "Quote" in English, with its number', async (t) => {
  const fr = render();
  t.ok(fr.startsWith('<!DOCTYPE html>\n<html lang="fr">'));
  t.ok(fr.trimEnd().endsWith('</html>'));
  t.match(fr, '<div class="title"><h1>Devis / Proforma</h1><p>Devis n° 12</p>');
  t.match(fr, '<title>Devis n° 12 - Boutique Awa</title>');
  const en = render(undefined, 'a4', 'en');
  t.match(en, '<html lang="en">');
  t.match(en, '<div class="title"><h1>Quote</h1><p>Quote no. 12</p>');
  t.match(en, '<title>Quote no. 12 - Boutique Awa</title>');
  t.notOk(visibleText(fr).includes('Facture'), 'not titled as an invoice');
});

t.test('every label follows the locale', async (t) => {
  const en = visibleText(render(undefined, 'a4', 'en'));
  for (const expected of ['Quote no. 12', 'Date: 21/11/2026 14:05', 'Valid until 31/12/2026', 'Customer', 'Tel.: +237 677 11 22 33', 'Tax ID: M012345678901X', '# Item Qty Unit price incl. VAT Discount VAT Amount', 'Subtotal', 'Discounts', 'Promotions', 'Total excl. VAT', 'Total VAT', 'Total incl. VAT', 'VAT breakdown', 'This quote is not an invoice.', 'Quote ref.: ' + QUOTE_ID]) {
    t.ok(en.includes(expected), expected);
  }
  for (const french of ['Devis', 'Désignation', 'Sous-total', 'Remises', 'Valable', 'Client', 'Réf.']) {
    t.notOk(en.includes(french), `no "${french}" in English`);
  }
  const fr = visibleText(render());
  for (const expected of ['Devis n° 12', 'Date : 21/11/2026 14:05', "Valable jusqu'au 31/12/2026", 'Client', '# Désignation Qté Prix TTC Remise TVA Montant', 'Détail de la TVA', "Ce devis n'est pas une facture.", 'Réf. devis : ' + QUOTE_ID]) {
    t.ok(fr.includes(expected), expected);
  }
});

t.test('the date is when the quote was made, in the shop\'s time zone', async (t) => {
  t.ok(visibleText(render()).includes('Date : 21/11/2026 14:05'), 'Douala is UTC+1');
  t.ok(visibleText(render(quoteInput({ shop: { timezone: 'Asia/Tokyo' } }))).includes('Date : 21/11/2026 22:05'));
});

t.test('the validity date prints as the shop\'s calendar day, day/month/year, in both languages', async (t) => {
  t.ok(visibleText(render()).includes("Valable jusqu'au 31/12/2026"));
  t.ok(visibleText(render(undefined, 'a4', 'en')).includes('Valid until 31/12/2026'));
  const farWest = quoteInput({ quote: { valid_until: '2027-01-01' }, shop: { timezone: 'Pacific/Pago_Pago' } });
  t.ok(visibleText(render(farWest)).includes("Valable jusqu'au 01/01/2027"), 'no time zone moves the day');
});

t.test('the quote shows the shop\'s details and the customer, and no customer box without one', async (t) => {
  const text = visibleText(render());
  for (const expected of ['Boutique Awa', 'Rue de la Joie', 'Douala', 'Tél. : +237 699 00 00 00', 'E-mail : contact@boutique-awa.cm', 'N° contribuable : M012345678901X', 'Ouvert 7j/7', 'Client Jean Mbarga', 'Tél. : +237 677 11 22 33', 'E-mail : jean@example.cm']) {
    t.ok(text.includes(expected), expected);
  }
  const walkIn = render(quoteInput({ quote: { customer_id: null, customer_name: null }, customer: null }));
  t.notOk(walkIn.includes('class="party"'), 'no customer box');
  t.notOk(visibleText(walkIn).includes('Client'));
});

t.test('each line shows its number, quantity, unit price, discount with its promotion, VAT rate and amount', async (t) => {
  const html = render();
  t.match(html, '<td class="num">1</td><td>Café moulu 250 g</td><td class="num">2</td><td class="num">2 500 FCFA</td><td class="num">-500 FCFA</td><td class="num">19,25 %</td><td class="num">4 500 FCFA</td>');
  t.match(html, '<td class="num">2</td><td>Riz parfumé 5 kg</td><td class="num">1</td><td class="num">12 500 FCFA</td><td class="num">-1 500 FCFA</td><td class="num">19,25 %</td><td class="num">11 000 FCFA</td>');
  t.match(html, '<td class="num">3</td><td>Tomates</td><td class="num">1,5</td><td class="num">1 000 FCFA</td><td class="num"></td><td class="num">0 %</td><td class="num">1 500 FCFA</td>');
  t.match(render(undefined, 'a4', 'en'), '<td>Tomates</td><td class="num">1.5</td><td class="num">1,000 FCFA</td><td class="num"></td><td class="num">0%</td>');
});

t.test('the totals show the subtotal, the line discounts and the promotions apart, and the totals excl. VAT, VAT and incl. VAT', async (t) => {
  const text = visibleText(render());
  t.ok(text.includes('Sous-total 19 000 FCFA Remises -750 FCFA Promotions -1 250 FCFA Total HT 14 498 FCFA Total TVA 2 502 FCFA Total TTC 17 000 FCFA'));
  t.match(render(), '<tr class="grand"><td>Total TTC</td><td class="num">17 000 FCFA</td></tr>');
});

t.test('a quote without discounts prints no discount or promotion row', async (t) => {
  const quote = sampleQuote();
  const items = quote.items.map((item) => ({ ...item, discount_xaf: 0, promotion_id: null, promotion_discount_xaf: 0 }));
  const text = visibleText(render({ ...quoteInput(), quote: { ...quote, items, discount_xaf: 0 } }));
  t.notOk(text.includes('Remises'));
  t.notOk(text.includes('Promotions'));
  t.ok(text.includes('Sous-total 19 000 FCFA Total HT'));
});

t.test('the VAT breakdown has one row per rate', async (t) => {
  const html = render();
  t.ok(visibleText(html).includes('Détail de la TVA Taux TVA Base HT TVA Total TTC 0 % 1 500 FCFA 0 FCFA 1 500 FCFA 19,25 % 12 998 FCFA 2 502 FCFA 15 500 FCFA'));
  const table = /<table class="vat">([\s\S]*?)<\/table>/.exec(html)?.[1] ?? '';
  t.equal((table.match(/<tr>/g) ?? []).length, 3, 'a header and two rates');
});

t.test('the note prints when present, and nothing of it when absent', async (t) => {
  const text = visibleText(render(quoteInput({ quote: { note: 'Livraison sous 8 jours\nPrix ferme' } })));
  t.ok(text.includes('Note Livraison sous 8 jours Prix ferme'));
  t.notOk(visibleText(render()).includes('Note'));
});

t.test('the quote says it is not an invoice and reserves no stock', async (t) => {
  t.match(render(), '<p class="notice">Ce devis n&#39;est pas une facture. Il ne réserve aucun stock.</p>');
  t.match(render(undefined, 'a4', 'en'), '<p class="notice">This quote is not an invoice. It reserves no stock.</p>');
});

t.test('the quote closes with its total in words, in the quote\'s own wording', async (t) => {
  t.match(render(), '<p class="block words">Arrêté le présent devis à la somme de dix-sept mille francs CFA.</p>');
  t.match(render(undefined, 'a4', 'en'), '<p class="block words">This quote is closed at the sum of seventeen thousand CFA francs.</p>');
  t.notOk(render().includes('présente facture'), 'never the invoice\'s wording');
});

t.test('the quote\'s id is its reference, under the shop\'s footer', async (t) => {
  const text = visibleText(render());
  t.ok(text.includes(`Merci de votre visite ! Réf. devis : ${QUOTE_ID}`));
  t.ok(visibleText(render(undefined, 'a4', 'en')).includes(`Quote ref.: ${QUOTE_ID}`));
});

t.test('a quote takes no payment: no payments section', async (t) => {
  for (const locale of ['fr', 'en'] as const) {
    const html = render(undefined, 'a4', locale);
    t.notOk(html.includes('class="payments"'), `${locale}: no payments table`);
    t.notOk(/Paiements|Payments|Monnaie rendue|Change/.test(visibleText(html)), `${locale}: no payment words`);
  }
});

t.test('every text is HTML-escaped: a hostile product name and note appear escaped', async (t) => {
  const input = quoteInput({
    quote: { note: "</p><img src=x onerror=alert('x')>" },
    customer: { ...CUSTOMER, name: 'Tom & "Jerry" <b>' },
    shop: { name: 'Chez <Awa>', receipt_footer: '<i>Merci</i>' },
  });
  input.quote.items.push(quoteItem({ name: '<script>alert("x")</script>', quantity: 1, unit_price_xaf: 100 }));
  const html = render(input);
  t.match(html, '<td>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;</td>');
  t.match(html, '&lt;/p&gt;&lt;img src=x onerror=alert(&#39;x&#39;)&gt;');
  t.match(html, 'Tom &amp; &quot;Jerry&quot; &lt;b&gt;');
  t.match(html, '<title>Devis n° 12 - Chez &lt;Awa&gt;</title>');
  t.notOk(html.includes('<script'), 'no script tag');
  t.notOk(/<img|<b>|<i>/.test(html), 'no tag from the data');
  t.equal((html.match(/<\/p>/g) ?? []).length, (html.match(/<p[ >]/g) ?? []).length, 'the paragraphs are the page\'s own');
});

t.test('the print CSS sizes the page A4 or A3', async (t) => {
  t.match(render(undefined, 'a4'), /@page \{\s+size: A4 portrait;/);
  t.notOk(render(undefined, 'a4').includes('A3'));
  t.match(render(undefined, 'a3'), /@page \{\s+size: A3 portrait;/);
  t.notOk(render(undefined, 'a3').includes('A4'));
  t.match(render(), /@media print/);
});

t.test('an expired, declined or converted quote carries a banner saying so', async (t) => {
  const banner = (quote: Partial<QuoteRecord>, locale: 'fr' | 'en') => /<div class="void">[\s\S]*?<\/div>/.exec(render(quoteInput({ quote }), 'a4', locale))?.[0];
  t.equal(banner({ status: 'expired' }, 'fr'), '<div class="void">Devis expiré</div>');
  t.equal(banner({ status: 'expired' }, 'en'), '<div class="void">Expired quote</div>');
  t.equal(banner({ status: 'declined' }, 'fr'), '<div class="void">Devis refusé</div>');
  t.equal(banner({ status: 'declined' }, 'en'), '<div class="void">Declined quote</div>');
  const converted = { status: 'converted', sale_id: SALE_ID, converted_at: '2026-11-25T09:30:00Z' } as const;
  t.ok(visibleText(render(quoteInput({ quote: converted }))).includes(`Devis converti en vente — 25/11/2026 10:30 Réf. vente : ${SALE_ID}`));
  t.ok(visibleText(render(quoteInput({ quote: converted }), 'a4', 'en')).includes(`Quote converted into a sale — 25/11/2026 10:30 Sale ref.: ${SALE_ID}`));
});

t.test('a draft or sent quote carries no banner', async (t) => {
  for (const status of ['draft', 'sent'] as const) {
    const html = render(quoteInput({ quote: { status } }));
    t.notOk(html.includes('class="void"'), status);
    t.notOk(/expiré|refusé|converti/i.test(visibleText(html)), `${status}: no status words`);
  }
});

t.test('the quote makes no external request of any kind', async (t) => {
  for (const format of ['a4', 'a3'] as const) {
    for (const status of ['sent', 'converted'] as const) {
      const html = render(quoteInput({ quote: { status, note: 'Voir conditions', sale_id: status === 'converted' ? SALE_ID : null, converted_at: status === 'converted' ? AT : null } }), format);
      t.notOk(/http/i.test(html), 'no http');
      t.notOk(/<link/i.test(html), 'no <link');
      t.notOk(/<script/i.test(html), 'no <script');
      t.notOk(/<img|<iframe|<object|<embed|<video|<audio|<source/i.test(html), 'no embedded resource');
      t.notOk(/\ssrc\s*=/i.test(html), 'no src=');
      t.notOk(/\shref\s*=/i.test(html), 'no href=');
      t.notOk(/@import|url\(|@font-face/i.test(html), 'no CSS import, url() or web font');
      t.match(html, /<style>[\s\S]+<\/style>/, 'the CSS is inline');
    }
  }
});
