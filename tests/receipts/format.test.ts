import t from 'tap';
import { DEFAULT_PAYMENT_LABELS } from '../../api/lib/payment-labels.ts';
import { cameroonVatParts, cleanText, formatDateTime, formatQuantity, formatRate, formatXaf, LABELS, lineGross, row, vatRateLabel, wrap } from '../../api/receipts/format.ts';
import { SaleMethod } from '../../api/sales/schemas.ts';
import { LONG_NAME } from './receipt-fixtures.ts';

t.test('amounts are grouped by three with a plain space in French, no decimals, and read FCFA', async (t) => {
  t.equal(formatXaf(12500, 'fr'), '12 500 FCFA');
  t.equal(formatXaf(0, 'fr'), '0 FCFA');
  t.equal(formatXaf(-1500, 'fr'), '-1 500 FCFA');
  t.equal(formatXaf(999, 'fr'), '999 FCFA');
  t.equal(formatXaf(1000, 'fr'), '1 000 FCFA');
  t.equal(formatXaf(1234567000, 'fr'), '1 234 567 000 FCFA');
  t.notOk(/[\u00a0\u202f]/.test(formatXaf(1000000, 'fr')), 'the grouping space is a plain space');
});

t.test('the English locale groups amounts with a comma', async (t) => {
  t.equal(formatXaf(149750, 'en'), '149,750 FCFA');
  t.equal(formatXaf(999, 'en'), '999 FCFA');
  t.equal(formatXaf(-1500, 'en'), '-1,500 FCFA');
  t.equal(formatXaf(1234567000, 'en'), '1,234,567,000 FCFA');
  t.equal(formatXaf(0, 'en'), '0 FCFA');
});

t.test('quantities keep at most 3 decimals and no trailing zeros, comma in French and point in English', async (t) => {
  t.equal(formatQuantity(2, 'fr'), '2');
  t.equal(formatQuantity(1.5, 'fr'), '1,5');
  t.equal(formatQuantity(1.5, 'en'), '1.5');
  t.equal(formatQuantity(0.125, 'fr'), '0,125');
  t.equal(formatQuantity(2.1, 'en'), '2.1');
  t.equal(formatQuantity(1.25, 'fr'), '1,25');
  t.equal(formatQuantity(0.1 + 0.2, 'en'), '0.3', 'binary floating point does not show');
  t.equal(formatQuantity(1234.567, 'fr'), '1 234,567');
  t.equal(formatQuantity(1234.5, 'en'), '1,234.5', 'English groups with a comma and takes a decimal point');
  t.equal(formatQuantity(1234.5, 'fr'), '1 234,5');
  t.equal(formatQuantity(-2, 'en'), '-2');
});

t.test('VAT rates read 19,25 % in French and 19.25% in English', async (t) => {
  t.equal(formatRate(19.25, 'fr'), '19,25 %');
  t.equal(formatRate(19.25, 'en'), '19.25%');
  t.equal(formatRate(0, 'fr'), '0 %');
  t.equal(formatRate(5.5, 'en'), '5.5%');
});

t.test('documents print an exempt rate as Exonéré / Exempt, never 0 %, and any other rate as it reads', async (t) => {
  t.equal(vatRateLabel(0, 'fr'), 'Exonéré');
  t.equal(vatRateLabel(0, 'en'), 'Exempt');
  t.equal(vatRateLabel(19.25, 'fr'), '19,25 %');
  t.equal(vatRateLabel(5.5, 'en'), '5.5%');
});

t.test('a 19.25 % VAT splits into its 17.5 % VAT and its CAC (10 % of that VAT), the CAC rounded half away from zero and the parts summing to the whole', async (t) => {
  t.same(cameroonVatParts(2542), { vat_xaf: 2311, cac_xaf: 231 }, '2 542 / 11 = 231.09');
  t.same(cameroonVatParts(1925), { vat_xaf: 1750, cac_xaf: 175 }, 'exact: 10 000 of base');
  t.same(cameroonVatParts(6), { vat_xaf: 5, cac_xaf: 1 }, '6 / 11 = 0.55 rounds up');
  t.same(cameroonVatParts(5), { vat_xaf: 5, cac_xaf: 0 }, '5 / 11 = 0.45 rounds down');
  t.same(cameroonVatParts(-6), { vat_xaf: -5, cac_xaf: -1 }, 'a negative VAT rounds away from zero too');
  t.same(cameroonVatParts(0), { vat_xaf: 0, cac_xaf: 0 });
  for (let vat = 0; vat <= 5000; vat += 7) {
    const parts = cameroonVatParts(vat);
    if (parts.vat_xaf + parts.cac_xaf !== vat || Math.abs(parts.cac_xaf - vat / 11) > 0.5) t.fail(`${vat} splits into ${JSON.stringify(parts)}`);
  }
  t.pass('every VAT from 0 to 5 000 by 7 splits into two parts summing to it, the CAC within half a franc of VAT / 11');
});

t.test('dates are day/month/year and 24-hour time in the shop\'s time zone', async (t) => {
  t.equal(formatDateTime('2026-11-21T13:05:00Z', 'Africa/Douala'), '21/11/2026 14:05', 'Douala is UTC+1');
  t.equal(formatDateTime('2026-11-21T13:05:00Z', 'Africa/Abidjan'), '21/11/2026 13:05', 'Abidjan is UTC');
  t.equal(formatDateTime('2026-11-21T23:30:00Z', 'Africa/Douala'), '22/11/2026 00:30', 'the day follows the shop\'s clock');
  t.equal(formatDateTime('2026-01-05T08:00:00Z', 'No/Such_Zone'), '05/01/2026 08:00', 'an unknown zone prints UTC rather than failing');
});

