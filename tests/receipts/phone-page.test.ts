import t from 'tap';
import { renderQuotePage, renderReceiptPage, renderSalePage } from '../../api/receipts/phone-page.ts';
import type { ShopLogoImage } from '../../api/shop/queries.ts';
import { quoteInput } from '../quotes/quote-fixtures.ts';
import { CUSTOMER, item, payment, receiptInput, visibleText } from './receipt-fixtures.ts';

/**
 * The phone pages of shared links (api/receipts/phone-page.ts) are pure functions of the document,
 * the shop's logo and the links: what they show and in which order. How they fit a 390 px screen is
 * measured in Chromium (phone-browser.test.ts).
 */

const LINKS = { pdf: 'https://pos.example.cm/s/Kq7Rw2ZtB9xM/pdf', receipt: 'https://pos.example.cm/s/Kq7Rw2ZtB9xM/receipt' };
const salePage = (input = receiptInput(), locale: 'fr' | 'en' = 'fr', logo: ShopLogoImage | null = null) => renderSalePage(input, locale, logo, LINKS);

/** A credit sale: 17 250 FCFA, 5 000 paid in cash, 12 250 on the customer's account. */
function creditSale() {
  const input = receiptInput({ customer: CUSTOMER, sale: { paid_xaf: 5000, change_xaf: 0, credit_xaf: 12_250 } });
  input.sale.payments = [payment('cash', 5000), payment('credit', 12_250)];
  return input;
}

const at = (html: string, text: string) => {
  const index = html.indexOf(text);
  if (index < 0) throw new Error(`${text} is not on the page`);
  return index;
};

t.test('the summary comes first: the total, then the PDF button, all before the first line', async (t) => {
  const html = salePage();
  const total = at(html, 'id="total"');
  t.ok(at(html, 'Facture n° 1042') < total, 'the document\'s number above');
  t.ok(total < at(html, 'id="pdf"'), 'the PDF button under the total');
  t.ok(at(html, 'id="pdf"') < at(html, 'Café moulu 250 g'), 'both before the lines');
  t.match(html, /<p class="total" id="total">17 250 FCFA<\/p>/);
  t.match(html, `<a class="button" id="pdf" href="${LINKS.pdf}">Télécharger le PDF</a>`);
  t.match(html, `href="${LINKS.receipt}">Voir le reçu</a>`, 'and the receipt as a page');
});

t.test('a credit sale not yet settled shows its balance due in the summary; a paid one says it is paid', async (t) => {
  const credit = salePage(creditSale());
  t.match(credit, /id="balance-due"><span>Reste dû<\/span><span>12 250 FCFA<\/span>/);
  t.ok(at(credit, 'id="balance-due"') < at(credit, 'id="pdf"'), 'on the first screen, above the button');
  t.notMatch(visibleText(credit), 'Payée');
  const paid = salePage();
  t.notMatch(paid, 'balance-due', 'a paid sale has no balance due');
  t.match(visibleText(paid), 'Total 17 250 FCFA Payée');
});

t.test('the balance due is the debt now: what was settled on the account since comes off it', async (t) => {
  const input = creditSale();
  input.account = { charged_xaf: 12_250, settled_xaf: 10_000 };
  const text = visibleText(salePage(input));
  t.match(text, 'Reste dû 2 250 FCFA');
  t.match(text, 'Réglé depuis sur le compte client 10 000 FCFA');
  input.account = { charged_xaf: 12_250, settled_xaf: 12_250 };
  t.notMatch(salePage(input), 'balance-due', 'settled in full: nothing due');
});

t.test('each line is a block: its name, then quantity x unit price and the amount, its discounts under it', async (t) => {
  const text = visibleText(salePage());
  t.match(text, 'Articles (3)');
  t.match(text, 'Café moulu 250 g 2 x 2 500 FCFA 5 000 FCFA Remise -500 FCFA');
  t.match(text, 'Riz parfumé 5 kg 1 x 12 500 FCFA 12 500 FCFA Promotion -1 250 FCFA');
  t.match(text, 'Tomates 1,5 x 1 000 FCFA 1 500 FCFA');
  t.match(text, 'Montant brut TTC 19 000 FCFA Remises -500 FCFA Promotions -1 250 FCFA Total 17 250 FCFA', 'the discounts taken off, then the total');
  t.notMatch(visibleText(salePage(receiptInput({ sale: { items: [item({ name: 'Tomates', quantity: 1, unit_price_xaf: 1000 })] } }))), 'Montant brut TTC', 'no subtotal without a discount');
});

