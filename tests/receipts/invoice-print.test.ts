import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import t from 'tap';
import { renderInvoice, type InvoiceFormat } from '../../api/receipts/invoice.ts';
import type { ReceiptInput } from '../../api/sales/schemas.ts';
import { CUSTOMER, item, payment, receiptInput } from './receipt-fixtures.ts';

/**
 * The invoice printed for real: headless Chromium prints it to PDF, the pages are counted and each
 * page's text read back (pdftotext, from poppler-utils, when installed). Skipped, with the reason,
 * on a machine without Chromium (CI does not install it); run it where it is:
 * `apt-get install chromium poppler-utils`, or point CHROMIUM_BIN at a Chrome or Chromium.
 */

const run = promisify(execFile);

function onPath(names: string[]): string | null {
  for (const name of names) {
    for (const dir of (process.env.PATH ?? '').split(delimiter)) {
      if (dir && existsSync(join(dir, name))) return join(dir, name);
    }
  }
  return null;
}

const chromium = process.env.CHROMIUM_BIN || onPath(['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable']);
const pdftotext = onPath(['pdftotext']);
const noChromium = chromium ? false : 'no Chromium found (install chromium or set CHROMIUM_BIN)';
const noPdftotext = pdftotext ? false : 'no pdftotext found (install poppler-utils)';

const work = mkdtempSync(join(tmpdir(), 'invoice-print-'));
t.teardown(() => rmSync(work, { recursive: true, force: true }));

/** A credit sale of `count` lines with a named business customer (its invoice prints no points), two payments, change and a balance due, from a shop with every legal mention, payment details and terms. */
function invoiceOf(count: number): ReceiptInput {
  const input = receiptInput({ customer: { ...CUSTOMER, tax_id: 'M051812345678P', address: 'Rue Joss, Akwa, Douala' }, sale: { credit_xaf: 3000 } });
  Object.assign(input.shop, {
    trade_register_no: 'RC/DLA/2019/B/1234',
    legal_form: 'SARL',
    share_capital_xaf: 1_000_000,
    tax_regime: 'Simplifié',
    tax_centre: 'CDI Douala Akwa',
    bank_details: 'Afriland First Bank, RIB 10005 00001 01234567890 12',
    momo_merchant_no: 'MTN MoMo marchand 456789',
    payment_terms_days: 30,
  });
  input.sale.items = Array.from({ length: count }, (_, i) =>
    item({ line_no: i + 1, name: `Huile de palme raffinée 1 L, réf. ${1000 + i}`, quantity: 1 + (i % 3), unit_price_xaf: 1500 + i * 25, discount_xaf: i % 4 === 0 ? 100 : 0 }),
  );
  input.sale.payments.push(payment('carrier1_momo', 1000, { reference: 'MP-77' }), payment('credit', 3000));
  return input;
}

let printed = 0;

let browser: Browser | undefined;
t.teardown(() => browser?.close());