t.test('a line total is round(quantity x unit price), half away from zero', async (t) => {
  t.equal(lineGross(2, 2500), 5000);
  t.equal(lineGross(1.5, 3), 5, '4.5 rounds up');
  t.equal(lineGross(0.125, 4), 1, '0.5 rounds up');
  t.equal(lineGross(-1.5, 3), -5, '-4.5 rounds away from zero');
  t.equal(lineGross(1.005, 1000), 1005, 'no binary drift on three decimals');
  t.equal(lineGross(0.333, 1000000), 333000);
});

t.test('a 120-character product name wraps onto lines of at most 32 columns, keeping every word in order', async (t) => {
  t.equal([...LONG_NAME].length, 120);
  for (const width of [32, 48]) {
    const lines = wrap(LONG_NAME, width);
    t.ok(lines.length >= Math.ceil(120 / width), `${lines.length} lines at ${width} columns`);
    t.ok(lines.every((line) => [...line].length <= width), `no line over ${width} columns`);
    t.equal(lines.join(' '), LONG_NAME, 'the words, in order, with nothing lost');
  }
});

t.test('wrapping keeps a number\'s digit groups, a phone number and what a lone slash joins on one line', async (t) => {
  t.same(wrap('Prix 12 500 FCFA', 10), ['Prix', '12 500', 'FCFA'], 'a number by its groups');
  t.same(wrap('Tél. +237 677 12 34 56', 20), ['Tél.', '+237 677 12 34 56'], 'a phone number');
  t.same(wrap('Poids 1 234,5 kg', 12), ['Poids', '1 234,5 kg'], 'a decimal number');
  t.same(wrap('Livré en 12 / m', 12), ['Livré en', '12 / m'], 'a number, its slash and its unit');
  t.same(wrap('Riz 5 kg et 2 sacs de 50 kg', 12), ['Riz 5 kg et', '2 sacs de 50', 'kg'], 'words between numbers still break');
});

t.test('a word longer than the line is cut across lines', async (t) => {
  const lines = wrap(`Ref ${'X'.repeat(70)} fin`, 32);
  t.ok(lines.every((line) => line.length <= 32));
  t.equal(lines.join('').replace(/ /g, ''), `Ref${'X'.repeat(70)}fin`);
});

t.test('a label and its amount share a line with the amount right-aligned, else the amount takes its own line', async (t) => {
  t.same(row('Total', '17 250 FCFA', 32), ['Total                17 250 FCFA']);
  t.equal(row('Total', '17 250 FCFA', 32)[0]!.length, 32);
  const long = row('  1 234,567 x 1 000 000 FCFA', '1 234 567 000 FCFA', 32);
  t.equal(long.length, 2);
  t.ok(long[1]!.endsWith('1 234 567 000 FCFA') && long[1]!.length === 32, 'the amount alone, right-aligned');
  const wrapped = row(LONG_NAME, '5 FCFA', 32);
  t.ok(wrapped.every((line) => line.length <= 32));
  t.ok(wrapped[wrapped.length - 1]!.endsWith(' 5 FCFA'), 'on the label\'s last line when it fits');
});

t.test('text is cleaned of control characters and odd spaces, with accents composed', async (t) => {
  t.equal(cleanText('Cafe\u0301\tnoir\u001b@ \u00a0 x'), 'Café noir @ x');
  t.equal(cleanText('Cafe\u0301').length, 4, 'é is one character');
});

t.test('every label exists in both languages and payment methods have their names', async (t) => {
  const keys = Object.keys(LABELS.fr).sort();
  t.same(Object.keys(LABELS.en).sort(), keys);
  for (const locale of ['fr', 'en'] as const) {
    for (const key of keys) {
      const value = LABELS[locale][key as keyof (typeof LABELS)['fr']];
      if (typeof value === 'string') t.ok(value.length > 0, `${locale}.${key}`);
    }
    t.same(Object.keys(DEFAULT_PAYMENT_LABELS[locale]).sort(), [...SaleMethod.options].sort(), `${locale}: every payment method`);
  }
  t.same(DEFAULT_PAYMENT_LABELS.fr, { cash: 'Espèces', carrier1_momo: 'MTN MoMo', carrier2_money: 'Orange Money', card: 'Carte bancaire', bank: 'Virement bancaire', credit: 'Compte client' });
  t.same(DEFAULT_PAYMENT_LABELS.en, { cash: 'Cash', carrier1_momo: 'MTN MoMo', carrier2_money: 'Orange Money', card: 'Card', bank: 'Bank transfer', credit: 'Customer account' });
  t.equal(LABELS.fr.vat, 'TVA');
  t.equal(LABELS.en.vat, 'VAT');
  t.equal(LABELS.fr.change, 'Monnaie rendue');
  t.equal(LABELS.en.change, 'Change');
  t.equal(LABELS.fr.cashier, 'Caissier');
  t.equal(LABELS.en.customerCredit, 'Customer credit');
  t.same([LABELS.fr.days(0), LABELS.fr.days(30), LABELS.en.days(0), LABELS.en.days(30)], ['comptant', '30 jours', 'cash', '30 days'], 'payment terms, 0 days being cash');
  t.same(LABELS.fr.approvalLines, ['Date :', 'Nom, signature et cachet du client :']);
  t.same(LABELS.en.approvalLines, ['Date:', 'Customer\'s name, signature and stamp:']);
});
