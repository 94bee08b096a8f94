import t from 'tap';
import { encodeWindows1252, renderEscPos } from '../../api/receipts/escpos.ts';
import { CUSTOMER, item, LONG_NAME, payment, qrData, readEscPos, receiptInput, textLines } from './receipt-fixtures.ts';

/** The sale's shared page, as the receipt route gives it (api/receipts/share-routes.ts). */
const PAGE_LINK = 'https://pos.example.cm/s/Kq7Rw2ZtB9xM';
const print = (input = receiptInput(), width: 58 | 80 = 58, locale: 'fr' | 'en' = 'fr') => readEscPos(renderEscPos(input, width, locale, PAGE_LINK));
const lines = (input = receiptInput(), width: 58 | 80 = 58, locale: 'fr' | 'en' = 'fr') => textLines(print(input, width, locale)).map((line) => line.text);

/** A sale built to stretch every line: long names, huge amounts, references, a long header and footer. */
function crowded() {
  const input = receiptInput({
    customer: { ...CUSTOMER, name: `${CUSTOMER.name} ${'de la Grande Famille Mbarga '.repeat(3)}` },
    shop: { receipt_header: `Bienvenue ! ${'Promotions chaque semaine sur tout le rayon frais. '.repeat(3)}`, receipt_footer: LONG_NAME },
    sale: { points_redeemed: 250, credit_xaf: 1500000, points_earned: 1234 },
  });
  input.sale.items.push(item({ name: LONG_NAME, quantity: 1234.567, unit_price_xaf: 1000000, discount_xaf: 1000000, promotion_discount_xaf: 250000, points_discount_xaf: 250 }));
  input.sale.payments.push(payment('carrier1_momo', 5000, { reference: 'MP-2611211305-ABCDEF-0123456789-LONG-REFERENCE' }));
  return input;
}

t.test('the receipt starts with ESC @ and selects code page 16 (WPC1252)', async (t) => {
  const bytes = renderEscPos(receiptInput(), 80, 'fr');
  t.same([...bytes.slice(0, 5)], [0x1b, 0x40, 0x1b, 0x74, 16]);
  const events = readEscPos(bytes);
  t.same(events.slice(0, 2), [{ kind: 'init' }, { kind: 'codepage', page: 16 }]);
  t.equal(events.filter((e) => e.kind === 'codepage').length, 1, 'the code page is chosen once');
});

t.test('accents are encoded in Windows-1252: Café is 43 61 66 E9', async (t) => {
  t.same([...encodeWindows1252('Café')], [0x43, 0x61, 0x66, 0xe9]);
  t.same([...encodeWindows1252('Cafe\u0301')], [0x43, 0x61, 0x66, 0xe9], 'a decomposed é is composed first');
  t.same([...encodeWindows1252('Ç à è ù ô ï œ €')], [0xc7, 0x20, 0xe0, 0x20, 0xe8, 0x20, 0xf9, 0x20, 0xf4, 0x20, 0xef, 0x20, 0x9c, 0x20, 0x80]);
  const input = receiptInput();
  input.sale.items[0]!.name = 'Café';
  const cafe = textLines(print(input)).find((line) => line.text === 'Café');
  t.ok(cafe, 'the line prints');
  t.same(cafe!.bytes, [0x43, 0x61, 0x66, 0xe9], 'the printed bytes');
});

t.test('characters outside Windows-1252 print as ? and control characters never reach the printer', async (t) => {
  t.same([...encodeWindows1252('a中b')], [0x61, 0x3f, 0x62]);
  t.same([...encodeWindows1252('\u001b@\u001dV')], [0x3f, 0x40, 0x3f, 0x56]);
  const input = receiptInput();
  input.sale.items[0]!.name = 'Thé \u001b@\u001dV\u0000 vert 🍵 中';
  const events = print(input);
  t.equal(events.filter((e) => e.kind === 'init').length, 1, 'no injected ESC @');
  t.equal(events.filter((e) => e.kind === 'cut').length, 1, 'no injected cut');
  t.ok(textLines(events).some((line) => line.text === 'Thé @ V vert ? ?'), 'the name prints with the unknown characters replaced');
});

