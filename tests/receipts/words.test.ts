import t, { type Test } from 'tap';
import { closingInWords, MAX_IN_WORDS, numberInWords, xafInWords } from '../../api/receipts/words.ts';

const table = (t: Test, locale: 'fr' | 'en', rows: [number, string][]) => {
  for (const [n, words] of rows) t.equal(numberInWords(n, locale), words, `${n}`);
};

t.test('French numbers below a hundred: "et un" in 21 to 71, hyphens elsewhere, seventy and ninety built on sixty and eighty', async (t) => {
  table(t, 'fr', [
    [0, 'zéro'], [1, 'un'], [7, 'sept'], [10, 'dix'], [11, 'onze'], [16, 'seize'], [17, 'dix-sept'], [19, 'dix-neuf'],
    [20, 'vingt'], [21, 'vingt et un'], [22, 'vingt-deux'], [30, 'trente'], [31, 'trente et un'], [36, 'trente-six'],
    [41, 'quarante et un'], [51, 'cinquante et un'], [61, 'soixante et un'], [69, 'soixante-neuf'],
    [70, 'soixante-dix'], [71, 'soixante et onze'], [72, 'soixante-douze'], [77, 'soixante-dix-sept'], [79, 'soixante-dix-neuf'],
    [80, 'quatre-vingts'], [81, 'quatre-vingt-un'], [88, 'quatre-vingt-huit'], [90, 'quatre-vingt-dix'], [91, 'quatre-vingt-onze'], [99, 'quatre-vingt-dix-neuf'],
  ]);
});

t.test('French hundreds: cent alone, "deux cents" with an s only at the end, "deux cent un"', async (t) => {
  table(t, 'fr', [
    [100, 'cent'], [101, 'cent un'], [121, 'cent vingt et un'], [180, 'cent quatre-vingts'], [200, 'deux cents'], [201, 'deux cent un'],
    [280, 'deux cent quatre-vingts'], [600, 'six cents'], [999, 'neuf cent quatre-vingt-dix-neuf'],
  ]);
});

t.test('French thousands: mille is invariable, never "un mille", and makes cent and quatre-vingt lose their s', async (t) => {
  table(t, 'fr', [
    [1000, 'mille'], [1001, 'mille un'], [1100, 'mille cent'], [2000, 'deux mille'], [21_000, 'vingt et un mille'],
    [36_600, 'trente-six mille six cents'], [80_000, 'quatre-vingt mille'], [81_000, 'quatre-vingt-un mille'],
    [200_000, 'deux cent mille'], [200_200, 'deux cent mille deux cents'], [149_750, 'cent quarante-neuf mille sept cent cinquante'],
    [999_999, 'neuf cent quatre-vingt-dix-neuf mille neuf cent quatre-vingt-dix-neuf'],
  ]);
});

t.test('French millions and milliards are nouns: "un million", "deux millions", "quatre-vingts millions", "deux cents milliards"', async (t) => {
  table(t, 'fr', [
    [1_000_000, 'un million'], [1_000_001, 'un million un'], [2_000_000, 'deux millions'], [2_500_000, 'deux millions cinq cent mille'],
    [80_000_000, 'quatre-vingts millions'], [200_000_000, 'deux cents millions'], [201_000_000, 'deux cent un millions'],
    [1_000_000_000, 'un milliard'], [3_000_000_000, 'trois milliards'], [200_000_000_000, 'deux cents milliards'],
    [1_001_001_001, 'un milliard un million mille un'],
    [999_999_999_999, 'neuf cent quatre-vingt-dix-neuf milliards neuf cent quatre-vingt-dix-neuf millions neuf cent quatre-vingt-dix-neuf mille neuf cent quatre-vingt-dix-neuf'],
    [1_000_000_000_000, 'un billion'],
  ]);
});

t.test('English numbers are hyphenated from twenty-one to ninety-nine and use the short scale, without "and"', async (t) => {
  table(t, 'en', [
    [0, 'zero'], [1, 'one'], [13, 'thirteen'], [19, 'nineteen'], [20, 'twenty'], [21, 'twenty-one'], [40, 'forty'], [99, 'ninety-nine'],
    [100, 'one hundred'], [101, 'one hundred one'], [110, 'one hundred ten'], [999, 'nine hundred ninety-nine'],
    [1000, 'one thousand'], [36_600, 'thirty-six thousand six hundred'], [149_750, 'one hundred forty-nine thousand seven hundred fifty'],
    [1_000_000, 'one million'], [2_000_021, 'two million twenty-one'], [1_000_000_000, 'one billion'],
    [999_999_999_999, 'nine hundred ninety-nine billion nine hundred ninety-nine million nine hundred ninety-nine thousand nine hundred ninety-nine'],
    [1_000_000_000_000, 'one trillion'],
  ]);
});

t.test('an amount in words reads francs CFA in French and CFA francs in English, with "de" after a bare million', async (t) => {
  t.equal(xafInWords(36_600, 'fr'), 'trente-six mille six cents francs CFA');
  t.equal(xafInWords(36_600, 'en'), 'thirty-six thousand six hundred CFA francs');
  t.equal(xafInWords(1, 'fr'), 'un franc CFA');
  t.equal(xafInWords(0, 'fr'), 'zéro franc CFA');
  t.equal(xafInWords(1, 'en'), 'one CFA franc');
  t.equal(xafInWords(0, 'en'), 'zero CFA francs');
  t.equal(xafInWords(1_000_000, 'fr'), 'un million de francs CFA');
  t.equal(xafInWords(3_000_000_000, 'fr'), 'trois milliards de francs CFA');
  t.equal(xafInWords(1_000_100, 'fr'), 'un million cent francs CFA');
  t.equal(xafInWords(-1500, 'fr'), 'moins mille cinq cents francs CFA');
});

t.test('the closing sentence of an invoice, an invoice after its credit notes, a quote and a credit note, in both languages', async (t) => {
  t.equal(closingInWords(36_600, 'invoice', 'fr'), 'Arrêtée la présente facture à la somme de trente-six mille six cents francs CFA.');
  t.equal(closingInWords(36_600, 'invoice', 'en'), 'Amount of this invoice in words: thirty-six thousand six hundred CFA francs.');
  t.equal(closingInWords(36_600, 'invoice_net', 'fr'), 'Arrêtée la présente facture, déduction faite des avoirs, à la somme de trente-six mille six cents francs CFA.');
  t.equal(closingInWords(36_600, 'invoice_net', 'en'), 'Amount of this invoice after credit notes in words: thirty-six thousand six hundred CFA francs.');
  t.equal(closingInWords(36_600, 'quote', 'fr'), 'Arrêté le présent devis à la somme de trente-six mille six cents francs CFA.');
  t.equal(closingInWords(36_600, 'quote', 'en'), 'Amount of this proforma invoice in words: thirty-six thousand six hundred CFA francs.');
  t.equal(closingInWords(1_500, 'credit_note', 'fr'), 'Arrêté le présent avoir à la somme de mille cinq cents francs CFA.');
  t.equal(closingInWords(1_500, 'credit_note', 'en'), 'Amount of this credit note in words: one thousand five hundred CFA francs.');
});

t.test('a number that is not a whole number within range is refused rather than misspelt', async (t) => {
  t.throws(() => numberInWords(1.5, 'fr'), RangeError);
  t.throws(() => numberInWords(MAX_IN_WORDS + 1, 'en'), RangeError);
  t.throws(() => numberInWords(Number.NaN, 'fr'), RangeError);
  t.equal(numberInWords(MAX_IN_WORDS, 'fr').split(' ')[0], 'neuf');
});
