import t from 'tap';
import { renderInvoice } from '../../api/receipts/invoice.ts';
import { CUSTOMER, item, payment, receiptInput, visibleText } from './receipt-fixtures.ts';

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
  t.match(invoice(undefined, 'a4'), /@page \{\s+size: A4 portrait;/);
  t.notOk(invoice(undefined, 'a4').includes('A3'));
  t.match(invoice(undefined, 'a3'), /@page \{\s+size: A3 portrait;/);
  t.notOk(invoice(undefined, 'a3').includes('A4'));
  t.match(invoice(), /@media print/);
});

const styleOf = (html: string) => /<style>([\s\S]*?)<\/style>/.exec(html)![1]!;
const fontSizeOf = (html: string) => Number(/body \{[^}]*font-size: ([\d.]+)pt/.exec(styleOf(html))![1]);

t.test('A3 has its own layout, not A4 scaled up: a larger type, but less than A4 times the square root of 2', async (t) => {
  const [a4, a3] = [fontSizeOf(invoice(undefined, 'a4')), fontSizeOf(invoice(undefined, 'a3'))];
  t.ok(a4 <= 9, `A4 is set dense (${a4}pt)`);
  t.ok(a3 > a4 && a3 < a4 * Math.SQRT2 - 0.5, `A3 at ${a3}pt against A4 at ${a4}pt`);
});