t.test('no text line is longer than 32 columns on 58 mm paper', async (t) => {
  for (const locale of ['fr', 'en'] as const) {
    const printed = textLines(print(crowded(), 58, locale));
    t.ok(printed.length > 40);
    t.same(printed.filter((line) => line.bytes.length > 32).map((line) => line.text), [], `${locale}: none over 32`);
  }
});

t.test('no text line is longer than 48 columns on 80 mm paper', async (t) => {
  for (const locale of ['fr', 'en'] as const) {
    const printed = textLines(print(crowded(), 80, locale));
    t.same(printed.filter((line) => line.bytes.length > 48).map((line) => line.text), [], `${locale}: none over 48`);
    t.ok(printed.some((line) => line.bytes.length === 48), 'the full width is used');
  }
});

t.test('a long product name wraps onto the next lines and keeps every word', async (t) => {
  const input = receiptInput();
  input.sale.items = [item({ name: LONG_NAME, quantity: 1, unit_price_xaf: 1000, total_xaf: 1000 })];
  for (const [width, columns] of [[58, 32], [80, 48]] as const) {
    const printed = lines(input, width);
    const start = printed.findIndex((line) => line.startsWith('Savon'));
    const end = printed.findIndex((line, index) => index > start && line.startsWith('  '));
    const nameLines = printed.slice(start, end);
    t.ok(start >= 0 && nameLines.length >= 3, `${columns}: the name spreads over ${nameLines.length} lines`);
    t.ok(nameLines.every((line) => line.length <= columns));
    t.equal(nameLines.join(' '), LONG_NAME, 'every word, in order');
    t.match(printed[start + nameLines.length], /^ {2}1 x 1 000 FCFA +1 000 FCFA$/, 'then quantity x unit price and the line total');
  }
});

t.test('each line shows quantity x unit price and its total right-aligned, with its discount and promotion', async (t) => {
  const printed = lines(receiptInput(), 58);
  const at = (name: string) => printed.indexOf(name);
  const cafe = at('Café moulu 250 g');
  t.equal(printed[cafe + 1], '  2 x 2 500 FCFA      5 000 FCFA');
  t.equal(printed[cafe + 2], '  Remise               -500 FCFA');
  const rice = at('Riz parfumé 5 kg');
  t.equal(printed[rice + 1], '  1 x 12 500 FCFA    12 500 FCFA');
  t.equal(printed[rice + 2], '  Promotion          -1 250 FCFA');
  t.equal(printed[at('Tomates') + 1], '  1,5 x 1 000 FCFA    1 500 FCFA');
  t.equal(lines(receiptInput(), 58, 'en')[at('Tomates') + 1], '  1.5 x 1,000 FCFA    1,500 FCFA');
});

t.test('the shop header is centred and bold: name, address, phone, NIU and the shop\'s own header', async (t) => {
  const printed = textLines(print(receiptInput(), 80));
  t.same(
    printed.slice(0, 5).map((line) => [line.text, line.align]),
    [['Boutique Awa', 1], ['Rue de la Joie, Douala', 1], ['Tél. +237 699 00 00 00', 1], ['NIU M012345678901X', 1], ['Ouvert 7j/7', 1]],
  );
  t.ok(printed[0]!.bold, 'the name is bold');
});

t.test('the receipt number, the date in the shop\'s time zone, the cashier and the customer are printed', async (t) => {
  const fr = lines(receiptInput({ customer: CUSTOMER }), 58, 'fr');
  t.ok(fr.includes('Reçu n° 1042'));
  t.ok(fr.includes('Date : 21/11/2026 14:05'));
  t.ok(fr.includes('Caissier : Awa Ndiaye'));
  t.ok(fr.includes('Client : Jean Mbarga'));
  const en = lines(receiptInput({ customer: CUSTOMER }), 58, 'en');
  t.ok(en.includes('Receipt no. 1042'));
  t.ok(en.includes('Date: 21/11/2026 14:05'));
  t.ok(en.includes('Cashier: Awa Ndiaye'));
  t.ok(en.includes('Customer: Jean Mbarga'));
});

