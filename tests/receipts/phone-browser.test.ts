import { existsSync } from 'node:fs';
import t, { type Test } from 'tap';
import type { Browser, Page } from 'playwright-core';
import { createQuote } from '../quotes/quote-fixtures.ts';
import { createCustomer, sell, setShop } from '../sales/sale-fixtures.ts';
import { png } from '../shop/image-files.ts';
import { createProduct, registerShop } from '../support/fixtures.ts';
import { startService } from '../support/service.ts';

/**
 * The shared pages as a customer's phone shows them (issue 31): the real app over HTTP, the pages
 * opened in headless Chromium at 390 x 844 (an iPhone 12 to 15), measured in the DOM. Nothing scrolls
 * sideways, and the total, the balance due and the PDF button are on the first screen, for a 68-line
 * credit sale with long names and amounts in the billions, a 20-line quote and the receipt page; no
 * sideways scroll from 320 to 414 px either. The measurements are printed (`#` comments) for the
 * issue's closing note. Skipped, with the reason, where there is no Chromium (CHROMIUM_BIN, else
 * /usr/bin/chromium: `apt-get install chromium`).
 */

const CHROMIUM = process.env.CHROMIUM_BIN || '/usr/bin/chromium';
const noChromium = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (install chromium or set CHROMIUM_BIN)`;
const SCREEN = { width: 390, height: 844 };
const NARROW_TO_WIDE = [320, 360, 390, 414];

const api = await startService(t);
const owner = await registerShop(api, { shop_name: 'Quincaillerie Moderne du Port de Douala - Matériaux, Plomberie, Électricité' });
await setShop(api, owner, {
  address: 'Rue Joss, face Immeuble Rond-Point Deido, BP 12345',
  city: 'Douala',
  phone: '+237 699 12 34 56',
  tax_id: 'M051812345678P',
  receipt_footer: `Merci de votre confiance ! Les marchandises vendues ne sont ni reprises ni échangées sans ce reçu.\n${'GARANTIE'.repeat(20)}`,
});
const logoUpload = await fetch(`${api.baseUrl}/api/v1/shop/logo`, {
  method: 'PUT',
  headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'image/png' },
  body: new Uint8Array(png({ width: 600, height: 200 })),
});
if (logoUpload.status !== 200) throw new Error(`logo upload failed: ${logoUpload.status} ${await logoUpload.text()}`);

/** A name of 120 characters without a space, as a supplier's reference pasted into the catalogue. */
const unbroken = (i: number) => `TUYAUPVCPRESSIONPN16DIAMETRE${i}`.padEnd(120, 'X');
const accented = (i: number) => `Câble électrique rigide H07V-U 2,5 mm² bleu, rouleau de 100 m, norme NF, réf. ÉLEC-${1000 + i} (qualité supérieure garantie)`;

/** 68 lines, one in four with an unbroken 120-character name, two of them at 850 000 000 FCFA: a total in the billions. */
async function creditSale(): Promise<{ url: string; receipt_url: string; total: number }> {
  const lines: { product_id: string; quantity: number }[] = [];
  let total = 0;
  for (let i = 0; i < 68; i++) {
    const price = i % 30 === 0 ? 850_000_000 : 1_250 + i * 7_315;
    const product = await createProduct(api, owner.token, { name: i % 4 === 0 ? unbroken(i) : accented(i), price_xaf: price }, 100);
    const quantity = 1 + (i % 3);
    lines.push({ product_id: product.id, quantity });
    total += price * quantity;
  }
  const customer = await createCustomer(api, owner.token, { name: 'Établissements Ngo Bayiha et Fils SARL', credit_ceiling_xaf: 900_000_000_000 });
  const sale = await sell(api, owner.token, {
    customer_id: customer.id,
    items: lines,
    payments: [{ method: 'cash', amount_xaf: 2_000_000 }, { method: 'credit', amount_xaf: total - 2_000_000 }],
  });
  const share = await api.request('POST', `/sales/${sale.id}/share`, { token: owner.token });
  return { ...share.body.data, total: sale.total_xaf };
}

async function quoteLink(): Promise<string> {
  const items = Array.from({ length: 20 }, (_, i) => ({
    name: i % 5 === 0 ? unbroken(i) : accented(i),
    quantity: 1 + (i % 4),
    unit_price_xaf: i === 7 ? 999_000_000 : 4_500 + i * 12_345,
    vat_rate: 19.25,
  }));
  const quote = await createQuote(api, owner.token, { items, note: 'Livraison sur chantier à Bonabéri comprise. Paiement : 50 % à la commande, le solde à la livraison.' });
  return (await api.request('POST', `/quotes/${quote.id}/share`, { token: owner.token })).body.data.url;
}

interface Box {
  top: number;
  bottom: number;
  right: number;
}

interface Measures {
  viewport: number;
  scrollWidth: number;
  /** The right edge of the element reaching furthest right: nothing may be cut off either. */
  widest: number;
  pageHeight: number;
  total: Box | null;
  due: Box | null;
  pdf: Box | null;
}

/**
 * What measure() runs in the page, as text: tsx compiles a function passed to page.evaluate with
 * esbuild's `__name` helper, which the page does not have.
 */
const MEASURE = `(() => {
  const box = (selector) => {
    const element = document.querySelector(selector);
    if (!element) return null;
    const { top, bottom, right } = element.getBoundingClientRect();
    return { top: Math.round(top), bottom: Math.round(bottom), right: Math.round(right) };
  };
  return {
    viewport: window.innerWidth,
    scrollWidth: document.documentElement.scrollWidth,
    widest: Math.round(Math.max(...[...document.querySelectorAll('body *')].map((element) => element.getBoundingClientRect().right))),
    pageHeight: document.documentElement.scrollHeight,
    total: box('#total'),
    due: box('#balance-due'),
    pdf: box('#pdf'),
  };
})()`;

const measure = (page: Page): Promise<Measures> => page.evaluate(MEASURE) as Promise<Measures>;

const described = (m: Measures) =>
  `scrollWidth ${m.scrollWidth}, widest element ends at ${m.widest}, page ${m.pageHeight} px tall` +
  (m.total ? `; total bottom ${m.total.bottom}` : '') +
  (m.due ? `; balance due bottom ${m.due.bottom}` : '') +
  (m.pdf ? `; PDF button ${m.pdf.top}-${m.pdf.bottom}` : '');

let browser: Browser | undefined;
t.teardown(() => browser?.close());

async function open(url: string, width: number, height: number): Promise<Page> {
  if (!browser) {
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  }
  const context = await browser.newContext({ viewport: { width, height }, deviceScaleFactor: 3, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  const answer = await page.goto(url);
  if (answer?.status() !== 200) throw new Error(`${url}: ${answer?.status()}`);
  return page;
}

/** The page at 390 x 844 and its first screen, then its width from 320 to 414 px. */
async function checkPage(t: Test, name: string, url: string, firstScreen: { due?: boolean; pdf: boolean; total: boolean }): Promise<void> {
  const page = await open(url, SCREEN.width, SCREEN.height);
  const m = await measure(page);
  t.comment(`${name} at ${SCREEN.width} x ${SCREEN.height}: ${described(m)}`);
  t.ok(m.scrollWidth <= SCREEN.width, `${name}: nothing scrolls sideways (scrollWidth ${m.scrollWidth})`);
  t.ok(m.widest <= SCREEN.width, `${name}: no element past the right edge (${m.widest})`);
  if (firstScreen.total) t.ok(m.total && m.total.bottom <= SCREEN.height, `${name}: the total on the first screen (bottom ${m.total?.bottom})`);
  if (firstScreen.due) t.ok(m.due && m.due.bottom <= SCREEN.height, `${name}: the balance due on the first screen (bottom ${m.due?.bottom})`);
  if (firstScreen.pdf) {
    t.ok(m.pdf && m.pdf.bottom <= SCREEN.height, `${name}: the PDF button on the first screen (bottom ${m.pdf?.bottom})`);
    t.ok(await page.locator('#pdf').isVisible(), `${name}: the PDF button is visible`);
  }
  await page.context().close();
  for (const width of NARROW_TO_WIDE) {
    const narrow = await open(url, width, SCREEN.height);
    const at = await measure(narrow);
    t.comment(`${name} at ${width} px: ${described(at)}`);
    t.ok(at.scrollWidth <= width && at.widest <= width, `${name} at ${width} px: nothing scrolls sideways (${at.scrollWidth}, ${at.widest})`);
    await narrow.context().close();
  }
}

t.test('a 68-line credit sale with long names and a total in the billions: no sideways scroll; total, balance due and PDF button on the first screen', { skip: noChromium }, async (t) => {
  const sale = await creditSale();
  t.ok(sale.total > 1_000_000_000, `a total of ${sale.total} FCFA`);
  await checkPage(t, 'sale page', sale.url, { total: true, due: true, pdf: true });
  await checkPage(t, 'sale page in English', `${sale.url}?locale=en`, { total: true, due: true, pdf: true });
});

t.test('a 20-line quote: no sideways scroll; total and PDF button on the first screen', { skip: noChromium }, async (t) => {
  await checkPage(t, 'quote page', await quoteLink(), { total: true, pdf: true });
});

t.test('the receipt page of the 68-line sale: no sideways scroll, 32 columns on any phone', { skip: noChromium }, async (t) => {
  const sale = await creditSale();
  await checkPage(t, 'receipt page', sale.receipt_url, { total: false, pdf: false });
});
