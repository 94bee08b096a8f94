import t from 'tap';
import { renderEscPos } from '../../api/receipts/escpos.ts';
import { renderText } from '../../api/receipts/text.ts';
import { CUSTOMER, item, LONG_NAME, payment, readEscPos, receiptInput, textLines } from './receipt-fixtures.ts';

const textOf = (input = receiptInput(), locale: 'fr' | 'en' = 'fr') => renderText(input, locale);

t.test('the text receipt is 32 columns wide with no control characters', async (t) => {
  const input = receiptInput({ customer: CUSTOMER });
  input.sale.items.push(item({ name: `${LONG_NAME} \u001b@\u0007`, quantity: 1234.567, unit_price_xaf: 1000000 }));
  for (const locale of ['fr', 'en'] as const) {
    const text = textOf(input, locale);
    const lines = text.split('\n');
    t.same(lines.filter((line) => [...line].length > 32), [], `${locale}: no line over 32 columns`);
    t.notOk(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/.test(text), `${locale}: no control character but the line feed`);
    t.ok(text.endsWith('\n') && !text.endsWith('\n\n'), 'ends with one line feed');
    t.notOk(lines.some((line) => line !== line.trimEnd()), 'no trailing spaces');
  }
});

t.test('the text receipt shows the lines, totals, VAT per rate, payments and change in French', async (t) => {
  const text = textOf();
  for (const expected of [
    '          Boutique Awa',
    'Reçu n° 1042',
    'Date : 21/11/2026 14:05',
    'Caissier : Awa Ndiaye',
    'Café moulu 250 g',
    '  2 x 2 500 FCFA      5 000 FCFA',
    '  Remise               -500 FCFA',
    '  Promotion          -1 250 FCFA',
    'Sous-total           19 000 FCFA',
    'TOTAL                17 250 FCFA',
    'TVA 19,25 %           2 542 FCFA',
    '  Base HT            13 208 FCFA',
    'TVA Exonéré               0 FCFA',
    'Espèces              20 000 FCFA',
    'Monnaie rendue        2 750 FCFA',
    'Points gagnés                 17',
    '    Merci de votre visite !',
  ]) {
    t.ok(text.split('\n').includes(expected), expected);
  }
});

t.test('the text receipt speaks English when asked', async (t) => {
  const input = receiptInput({ customer: CUSTOMER, sale: { credit_xaf: 2000 } });
  input.sale.payments.push(payment('carrier2_money', 1000, { reference: 'OM-42' }), payment('credit', 2000));
  const lines = textOf(input, 'en').split('\n');
  for (const expected of [
    'Receipt no. 1042',
    'Date: 21/11/2026 14:05',
    'Cashier: Awa Ndiaye',
    'Customer: Jean Mbarga',
    '  Discount             -500 FCFA',
    'Subtotal             19,000 FCFA',
    'Discounts              -500 FCFA',
    'VAT 19.25%            2,542 FCFA',
    '  Base excl. VAT     13,208 FCFA',
    'Cash                 20,000 FCFA',
    'Orange Money          1,000 FCFA',
    '  Ref. OM-42',
    'Change                2,750 FCFA',
    'Balance due (customer account)',
    '                      2,000 FCFA',
    'Customer signature:',
    'Points earned                 17',
  ]) {
    t.ok(lines.includes(expected), expected);
  }
  t.notOk(lines.some((line) => /Reçu|Monnaie|Espèces/.test(line)), 'no French label');
});

t.test('a long product name wraps in the text receipt and every word is kept', async (t) => {
  const input = receiptInput();
  input.sale.items = [item({ name: LONG_NAME, quantity: 1, unit_price_xaf: 1000 })];
  const lines = textOf(input).split('\n');
  const start = lines.findIndex((line) => line.startsWith('Savon'));
  const end = lines.findIndex((line, index) => index > start && line.startsWith('  '));
  t.ok(end - start >= 4, 'four lines or more at 32 columns');
  t.equal(lines.slice(start, end).join(' '), LONG_NAME);
});

t.test('the text receipt is the 58 mm printed receipt without the printer\'s commands', async (t) => {
  const input = receiptInput({ customer: CUSTOMER });
  const printed = textLines(readEscPos(renderEscPos(input, 58, 'fr')))
    .map((line) => line.text)
    .filter((line) => line !== '');
  const shared = textOf(input)
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  t.same(shared, printed.map((line) => line.trim()));
});

t.test('a voided sale is marked in the text receipt', async (t) => {
  const input = receiptInput({ sale: { status: 'voided', void_reason: 'Doublon', voided_at: '2026-11-21T14:00:00Z' } });
  t.equal(textOf(input).split('\n').filter((line) => line.trim() === '*** ANNULÉ ***').length, 2);
  t.equal(textOf(input, 'en').split('\n').filter((line) => line.trim() === '*** VOIDED ***').length, 2);
});

t.test('a voided sale\'s receipt shows no points and no balance due, as its invoice: the void gave both back', async (t) => {
  const sale = { points_earned: 17, points_redeemed: 5, credit_xaf: 2000 };
  const live = receiptInput({ customer: CUSTOMER, sale });
  const voided = receiptInput({ customer: CUSTOMER, sale: { ...sale, status: 'voided', void_reason: 'Doublon', voided_at: '2026-11-21T14:00:00Z' } });
  const printed = (input: typeof live) => textLines(readEscPos(renderEscPos(input, 80, 'fr'))).map((line) => line.text).join('\n');
  for (const [form, render] of [['text', (input: typeof live) => renderText(input, 'fr', 'fixed')], ['ESC/POS', printed]] as const) {
    t.match(render(live), /Points gagnés/, `${form}: a live sale shows its points`);
    t.match(render(live), /Reste dû/, `${form}: and its balance due`);
    t.notMatch(render(voided), /Points gagnés|Points utilisés|Reste dû/, `${form}: a voided one shows neither`);
  }
});

t.test('the chat style, for WhatsApp and SMS, pads nothing: each amount ends its own line, the total is bold', async (t) => {
  const input = receiptInput({ customer: CUSTOMER, sale: { credit_xaf: 2000 } });
  input.sale.items.push(item({ name: LONG_NAME, quantity: 1, unit_price_xaf: 1000 }));
  input.sale.payments.push(payment('carrier1_momo', 1000, { reference: 'MP-9' }), payment('credit', 2000));
  const chat = renderText(input, 'fr', 'chat');
  const lines = chat.split('\n');
  t.same(lines.filter((line) => / {2}/.test(line)), [], 'no run of spaces: nothing lines up by padding');
  for (const expected of ['*Boutique Awa*', 'Reçu n° 1042', 'Espèces : 20 000 FCFA', 'MTN MoMo : 1 000 FCFA', 'Réf. MP-9', 'Monnaie rendue : 2 750 FCFA', '*TOTAL : 17 250 FCFA*', '*Reste dû (compte client) : 2 000 FCFA*', 'Signature du client :', LONG_NAME]) {
    t.ok(lines.includes(expected), expected);
  }
  t.ok(lines[lines.indexOf('Signature du client :') + 1]!.startsWith('....'), 'a dotted line to sign on');
  t.notOk(chat.includes('_'), 'no underscore: WhatsApp would turn what follows into italics');
  t.notOk(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/.test(chat), 'no control character but the line feed');
  t.ok(renderText(input, 'en', 'chat').split('\n').includes('Cash: 20,000 FCFA'), 'English puts no space before the colon');
  t.equal(renderText(input, 'fr'), renderText(input, 'fr', 'fixed'), 'the fixed style stays the default of the renderer');
});
