import t from 'tap';
import { renderInvoice } from '../../api/receipts/invoice.ts';
import { CUSTOMER, item, payment, receiptInput, SALE_ID, visibleText } from './receipt-fixtures.ts';

const invoice = (input = receiptInput({ customer: CUSTOMER }), format: 'a4' | 'a3' = 'a4', locale: 'fr' | 'en' = 'fr') => renderInvoice(input, format, locale);

t.test('the invoice is one complete HTML document', async (t) => {
  const html = invoice();
  t.ok(html.startsWith('<!DOCTYPE html>\n<html lang="fr">'));
  t.ok(html.trimEnd().endsWith('</html>'));
  t.match(html, '<meta charset="utf-8">');
  t.match(html, '<title>Facture n° 1042 - Boutique Awa</title>');
  t.match(invoice(undefined, 'a4', 'en'), '<html lang="en">');
});

t.test('the invoice makes no external request of any kind', async (t) => {
  for (const format of ['a4', 'a3'] as const) {
    const html = invoice(receiptInput({ customer: CUSTOMER }), format);
    t.notOk(/http/i.test(html), 'no http');
    t.notOk(/<link/i.test(html), 'no <link');
    t.notOk(/<script/i.test(html), 'no <script');
    t.notOk(/<img|<iframe|<object|<embed|<video|<audio|<source/i.test(html), 'no embedded resource');
    t.notOk(/\ssrc\s*=/i.test(html), 'no src=');
    t.notOk(/\shref\s*=/i.test(html), 'no href=');
    t.notOk(/@import|url\(|@font-face/i.test(html), 'no CSS import, url() or web font');
    t.match(html, /<style>[\s\S]+<\/style>/, 'the CSS is inline');
  }
});

t.test('the print CSS sizes the page A4 or A3', async (t) => {
  t.match(invoice(undefined, 'a4'), /@page \{ size: A4 portrait;/);
  t.notOk(invoice(undefined, 'a4').includes('A3'));
  t.match(invoice(undefined, 'a3'), /@page \{ size: A3 portrait;/);
  t.notOk(invoice(undefined, 'a3').includes('A4'));
  t.match(invoice(), /@media print/);
});

t.test('every text is HTML-escaped: a product named <script> appears escaped', async (t) => {
  const input = receiptInput({
    customer: { ...CUSTOMER, name: 'Tom & "Jerry" <b>' },
    shop: { name: 'Chez <Awa>', receipt_footer: "<img src=x onerror=alert('x')>", tax_id: '<i>NIU</i>' },
    sale: { cashier_name: '<u>Ali</u>', void_reason: '</table>', status: 'voided', voided_at: '2026-11-21T14:00:00Z' },
  });
  input.sale.items.push(item({ name: '<script>alert("x")</script>', quantity: 1, unit_price_xaf: 100 }));
  input.sale.payments.push(payment('card', 100, { reference: '<ref>' }));
  const html = renderInvoice(input, 'a4', 'fr');
  t.match(html, '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
  t.notOk(html.includes('<script'), 'no script tag');
  t.match(html, 'Tom &amp; &quot;Jerry&quot; &lt;b&gt;');
  t.match(html, 'Chez &lt;Awa&gt;');
  t.match(html, '&lt;img src=x onerror=alert(&#39;x&#39;)&gt;');
  t.notOk(/<img|<b>|<i>|<u>|<ref>/.test(html), 'no tag from the data');
  t.equal((html.match(/<\/table>/g) ?? []).length, (html.match(/<table/g) ?? []).length, 'the tables are the page\'s own');
});

t.test('the invoice shows the shop\'s legal details and tax id, and the customer', async (t) => {
  const text = visibleText(invoice());
  for (const expected of ['Boutique Awa', 'Rue de la Joie', 'Douala', 'Tél. : +237 699 00 00 00', 'E-mail : contact@boutique-awa.cm', 'N° contribuable : M012345678901X', 'Client Jean Mbarga', 'Tél. : +237 677 11 22 33', 'jean@example.cm', 'Facture n° 1042', 'Date : 21/11/2026 14:05', 'Caissier : Awa Ndiaye']) {
    t.ok(text.includes(expected), expected);
  }
  t.notOk(visibleText(invoice(receiptInput())).includes('Client'), 'no customer block for a walk-in sale');
});

t.test('each line shows its quantity, unit price, discount, VAT rate and amount', async (t) => {
  const html = invoice();
  t.match(html, '<td>Café moulu 250 g</td><td class="num">2</td><td class="num">2 500 FCFA</td><td class="num">-500 FCFA</td><td class="num">19,25 %</td><td class="num">4 500 FCFA</td>');
  t.match(html, '<td>Riz parfumé 5 kg</td><td class="num">1</td><td class="num">12 500 FCFA</td><td class="num">-1 250 FCFA</td><td class="num">19,25 %</td><td class="num">11 250 FCFA</td>');
  t.match(html, '<td>Tomates</td><td class="num">1,5</td><td class="num">1 000 FCFA</td><td class="num"></td><td class="num">0 %</td><td class="num">1 500 FCFA</td>');
  t.match(invoice(undefined, 'a4', 'en'), '<td>Tomates</td><td class="num">1.5</td>');
});

t.test('the invoice shows the totals and the VAT breakdown per rate', async (t) => {
  const text = visibleText(invoice());
  for (const expected of ['Sous-total 19 000 FCFA', 'Remises -500 FCFA', 'Promotions -1 250 FCFA', 'Total HT 14 708 FCFA', 'Total TVA 2 542 FCFA', 'Total TTC 17 250 FCFA']) {
    t.ok(text.includes(expected), expected);
  }
  t.ok(text.includes('Détail de la TVA Taux TVA Base HT TVA Total TTC 0 % 1 500 FCFA 0 FCFA 1 500 FCFA 19,25 % 13 208 FCFA 2 542 FCFA 15 750 FCFA'));
});

t.test('the invoice shows the payments in the order taken, the change, one balance due on the customer\'s account, a signature and points', async (t) => {
  const input = receiptInput({ customer: CUSTOMER, sale: { credit_xaf: 3000, points_redeemed: 20 } });
  input.sale.payments.push(payment('carrier1_momo', 1000, { reference: 'MP-77' }), payment('credit', 3000));
  const text = visibleText(renderInvoice(input, 'a4', 'fr'));
  for (const expected of ['Paiements', 'Espèces 20 000 FCFA', 'MTN MoMo MP-77 1 000 FCFA', 'Monnaie rendue 2 750 FCFA', 'Reste dû (compte client) 3 000 FCFA', 'Signature du client :', 'Points gagnés 17', 'Points utilisés 20']) {
    t.ok(text.includes(expected), expected);
  }
  t.ok(text.indexOf('Espèces 20 000 FCFA') < text.indexOf('MTN MoMo MP-77'), 'in the order taken');
  t.equal(text.split('3 000 FCFA').length - 1, 1, 'the balance due appears once');
  t.notOk(text.includes('-2 750'), 'the change entry is not listed as a payment');
});

t.test('the invoice prints the shop\'s trade register number and a business customer\'s address and taxpayer number', async (t) => {
  const input = receiptInput({ customer: { ...CUSTOMER, tax_id: 'M051812345678P', address: 'Rue Joss, Douala' } });
  input.shop.trade_register_no = 'RC/DLA/2019/B/1234';
  const text = visibleText(renderInvoice(input, 'a4', 'fr'));
  for (const expected of ['RCCM : RC/DLA/2019/B/1234', 'Adresse : Rue Joss, Douala', 'N° contribuable : M051812345678P']) t.ok(text.includes(expected), expected);
});

t.test('every label follows the locale', async (t) => {
  const en = visibleText(invoice(undefined, 'a4', 'en'));
  for (const expected of ['Invoice', 'Invoice no. 1042', 'Date: 21/11/2026 14:05', 'Cashier: Awa Ndiaye', 'Customer', 'Tax ID: M012345678901X', 'Item', 'Qty', 'Unit price', 'Discount', 'Amount', 'Subtotal', 'Total excl. VAT', 'Total VAT', 'Total incl. VAT', 'VAT breakdown', 'Payments', 'Cash', 'Change', 'Sale ref.: ' + SALE_ID]) {
    t.ok(en.includes(expected), expected);
  }
  for (const french of ['Facture', 'Désignation', 'Sous-total', 'Monnaie rendue', 'Espèces', 'Paiements']) {
    t.notOk(en.includes(french), `no "${french}" in English`);
  }
});

t.test('a voided sale\'s invoice carries the mark and the reason', async (t) => {
  const input = receiptInput({ sale: { status: 'voided', void_reason: 'Erreur de saisie', voided_at: '2026-11-21T14:00:00Z' } });
  t.ok(visibleText(renderInvoice(input, 'a4', 'fr')).includes('VENTE ANNULÉE — 21/11/2026 15:00 Motif : Erreur de saisie'));
  t.ok(visibleText(renderInvoice(input, 'a4', 'en')).includes('SALE VOIDED — 21/11/2026 15:00 Reason: Erreur de saisie'));
  t.notOk(invoice().includes('class="void"'));
});