t.test('VAT per rate with its base, an exempt rate said so; payments, change and refunds', async (t) => {
  const input = receiptInput();
  input.sale.status = 'partially_refunded';
  input.sale.payments.push(payment('carrier1_momo', 3000, { reference: 'MP240611.1532.A81234' }));
  input.sale.refunds = [{ id: '00000000-0000-4000-8000-00000000aaaa', credit_note_no: 3, method: 'cash', reason: 'Article abîmé', total_xaf: 1500, vat_xaf: 0, items: [], created_at: '2026-11-22T09:00:00.000Z' } as never];
  const text = visibleText(salePage(input));
  t.match(text, 'TVA incluse Exonéré Base HT 1 500 FCFA 0 FCFA TVA 19,25 % Base HT 13 208 FCFA 2 542 FCFA');
  t.match(text, 'Paiements Espèces 20 000 FCFA MTN MoMo Réf. MP240611.1532.A81234 3 000 FCFA Monnaie rendue 2 750 FCFA');
  t.match(text, 'Remboursements 22/11/2026 10:00 Espèces Article abîmé -1 500 FCFA');
  t.match(text, 'Total 17 250 FCFA Remboursé en partie', 'the summary says it was refunded in part');
});

t.test('every text from the shop, the customer or the sale is escaped', async (t) => {
  const evil = '<script>alert(1)</script>"\'&';
  const input = receiptInput({
    shop: { name: evil, receipt_footer: evil, address: evil, phone: evil, tax_id: evil },
    customer: { ...CUSTOMER, name: evil },
    sale: { cashier_name: evil },
  });
  input.sale.items[0]!.name = evil;
  input.sale.payments.push(payment('carrier1_momo', 1, { reference: evil }));
  input.sale.refunds = [{ id: '00000000-0000-4000-8000-00000000aaab', credit_note_no: 1, method: 'cash', reason: evil, total_xaf: 1, vat_xaf: 0, items: [], created_at: '2026-11-22T09:00:00.000Z' } as never];
  input.shop.payment_method_labels = { cash: evil };
  const quote = quoteInput({ quote: { note: evil }, shop: { name: evil }, customer: { ...CUSTOMER, name: evil } });
  quote.quote.items[0]!.name = evil;
  for (const [name, html] of [
    ['sale page', salePage(input)],
    ['sale page in English', salePage(input, 'en')],
    ['quote page', renderQuotePage(quote, 'fr', null, { pdf: LINKS.pdf })],
    ['receipt page', renderReceiptPage(input, 'fr', { pdf: LINKS.pdf, page: LINKS.receipt })],
  ] as const) {
    t.notMatch(html, '<script', `${name}: no script`);
    t.notMatch(html, /"'&(?!amp;|lt;|gt;|quot;|#39;)/, `${name}: no raw quote or ampersand`);
    t.match(html, '&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;', `${name}: the text, escaped`);
  }
  t.notMatch(renderSalePage(receiptInput(), 'fr', null, { pdf: '"><script>', receipt: '"><script>' }), '<script', 'links too');
});

t.test('the shop\'s logo is an inline image at the top; no image without one; nothing is fetched', async (t) => {
  const logo: ShopLogoImage = { media_type: 'image/png', width: 320, height: 96, content: Buffer.from('89504e470d0a1a0a', 'hex') };
  const html = salePage(receiptInput(), 'fr', logo);
  t.match(html, `<img class="logo" src="data:image/png;base64,${logo.content.toString('base64')}" width="320" height="96" alt="">`);
  t.ok(at(html, '<img') < at(html, 'Boutique Awa</p>'), 'above the shop\'s name');
  t.notMatch(salePage(), '<img', 'no logo, no image');
  for (const html of [salePage(receiptInput(), 'fr', logo), renderQuotePage(quoteInput(), 'fr', logo, { pdf: LINKS.pdf })]) {
    t.notMatch(html, /<(script|link|iframe)|src="http|url\(/, 'no script, stylesheet, frame or remote image');
    t.match(html, '<meta name="viewport" content="width=device-width, initial-scale=1">');
    t.match(html, '<meta name="robots" content="noindex, nofollow">', 'a customer\'s link is kept out of search engines');
  }
});

t.test('a quote\'s page: its number, date and validity, the total and the PDF button first, its note and what it is not; no payment', async (t) => {
  const html = renderQuotePage(quoteInput({ quote: { note: 'Livraison comprise' } }), 'fr', null, { pdf: LINKS.pdf });
  const text = visibleText(html);
  t.match(text, 'Boutique Awa Devis n° 12 21/11/2026 14:05 Valable jusqu\'au 31/12/2026 Client : Jean Mbarga Total 17 000 FCFA Télécharger le PDF');
  t.ok(at(html, 'id="pdf"') < at(html, 'Café moulu 250 g'));
  t.match(text, 'Remise -250 FCFA Promotion -1 250 FCFA', 'a line\'s own discount and its promotion');
  t.match(text, 'Note Livraison comprise');
  t.match(text, 'Ce devis n\'est pas une facture');
  t.notMatch(text, /Paiements|Reste dû|Payée|Voir le reçu/, 'nothing of a payment, no receipt');
  t.notMatch(html, 'class="banner', 'a quote that stands has no banner');
});

t.test('a quote declined, expired or converted says so above everything else', async (t) => {
  const banner = (status: 'declined' | 'expired' | 'converted', locale: 'fr' | 'en' = 'fr') => {
    const html = renderQuotePage(quoteInput({ quote: { status, converted_at: status === 'converted' ? '2026-11-23T08:30:00.000Z' : null } }), locale, null, { pdf: LINKS.pdf });
    t.ok(at(html, 'class="banner') < at(html, 'id="total"'), `${status}: above the total`);
    return /<p class="(banner[^"]*)">([^<]*)<\/p>/.exec(html)!.slice(1);
  };
  t.same(banner('declined'), ['banner', 'Devis refusé'], 'a warning');
  t.same(banner('expired'), ['banner', 'Devis expiré']);
  t.same(banner('converted'), ['banner good', 'Devis accepté, facturé le 23/11/2026 09:30'], 'good news');
  t.same(banner('converted', 'en'), ['banner good', 'Accepted, invoiced on 23/11/2026 09:30']);
});