t.test('a long invoice repeats the lines\' header row on every page', async (t) => {
  const html = invoice();
  t.match(styleOf(html), 'thead { display: table-header-group; }');
  t.match(html, /<table class="lines"><thead><tr><th class="num">#<\/th>/, 'the lines\' header row is a thead');
  t.match(styleOf(html), /tr \{ break-inside: avoid;/, 'no row is cut in two');
});

t.test('every printed page\'s foot carries the invoice number and "page x / y"', async (t) => {
  for (const format of ['a4', 'a3'] as const) {
    const css = styleOf(invoice(undefined, format));
    t.match(css, /@bottom-left \{ content: "[^"]+";/, `${format}: a left foot`);
    t.match(css, /@bottom-right \{ content: "[^"]+" counter\(page\) " \/ " counter\(pages\);/, `${format}: page x / y`);
    const left = /@bottom-left \{ content: "([^"]+)"/.exec(css)![1]!.replace(/\\([0-9a-f]{6})/g, (_, hex: string) => String.fromCodePoint(parseInt(hex, 16)));
    t.equal(left, 'Boutique Awa - Facture n° 1042', 'the shop and the invoice number, read back from the CSS escapes');
  }
  const hostile = renderInvoice(receiptInput({ shop: { name: 'A"; } body { x: "</style><script>' } }), 'a4', 'fr');
  t.notOk(/<\/style><script>/.test(hostile), 'a shop name cannot close the CSS string or the style element');
  t.equal((styleOf(hostile).match(/"/g) ?? []).length % 2, 0, 'quotes stay paired');
});

t.test('no block is split across pages: totals, VAT breakdown, total in words, payments and the signature box', async (t) => {
  const input = receiptInput({ customer: CUSTOMER, sale: { credit_xaf: 3000 } });
  input.sale.payments.push(payment('credit', 3000));
  const html = renderInvoice(input, 'a4', 'fr');
  t.match(styleOf(html), '.block { break-inside: avoid; page-break-inside: avoid; }');
  t.match(html, /<section class="block summary"><div><h2>Détail de la TVA<\/h2><table class="vat">[\s\S]*?<table class="totals">/, 'the VAT breakdown and the totals, one block');
  t.match(html, /<p class="block words">Arrêtée/, 'the total in words');
  t.match(html, /<section class="block"><h2>Paiements<\/h2><div class="pair"><div><table class="payments">[\s\S]*?<table class="totals">/, 'the payments with the change and the balance due');
  t.match(html, /<div class="signature-box"><p class="box-title">Signature du client<\/p>/, 'the signature box');
  t.match(styleOf(html), /h2 \{[^}]*break-after: avoid;/, 'no heading left alone at the foot of a page');
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

t.test('the invoice shows the shop\'s legal details and NIU, and the customer', async (t) => {
  const text = visibleText(invoice());
  for (const expected of ['Boutique Awa', 'Rue de la Joie', 'Douala', 'Tél. : +237 699 00 00 00', 'E-mail : contact@boutique-awa.cm', 'NIU : M012345678901X', 'Client : Jean Mbarga', 'Tél. : +237 677 11 22 33', 'jean@example.cm', 'Facture n° 1042', 'Date : 21/11/2026 14:05', 'Caissier : Awa Ndiaye']) {
    t.ok(text.includes(expected), expected);
  }
  t.notOk(visibleText(invoice(receiptInput())).includes('Client'), 'no customer block for a walk-in sale');
});

t.test('each line shows its quantity, unit price, discount, VAT rate and amount', async (t) => {
  const html = invoice();
  t.match(html, '<td>Café moulu 250 g</td><td class="num">2</td><td class="num">2 500 FCFA</td><td class="num">-500 FCFA</td><td class="num">19,25 %</td><td class="num">4 500 FCFA</td>');
  t.match(html, '<td>Riz parfumé 5 kg</td><td class="num">1</td><td class="num">12 500 FCFA</td><td class="num">-1 250 FCFA</td><td class="num">19,25 %</td><td class="num">11 250 FCFA</td>');
  t.match(html, '<td>Tomates</td><td class="num">1,5</td><td class="num">1 000 FCFA</td><td class="num"></td><td class="num">Exonéré</td><td class="num">1 500 FCFA</td>');
  t.match(invoice(undefined, 'a4', 'en'), '<td>Tomates</td><td class="num">1.5</td><td class="num">1,000 FCFA</td><td class="num"></td><td class="num">Exempt</td>');
});

t.test('the English invoice writes numbers the English way, the French one the French way', async (t) => {
  const en = invoice(undefined, 'a4', 'en');
  t.match(en, '<td>Riz parfumé 5 kg</td><td class="num">1</td><td class="num">12,500 FCFA</td><td class="num">-1,250 FCFA</td><td class="num">19.25%</td><td class="num">11,250 FCFA</td>');
  t.ok(visibleText(en).includes('Total incl. VAT 17,250 FCFA'));
  t.notOk(/\d \d{3} FCFA/.test(visibleText(en)), 'no French grouping in English');
  const fr = visibleText(invoice());
  t.ok(fr.includes('Total TTC 17 250 FCFA'));
  t.notOk(/\d,\d{3} FCFA/.test(fr), 'no English grouping in French');
});

t.test('the unit price is headed as VAT-inclusive: Prix TTC / Unit price incl. VAT', async (t) => {
  t.match(invoice(), '<th class="num">Qté</th><th class="num">Prix TTC</th>');
  t.match(invoice(undefined, 'a4', 'en'), '<th class="num">Qty</th><th class="num">Unit price incl. VAT</th>');
});

t.test('the invoice shows the totals and the VAT breakdown per rate', async (t) => {
  const text = visibleText(invoice());
  for (const expected of ['Montant brut TTC 19 000 FCFA', 'Remises -500 FCFA', 'Promotions -1 250 FCFA', 'Total HT 14 708 FCFA', 'Total TVA 2 542 FCFA', 'Total TTC 17 250 FCFA']) {
    t.ok(text.includes(expected), expected);
  }
  t.ok(text.includes('Détail de la TVA Taux TVA Base HT TVA Total TTC Exonéré 1 500 FCFA 0 FCFA 1 500 FCFA 19,25 % 13 208 FCFA 2 542 FCFA 15 750 FCFA'));
});

t.test('the VAT of 19.25 % shows its VAT of 17.5 % and its CAC of 10 % of that VAT, the two summing to the line\'s VAT', async (t) => {
  const html = invoice();
  // 2 542 x 1.75 / 19.25 = 231.09: CAC 231, VAT proper 2 311.
  t.match(html, '<tr class="part"><td>dont TVA 17,5 %</td><td class="num"></td><td class="num">2 311 FCFA</td><td class="num"></td></tr>');
  t.match(html, '<tr class="part"><td>dont CAC 10 % (de la TVA)</td><td class="num"></td><td class="num">231 FCFA</td><td class="num"></td></tr>');
  const en = invoice(undefined, 'a4', 'en');
  t.match(en, '<td>of which VAT 17.5%</td><td class="num"></td><td class="num">2,311 FCFA</td>');
  t.match(en, '<td>of which CAC 10% (of the VAT)</td><td class="num"></td><td class="num">231 FCFA</td>');
  t.equal((html.match(/class="part"/g) ?? []).length, 2, 'the 0 % rate prints as one line');

  const other = receiptInput({ sale: { vat_breakdown: [{ rate: 18, base_xaf: 10000, vat_xaf: 1800, total_xaf: 11800 }] } });
  const single = renderInvoice(other, 'a4', 'fr');
  t.notOk(single.includes('class="part"'), 'another rate (18 %) prints as one line');
  t.ok(visibleText(single).includes('18 % 10 000 FCFA 1 800 FCFA 11 800 FCFA'));
});

t.test('the invoice shows the payments in the order taken, the change, one balance due on the customer\'s account, a signature box and points', async (t) => {
  const input = receiptInput({ customer: CUSTOMER, sale: { credit_xaf: 3000, points_redeemed: 20 } });
  input.sale.payments.push(payment('carrier1_momo', 1000, { reference: 'MP-77' }), payment('credit', 3000));
  const text = visibleText(renderInvoice(input, 'a4', 'fr').replace(/<p class="stamp[^>]*>[^<]*<\/p>/, ''));
  for (const expected of ['Paiements', 'Espèces 20 000 FCFA', 'MTN MoMo MP-77 1 000 FCFA', 'Monnaie rendue 2 750 FCFA', 'Reste dû (compte client) 3 000 FCFA', 'Signature du client Date :', 'Points gagnés 17', 'Points utilisés 20']) {
    t.ok(text.includes(expected), expected);
  }
  t.ok(text.indexOf('Espèces 20 000 FCFA') < text.indexOf('MTN MoMo MP-77'), 'in the order taken');
  t.equal(text.split('3 000 FCFA').length - 1, 1, 'the balance due appears once among the payments');
  t.notOk(text.includes('-2 750'), 'the change entry is not listed as a payment');
});

t.test('the invoice prints the shop\'s trade register number and a business customer\'s address and NIU', async (t) => {
  const input = receiptInput({ customer: { ...CUSTOMER, tax_id: 'M051812345678P', address: 'Rue Joss, Douala' } });
  input.shop.trade_register_no = 'RC/DLA/2019/B/1234';
  const text = visibleText(renderInvoice(input, 'a4', 'fr'));
  for (const expected of ['RCCM : RC/DLA/2019/B/1234', 'Adresse : Rue Joss, Douala', 'NIU : M051812345678P']) t.ok(text.includes(expected), expected);
});

t.test('every label follows the locale', async (t) => {
  const en = visibleText(invoice(undefined, 'a4', 'en'));
  for (const expected of ['Invoice', 'Invoice no. 1042', 'Date: 21/11/2026 14:05', 'Cashier: Awa Ndiaye', 'Customer', 'NIU: M012345678901X', 'Item', 'Qty', 'Unit price', 'Discount', 'Amount', 'Gross amount incl. VAT', 'Total excl. VAT', 'Total VAT', 'Total incl. VAT', 'VAT breakdown', 'Exempt', 'Payments', 'Cash', 'Change']) {
    t.ok(en.includes(expected), expected);
  }
  for (const french of ['Facture', 'Désignation', 'Montant brut', 'Exonéré', 'Monnaie rendue', 'Espèces', 'Paiements']) {
    t.notOk(en.includes(french), `no "${french}" in English`);
  }
});

t.test('the invoice closes with its total in words, OHADA style', async (t) => {
  const input = receiptInput({ sale: { total_xaf: 36_600 } });
  t.match(renderInvoice(input, 'a4', 'fr'), '<p class="block words">Arrêtée la présente facture à la somme de trente-six mille six cents francs CFA.</p>');
  t.match(renderInvoice(input, 'a3', 'en'), '<p class="block words">Amount of this invoice in words: thirty-six thousand six hundred CFA francs.</p>');
  t.ok(visibleText(invoice()).includes('Total TTC 17 250 FCFA Arrêtée la présente facture à la somme de dix-sept mille deux cent cinquante francs CFA.'), 'right after the totals');
});

t.test('an invoice paid at the till is stamped paid; a credit sale without its account\'s state reads its credit as still due', async (t) => {
  t.match(invoice(), '<p class="stamp paid">Payée</p>');
  t.match(invoice(undefined, 'a4', 'en'), '<p class="stamp paid">Paid</p>');
  const partly = receiptInput({ sale: { credit_xaf: 3000 } });
  t.match(renderInvoice(partly, 'a4', 'fr'), '<p class="stamp partly_paid">Reste dû : 3 000 FCFA</p>');
  t.match(renderInvoice(partly, 'a4', 'en'), '<p class="stamp partly_paid">Balance due: 3,000 FCFA</p>');
  const unpaid = receiptInput({ sale: { paid_xaf: 0, change_xaf: 0, credit_xaf: 17_250, payments: [payment('credit', 17_250)] } });
  t.match(renderInvoice(unpaid, 'a4', 'fr'), '<p class="stamp unpaid">Non payée</p>');
  t.match(renderInvoice(unpaid, 'a4', 'en'), '<p class="stamp unpaid">Unpaid</p>');
  t.match(renderInvoice({ ...unpaid, account: { charged_xaf: 17_250, settled_xaf: 17_250 } }, 'a4', 'fr'), '<p class="stamp paid">Payée</p>', 'settled since');
  t.match(renderInvoice({ ...unpaid, account: { charged_xaf: 17_250, settled_xaf: 250 } }, 'a4', 'fr'), '<p class="stamp partly_paid">Reste dû : 17 000 FCFA</p>', 'settled in part');
  t.match(renderInvoice({ ...unpaid, account: { charged_xaf: 12_000, settled_xaf: 12_000 } }, 'a4', 'fr'), '<p class="stamp paid">Payée</p>', 'a refund to the account took back the rest');
});

t.test('a voided invoice shows no points earned, no payment stamp and no balance due', async (t) => {
  const input = receiptInput({ customer: CUSTOMER, sale: { status: 'voided', voided_at: '2026-11-21T14:00:00Z', credit_xaf: 3000, points_earned: 17, points_redeemed: 5 } });
  input.sale.payments.push(payment('credit', 3000));
  const html = renderInvoice(input, 'a4', 'fr');
  const text = visibleText(html);
  t.ok(text.includes('VENTE ANNULÉE'), 'marked voided');
  t.notOk(text.includes('Points gagnés'), 'no points earned');
  t.notOk(text.includes('Points utilisés'), 'no points redeemed either: the void gave them back');
  t.notOk(html.includes('class="stamp'), 'neither paid nor unpaid');
  t.notOk(text.includes('Reste dû'), 'nothing due');
  t.notOk(text.includes('Signature'), 'nothing to sign');
  t.ok(visibleText(invoice()).includes('Points gagnés 17'), 'a standing sale shows them');
});

t.test('a voided sale\'s invoice carries the mark and the reason', async (t) => {
  const input = receiptInput({ sale: { status: 'voided', void_reason: 'Erreur de saisie', voided_at: '2026-11-21T14:00:00Z' } });
  t.ok(visibleText(renderInvoice(input, 'a4', 'fr')).includes('VENTE ANNULÉE - 21/11/2026 15:00 Motif : Erreur de saisie'));
  t.ok(visibleText(renderInvoice(input, 'a4', 'en')).includes('SALE VOIDED - 21/11/2026 15:00 Reason: Erreur de saisie'));
  t.notOk(invoice().includes('class="void"'));
});
