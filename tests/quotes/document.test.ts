import t from 'tap';
import { renderQuoteDocument } from '../../api/quotes/document.ts';
import type { QuoteRecord } from '../../api/quotes/schemas.ts';
import { CUSTOMER, visibleText } from '../receipts/receipt-fixtures.ts';
import { QUOTE_ID, quoteInput, quoteItem, sampleQuote } from './quote-fixtures.ts';
const SALE_ID = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
const AT = '2026-11-21T13:05:00.000Z';

const render = (input = quoteInput(), format: 'a4' | 'a3' = 'a4', locale: 'fr' | 'en' = 'fr') => renderQuoteDocument(input, format, locale);

t.test('the quote is titled "Devis / Proforma" in French and "Proforma invoice" in English, with its number', async (t) => {
  const fr = render();
  t.ok(fr.startsWith('<!DOCTYPE html>\n<html lang="fr">'));
  t.ok(fr.trimEnd().endsWith('</html>'));
  t.match(fr, '<div class="title"><h1>Devis / Proforma</h1><p>Devis n° 12</p>');
  t.match(fr, '<title>Devis n° 12 - Boutique Awa</title>');
  const en = render(undefined, 'a4', 'en');
  t.match(en, '<html lang="en">');
  t.match(en, '<div class="title"><h1>Proforma invoice</h1><p>Proforma no. 12</p>');
  t.match(en, '<title>Proforma no. 12 - Boutique Awa</title>');
  t.notOk(visibleText(fr).includes('Facture'), 'not titled as an invoice');
});

t.test('every label follows the locale', async (t) => {
  const en = visibleText(render(undefined, 'a4', 'en'));
  for (const expected of ['Proforma no. 12', 'Date: 21/11/2026 14:05', 'Valid until 31/12/2026', 'Customer', 'Tel.: +237 677 11 22 33', 'NIU: M012345678901X', '# Item Qty Unit price incl. VAT Discount VAT Amount', 'Gross amount incl. VAT', 'Discounts', 'Promotions', 'Total excl. VAT', 'Total VAT', 'Total incl. VAT', 'VAT breakdown', 'Exempt', 'This proforma invoice is not an invoice', 'Accepted Date: Customer\'s name, signature and stamp:', 'Seller\'s signature and stamp']) {
    t.ok(en.includes(expected), expected);
  }
  for (const french of ['Devis', 'Désignation', 'Montant brut', 'Remises', 'Exonéré', 'Valable', 'Client', 'Bon pour accord', 'Réf.']) {
    t.notOk(en.includes(french), `no "${french}" in English`);
  }
  const fr = visibleText(render());
  for (const expected of ['Devis n° 12', 'Date : 21/11/2026 14:05', "Valable jusqu'au 31/12/2026", 'Client', '# Désignation Qté Prix TTC Remise TVA Montant', 'Détail de la TVA', "Ce devis n'est pas une facture.", 'Bon pour accord Date : Nom, signature et cachet du client :']) {
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
  for (const expected of ['Boutique Awa', 'Rue de la Joie', 'Douala', 'Tél. : +237 699 00 00 00', 'E-mail : contact@boutique-awa.cm', 'NIU : M012345678901X', 'Ouvert 7j/7', 'Client : Jean Mbarga', 'Tél. : +237 677 11 22 33', 'E-mail : jean@example.cm']) {
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
  t.match(html, '<td class="num">3</td><td>Tomates</td><td class="num">1,5</td><td class="num">1 000 FCFA</td><td class="num"></td><td class="num">Exonéré</td><td class="num">1 500 FCFA</td>');
  t.match(render(undefined, 'a4', 'en'), '<td>Tomates</td><td class="num">1.5</td><td class="num">1,000 FCFA</td><td class="num"></td><td class="num">Exempt</td>');
});

t.test('the totals show the gross amount, the line discounts and the promotions apart, and the totals excl. VAT, VAT and incl. VAT', async (t) => {
  const text = visibleText(render());
  t.ok(text.includes('Montant brut TTC 19 000 FCFA Remises -750 FCFA Promotions -1 250 FCFA Total HT 14 498 FCFA Total TVA 2 502 FCFA Total TTC 17 000 FCFA'));
  t.match(render(), '<tr class="grand"><td>Total TTC</td><td class="num">17 000 FCFA</td></tr>');
});

t.test('a quote without discounts prints no gross amount, discount or promotion row, and no discount column', async (t) => {
  const quote = sampleQuote();
  const items = quote.items.map((item) => ({ ...item, discount_xaf: 0, promotion_id: null, promotion_discount_xaf: 0 }));
  const html = render({ ...quoteInput(), quote: { ...quote, items, discount_xaf: 0, total_xaf: 19000 } });
  const text = visibleText(html);
  t.notOk(text.includes('Remise'));
  t.notOk(text.includes('Promotions'));
  t.notOk(text.includes('Montant brut'));
  t.ok(text.includes('Détail de la TVA'), 'the page is complete');
  t.match(html, '<th class="num">Prix TTC</th><th class="num">TVA</th>', 'no discount column');
});

t.test('the VAT breakdown has one row per rate', async (t) => {
  const html = render();
  t.ok(visibleText(html).includes('Détail de la TVA Taux TVA Base HT TVA Total TTC Exonéré 1 500 FCFA 0 FCFA 1 500 FCFA 19,25 % 12 998 FCFA 2 502 FCFA 15 500 FCFA'));
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
  t.match(render(undefined, 'a4', 'en'), '<p class="notice">This proforma invoice is not an invoice and reserves no stock.</p>');
});

t.test('the quote closes with its total in words, in the quote\'s own wording', async (t) => {
  t.match(render(), '<p class="block words">Arrêté le présent devis à la somme de dix-sept mille francs CFA.</p>');
  t.match(render(undefined, 'a4', 'en'), '<p class="block words">Amount of this proforma invoice in words: seventeen thousand CFA francs.</p>');
  t.notOk(render().includes('présente facture'), 'never the invoice\'s wording');
});

t.test('the quote closes on a "Bon pour accord" box beside the seller\'s, without the shop\'s receipt footer', async (t) => {
  const html = render();
  t.match(html, '<section class="block closing"><div class="signature-box"><p class="box-title">Bon pour accord</p><p>Date :</p><p>Nom, signature et cachet du client :</p></div><div class="signature-box"><p class="box-title">Signature et cachet du vendeur</p></div></section>');
  t.notOk(visibleText(html).includes('Merci de votre visite'), 'the receipt footer is about goods sold');
  t.notOk(html.includes('class="block footer"'));
  t.notOk(html.includes(QUOTE_ID), 'no id printed');
  t.match(render(undefined, 'a4', 'en'), '<p class="box-title">Accepted</p><p>Date:</p><p>Customer&#39;s name, signature and stamp:</p>');
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
  t.equal(banner({ status: 'expired' }, 'en'), '<div class="void">Proforma expired</div>');
  t.equal(banner({ status: 'declined' }, 'fr'), '<div class="void">Devis refusé</div>');
  t.equal(banner({ status: 'declined' }, 'en'), '<div class="void">Proforma declined</div>');
  const converted = { status: 'converted', sale_id: SALE_ID, converted_at: '2026-11-25T09:30:00Z' } as const;
  t.equal(banner(converted, 'fr'), '<div class="void">Devis converti en vente - 25/11/2026 10:30</div>');
  t.equal(banner(converted, 'en'), '<div class="void">Proforma converted into a sale - 25/11/2026 10:30</div>');
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
