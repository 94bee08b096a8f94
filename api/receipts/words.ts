/**
 * An amount in words, as OHADA invoices close: "Arrêtée la présente facture à la somme de
 * trente-six mille six cents francs CFA."
 *
 * French follows the traditional spelling (not the 1990 one that hyphenates everything): "et"
 * before un and onze in 21 to 71 ("vingt et un", "soixante et onze", but "quatre-vingt-un"),
 * "quatre-vingts" and "deux cents" take an s only when they end the number or stand before
 * million or milliard (nouns), never before mille (invariable, and never "un mille"). English
 * hyphenates 21 to 99 ("twenty-one") and uses the short scale with no "and", as on a cheque.
 */
import type { ReceiptLocale } from './format.ts';

/** Up to 999 999 999 999 999: far beyond any amount a shop writes. */
export const MAX_IN_WORDS = 999_999_999_999_999;

const FR_UNITS = ['zéro', 'un', 'deux', 'trois', 'quatre', 'cinq', 'six', 'sept', 'huit', 'neuf', 'dix', 'onze', 'douze', 'treize', 'quatorze', 'quinze', 'seize'];
const FR_TENS = ['', 'dix', 'vingt', 'trente', 'quarante', 'cinquante', 'soixante'];

/** 1 to 99; `final` is false when a multiplier (mille, million...) follows. */
function frBelowHundred(n: number, final: boolean): string {
  if (n <= 16) return FR_UNITS[n]!;
  if (n < 20) return `dix-${FR_UNITS[n - 10]}`;
  if (n < 70) {
    const [tens, unit] = [Math.floor(n / 10), n % 10];
    if (unit === 0) return FR_TENS[tens]!;
    return unit === 1 ? `${FR_TENS[tens]} et un` : `${FR_TENS[tens]}-${FR_UNITS[unit]}`;
  }
  if (n < 80) return n === 71 ? 'soixante et onze' : `soixante-${frBelowHundred(n - 60, true)}`;
  if (n === 80) return final ? 'quatre-vingts' : 'quatre-vingt';
  return `quatre-vingt-${frBelowHundred(n - 80, true)}`;
}

/** 1 to 999. */
function frBelowThousand(n: number, final: boolean): string {
  const [hundreds, rest] = [Math.floor(n / 100), n % 100];
  if (hundreds === 0) return frBelowHundred(rest, final);
  const cent = hundreds === 1 ? 'cent' : `${FR_UNITS[hundreds]} cent${rest === 0 && final ? 's' : ''}`;
  return rest === 0 ? cent : `${cent} ${frBelowHundred(rest, final)}`;
}

function french(n: number): string {
  if (n === 0) return 'zéro';
  const parts: string[] = [];
  const scales: [number, string, string][] = [
    [1e12, 'billion', 'billions'],
    [1e9, 'milliard', 'milliards'],
    [1e6, 'million', 'millions'],
  ];
  let rest = n;
  for (const [size, one, many] of scales) {
    const count = Math.floor(rest / size);
    rest %= size;
    // Million and milliard are nouns: "quatre-vingts millions", "deux cents milliards".
    if (count) parts.push(`${frBelowThousand(count, true)} ${count === 1 ? one : many}`);
  }
  const thousands = Math.floor(rest / 1000);
  rest %= 1000;
  if (thousands) parts.push(thousands === 1 ? 'mille' : `${frBelowThousand(thousands, false)} mille`);
  if (rest) parts.push(frBelowThousand(rest, true));
  return parts.join(' ');
}

const EN_UNITS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen'];
const EN_TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];

function enBelowThousand(n: number): string {
  const [hundreds, rest] = [Math.floor(n / 100), n % 100];
  const words: string[] = [];
  if (hundreds) words.push(`${EN_UNITS[hundreds]} hundred`);
  if (rest >= 20) words.push(rest % 10 ? `${EN_TENS[Math.floor(rest / 10)]}-${EN_UNITS[rest % 10]}` : EN_TENS[Math.floor(rest / 10)]!);
  else if (rest) words.push(EN_UNITS[rest]!);
  return words.join(' ');
}

function english(n: number): string {
  if (n === 0) return 'zero';
  const parts: string[] = [];
  let rest = n;
  for (const [size, name] of [[1e12, 'trillion'], [1e9, 'billion'], [1e6, 'million'], [1e3, 'thousand']] as const) {
    const count = Math.floor(rest / size);
    rest %= size;
    if (count) parts.push(`${enBelowThousand(count)} ${name}`);
  }
  if (rest) parts.push(enBelowThousand(rest));
  return parts.join(' ');
}

/** A whole number in words: `trente-six mille six cents`, `thirty-six thousand six hundred`. */
export function numberInWords(n: number, locale: ReceiptLocale): string {
  if (!Number.isSafeInteger(n) || Math.abs(n) > MAX_IN_WORDS) throw new RangeError(`${n} cannot be written in words`);
  const words = locale === 'fr' ? french(Math.abs(n)) : english(Math.abs(n));
  return n < 0 ? `${locale === 'fr' ? 'moins' : 'minus'} ${words}` : words;
}

/** An amount of XAF in words: `deux millions de francs CFA`, `un franc CFA`, `one CFA franc`. */
export function xafInWords(amount: number, locale: ReceiptLocale): string {
  const words = numberInWords(amount, locale);
  if (locale === 'en') return `${words} ${Math.abs(amount) === 1 ? 'CFA franc' : 'CFA francs'}`;
  // "un million de francs", but "un million cent francs": "de" follows a bare million or milliard.
  const of = /(?:millions?|milliards?|billions?)$/.test(words) ? ' de' : '';
  // French keeps the singular below two: "zéro franc", "un franc".
  return `${words}${of} ${Math.abs(amount) < 2 ? 'franc CFA' : 'francs CFA'}`;
}

/** The sentence that closes an invoice, a quote or a credit note (avoir) with its total in words. */
export function closingInWords(total_xaf: number, document: 'invoice' | 'invoice_net' | 'quote' | 'credit_note', locale: ReceiptLocale): string {
  const sum = xafInWords(total_xaf, locale);
  if (locale === 'fr') {
    const closed = {
      invoice: 'Arrêtée la présente facture',
      invoice_net: 'Arrêtée la présente facture, déduction faite des avoirs,',
      quote: 'Arrêté le présent devis',
      credit_note: 'Arrêté le présent avoir',
    }[document];
    return `${closed} à la somme de ${sum}.`;
  }
  const what = { invoice: 'this invoice', invoice_net: 'this invoice after credit notes', quote: 'this proforma invoice', credit_note: 'this credit note' }[document];
  return `Amount of ${what} in words: ${sum}.`;
}