t.test('the total is printed bold in double height, after the subtotal and the discounts', async (t) => {
  const printed = textLines(print(receiptInput(), 58));
  const total = printed.find((line) => line.text.startsWith('TOTAL'));
  t.equal(total?.text, 'TOTAL                17 250 FCFA');
  t.equal(total?.size, 0x01, 'GS ! 1: double height');
  t.ok(total?.bold);
  const texts = printed.map((line) => line.text);
  t.ok(texts.includes('Sous-total           19 000 FCFA'));
  t.ok(texts.includes('Remises                -500 FCFA'));
  t.ok(texts.includes('Promotions           -1 250 FCFA'));
  t.ok(texts.indexOf('Sous-total           19 000 FCFA') < texts.indexOf('TOTAL                17 250 FCFA'));
  t.ok(printed.filter((line) => line !== total).every((line) => line.size === 0), 'only the total is tall');
});

t.test('redeemed points show as a discount with their count', async (t) => {
  const input = receiptInput({ sale: { points_redeemed: 300, total_xaf: 16950, discount_xaf: 2050 } });
  input.sale.items[1]!.points_discount_xaf = 300;
  t.ok(lines(input).includes('Remise points (300)    -300 FCFA'));
  t.ok(lines(input, 58, 'en').includes('Points discount (300)  -300 FCFA'));
});

t.test('VAT is printed per rate with its base, an exempt rate as Exonéré', async (t) => {
  const printed = lines(receiptInput(), 58);
  const standard = printed.indexOf('TVA 19,25 %           2 542 FCFA');
  t.ok(standard > 0);
  t.equal(printed[standard + 1], '  Base HT            13 208 FCFA');
  const zero = printed.indexOf('TVA Exonéré               0 FCFA');
  t.ok(zero > 0);
  t.equal(printed[zero + 1], '  Base HT             1 500 FCFA');
  t.notOk(printed.some((line) => line.includes('0 %')), 'never a rate of 0 %');
  const en = lines(receiptInput(), 58, 'en');
  t.ok(en.includes('VAT 19.25%            2,542 FCFA'));
  t.ok(en.includes('VAT Exempt                0 FCFA'));
});

t.test('payments are printed in the order taken, with the shop\'s names for its methods, references and change', async (t) => {
  const input = receiptInput({ customer: CUSTOMER, sale: { change_xaf: 0 } });
  input.sale.payments = [payment('cash', 5000), payment('carrier1_momo', 6000, { reference: 'MP123' }), payment('carrier2_money', 2000), payment('card', 1000), payment('bank', 1250)];
  const printed = lines(input, 58);
  const order = ['Espèces               5 000 FCFA', 'MTN MoMo              6 000 FCFA', '  Réf. MP123', 'Orange Money          2 000 FCFA', 'Carte bancaire        1 000 FCFA', 'Virement bancaire     1 250 FCFA'];
  t.strictSame(order.map((line) => printed.indexOf(line)).map((at, i, all) => at >= 0 && (i === 0 || at > all[i - 1]!)), order.map(() => true), 'every payment, in the order taken');
  input.shop.payment_method_labels = { carrier1_momo: 'Mobile Money MTN' };
  t.ok(lines(input, 58).includes('Mobile Money MTN      6 000 FCFA'), 'the shop\'s own name for a method');
  t.notOk(printed.some((line) => line.startsWith('Monnaie rendue')), 'no change line when none is due');
  t.ok(lines(receiptInput(), 58).includes('Monnaie rendue        2 750 FCFA'));
  t.ok(lines(receiptInput(), 58, 'en').includes('Change                2,750 FCFA'));
  t.ok(lines(receiptInput(), 58, 'en').includes('Cash                 20,000 FCFA'));
});

t.test('a sale on the customer\'s account prints its balance due once, after the payments, and a line for the customer\'s signature', async (t) => {
  const input = receiptInput({ customer: CUSTOMER, sale: { credit_xaf: 9750, change_xaf: 0 } });
  input.sale.payments = [payment('cash', 5000), payment('credit', 9750)];
  const printed = lines(input, 58);
  t.equal(printed.filter((line) => line.includes('9 750 FCFA')).length, 1, 'the amount on the account appears once');
  t.ok(printed.findIndex((line) => line.startsWith('Reste dû (compte client)')) > printed.indexOf('Espèces               5 000 FCFA'), 'after the payments');
  t.ok(printed.includes('Signature du client :'), 'a signature line');
  t.notOk(printed.some((line) => line.startsWith('Compte client') || line.startsWith('Crédit client')), 'not also listed as a payment');
  t.notOk(lines(receiptInput(), 58).includes('Signature du client :'), 'no signature line for a sale paid in full');
});