t.test('in English: the words, and amounts written the English way', async (t) => {
  const text = visibleText(salePage(creditSale(), 'en'));
  t.match(text, 'Invoice no. 1042 21/11/2026 14:05 Customer: Jean Mbarga Cashier: Awa Ndiaye TOTAL'.replace('TOTAL', 'Total 17,250 FCFA Balance due 12,250 FCFA Download PDF View the receipt'));
  t.match(text, 'Items (3)');
  t.match(text, 'VAT included Exempt Base excl. VAT 1,500 FCFA');
  t.match(visibleText(renderQuotePage(quoteInput(), 'en', null, { pdf: LINKS.pdf })), 'Proforma no. 12');
  t.match(salePage(receiptInput(), 'en'), '<html lang="en">');
});

t.test('the receipt page shows the printed receipt\'s lines, no QR code, with the PDF and a way back to the page', async (t) => {
  const html = renderReceiptPage(receiptInput(), 'fr', { pdf: LINKS.pdf, page: 'https://pos.example.cm/s/Kq7Rw2ZtB9xM' });
  t.match(html, '<div class="l c b">Boutique Awa</div>', 'the shop\'s name centred and bold, as printed');
  t.match(html, /<div class="l b t">TOTAL\s+17 250 FCFA<\/div>/, 'the total bold and tall, its columns kept');
  t.match(html, '<div class="l">Reçu n° 1042</div>');
  t.notMatch(html, /\\n|"format"/, 'a page, not JSON');
  t.match(html, `<a class="button" id="pdf" href="${LINKS.pdf}">Télécharger le PDF</a>`);
  t.match(html, 'href="https://pos.example.cm/s/Kq7Rw2ZtB9xM">Voir la facture</a>');
});