async function printer(): Promise<Browser> {
  if (!browser) {
    const { chromium: playwright } = await import('playwright-core');
    browser = await playwright.launch({
      executablePath: chromium as string,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  }
  return browser;
}

/** The invoice as Chromium prints it: the number of pages, and each page's text when pdftotext is there. */
async function print(input: ReceiptInput, format: InvoiceFormat, locale: 'fr' | 'en' = 'fr'): Promise<{ pages: number; texts: string[] }> {
  const name = join(work, `invoice-${++printed}`);
  writeFileSync(`${name}.html`, renderInvoice(input, format, locale));
  // One browser for every print (a Chromium started per print cost 2 to 4 s each): the page printed as
  // Chrome's print dialogue would, its own @page size and margin boxes, no header or footer of Chrome's.
  const page = await (await printer()).newPage();
  try {
    await page.goto(`file://${name}.html`);
    await page.pdf({ path: `${name}.pdf`, preferCSSPageSize: true, displayHeaderFooter: false, printBackground: true });
  } finally {
    await page.close();
  }
  const pdf = readFileSync(`${name}.pdf`).toString('latin1');
  const pages = (pdf.match(/\/Type\s*\/Page(?![a-z])/g) ?? []).length;
  const texts: string[] = [];
  if (pdftotext) {
    for (let page = 1; page <= pages; page++) {
      const { stdout } = await run(pdftotext, ['-f', String(page), '-l', String(page), '-layout', `${name}.pdf`, '-']);
      texts.push(stdout.replace(/\s+/g, ' '));
    }
  }
  return { pages, texts };
}

/** The page a text is printed on (1-based), or 0. */
const pageOf = (texts: string[], text: string) => texts.findIndex((page) => page.includes(text)) + 1;

t.test('a 12-line invoice prints on one page, A4 and A3', { skip: noChromium }, async (t) => {
  t.equal((await print(invoiceOf(12), 'a4')).pages, 1, 'A4');
  t.equal((await print(invoiceOf(12), 'a3')).pages, 1, 'A3');
});

t.test('up to 30 lines fit one A4 page, with the header, totals, VAT breakdown, total in words, payments and signature', { skip: noChromium }, async (t) => {
  const a4 = await print(invoiceOf(30), 'a4');
  t.equal(a4.pages, 1, 'A4');
  t.equal((await print(invoiceOf(30), 'a3')).pages, 1, 'A3');
  if (pdftotext) {
    for (const text of ['Facture n° 1042', 'réf. 1029', 'Total TTC', 'dont CAC 10 % (de la TVA)', 'Arrêtée la présente facture', 'Reste dû (compte client)', 'Signature du client', 'Merci de votre visite !', 'Page 1 / 1']) {
      t.equal(pageOf(a4.texts, text), 1, text);
    }
  }
});

t.test('a long invoice repeats the header row and shows the invoice number and "page x / y" on every page', { skip: noChromium || noPdftotext }, async (t) => {
  for (const [format, locale, header, number] of [
    ['a4', 'fr', 'Désignation', 'Facture n° 1042'],
    ['a3', 'fr', 'Désignation', 'Facture n° 1042'],
    ['a4', 'en', 'Item', 'Invoice no. 1042'],
  ] as const) {
    const { pages, texts } = await print(invoiceOf(80), format, locale);
    t.ok(pages >= 2, `${format} ${locale}: 80 lines take ${pages} pages`);
    if (format === 'a4') t.ok(pages <= 3, `${format}: at most 3 pages for 80 lines`);
    texts.forEach((text, index) => {
      t.ok(text.includes(`Boutique Awa - ${number}`), `${format} ${locale}, page ${index + 1}: the invoice number`);
      t.ok(text.includes(`Page ${index + 1} / ${pages}`), `${format} ${locale}, page ${index + 1}: Page ${index + 1} / ${pages}`);
      t.ok(text.includes(`# ${header}`), `${format} ${locale}, page ${index + 1}: the lines' header row`);
    });
  }
});

t.test('no block is split across pages: totals, VAT breakdown, payments, the signature box', { skip: noChromium || noPdftotext }, async (t) => {
  // Line counts that push the blocks around the page break, one of them onto the next page.
  for (const count of [34, 36, 38, 40, 42, 44]) {
    const { texts } = await print(invoiceOf(count), 'a4');
    const together = (first: string, last: string, what: string) => {
      const [a, b] = [pageOf(texts, first), pageOf(texts, last)];
      t.ok(a > 0 && a === b, `${count} lines, ${what}: "${first}" on page ${a}, "${last}" on page ${b}`);
    };
    together('Détail de la TVA', 'dont CAC 10 %', 'the VAT breakdown');
    together('Montant brut TTC', 'Total TTC', 'the totals');
    together('Paiements', 'Reste dû (compte client)', 'the payments');
    together('MTN MoMo', 'Monnaie rendue', 'the payments and the settlement');
    together('Règlement', 'Signature du client', 'the payment details and the signature box, side by side');
  }
});