t.test('points earned and redeemed are printed', async (t) => {
  const printed = lines(receiptInput({ sale: { points_earned: 17, points_redeemed: 40 } }), 58);
  t.ok(printed.includes('Points gagnés                 17'));
  t.ok(printed.includes('Points utilisés               40'));
  t.notOk(lines(receiptInput({ sale: { points_earned: 0 } })).some((line) => line.startsWith('Points')), 'nothing when no points moved');
});

t.test('the link to the sale\'s page is printed as a QR code (GS ( k, model 2); none on a voided sale\'s receipt', async (t) => {
  const events = print(receiptInput(), 80);
  const qr = events.filter((e) => e.kind === 'qr');
  t.same(
    qr.map((e) => e.fn),
    [0x41, 0x43, 0x45, 0x50, 0x51],
    'model, module size, error correction, store, print, in that order',
  );
  t.same(qr[0]!.params, [0x32, 0x00], 'model 2');
  t.same(qr[2]!.params, [0x31], 'error correction M');
  t.equal(qrData(events), PAGE_LINK);
  const before = events.slice(0, events.indexOf(qr[0]!)).filter((e) => e.kind === 'align').pop();
  t.same(before, { kind: 'align', value: 1 }, 'centred');
  t.notOk(print(receiptInput({ sale: { status: 'voided' } })).some((e) => e.kind === 'qr'), 'a voided sale\'s page is gone: no code');
});

t.test('the footer is printed after the QR code', async (t) => {
  const events = print(receiptInput(), 58);
  const qr = events.findIndex((e) => e.kind === 'qr');
  const footer = events.findIndex((e) => e.kind === 'text' && e.text === 'Merci de votre visite !');
  t.ok(qr > 0 && footer > qr);
});

t.test('the receipt ends with a feed and a partial cut (GS V 66 0)', async (t) => {
  const bytes = renderEscPos(receiptInput(), 58, 'fr');
  t.same([...bytes.slice(-4)], [0x1d, 0x56, 0x42, 0x00]);
  const events = readEscPos(bytes);
  t.same(events[events.length - 1], { kind: 'cut', mode: 66, feed: 0 });
  t.match(events[events.length - 2], { kind: 'feed' });
});

t.test('a voided sale prints a clear ANNULÉ in French and VOIDED in English, with its reason', async (t) => {
  const input = receiptInput({ sale: { status: 'voided', void_reason: 'Erreur de saisie', voided_at: '2026-11-21T14:00:00Z' } });
  const fr = textLines(print(input, 58, 'fr'));
  const marks = fr.filter((line) => line.text === '*** ANNULÉ ***');
  t.equal(marks.length, 2, 'at the top and the bottom');
  t.ok(marks.every((line) => line.bold && line.size === 1 && line.align === 1), 'bold, double height, centred');
  t.ok(fr.some((line) => line.text === 'Motif : Erreur de saisie'));
  t.equal(textLines(print(input, 58, 'en')).filter((line) => line.text === '*** VOIDED ***').length, 2);
  t.notOk(lines(receiptInput()).some((line) => line.includes('ANNULÉ')), 'a completed sale carries no mark');
});

t.test('refunds are listed with their date and method', async (t) => {
  const input = receiptInput({
    sale: {
      status: 'partially_refunded',
      refunds: [{ id: '9a0b1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c2d', credit_note_no: 1, method: 'cash', reason: null, total_xaf: 1500, vat_xaf: 0, items: [], created_at: '2026-11-22T09:00:00Z', certification: null }],
    },
  });
  const printed = lines(input, 58);
  t.ok(printed.includes('Remboursé en partie'));
  t.ok(printed.includes('  22/11/2026 10:00 Espèces'), 'the refund\'s date in the shop\'s time zone and its method');
  t.ok(printed.some((line) => /^ +-1 500 FCFA$/.test(line)), 'its amount right-aligned');
});
