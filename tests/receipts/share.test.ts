import { createHmac, randomUUID } from 'node:crypto';
import t, { type Test } from 'tap';
import { deriveSecret } from '../../api/lib/secrets.ts';
import { INVOICE_CSP } from '../../api/receipts/schemas.ts';
import { newShareToken } from '../../api/receipts/share.ts';
import { cash, convert, createQuote, deleteQuote, freeLine } from '../quotes/quote-fixtures.ts';
import { openShift, sell, staffedShop, voidSale } from '../sales/sale-fixtures.ts';
import { createProduct, registerShop, type ShopFixture } from '../support/fixtures.ts';
import { EN, FR } from '../support/replies.ts';
import { startService, type Reply } from '../support/service.ts';
import { qrData, readEscPos, visibleText } from './receipt-fixtures.ts';

/**
 * Shared links (issue 31): a short random token stored with its shop, its sale or quote and its
 * expiry, opening a page for a phone, the PDF, the receipt as a page and the printable page, with no
 * credentials; every link that should not open answers the same 404.
 */

const api = await startService(t);
const appKey = api.runtime.appKey;
const DAY_MS = 86_400_000;
const SHORT_TOKEN = /^[0-9A-Za-z]{12}$/;

async function saleOf(shop: ShopFixture, token = shop.token): Promise<any> {
  const product = await createProduct(api, shop.token, { price_xaf: 2500 }, 10);
  return sell(api, token, { items: [{ product_id: product.id, quantity: 2 }], payments: [{ method: 'cash', amount_xaf: 5000 }] });
}

const share = (token: string, saleId: string): Promise<Reply> => api.request('POST', `/sales/${saleId}/share`, { token });

async function linkOf(token: string, saleId: string): Promise<{ url: string; pdf_url: string; receipt_url: string; invoice_url: string; expires_at: string }> {
  const reply = await share(token, saleId);
  if (reply.status !== 201) throw new Error(`share failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

/** A shared address, opened with no credentials at all. */
const open = (url: string) => api.raw('GET', new URL(url, api.baseUrl).pathname + new URL(url, api.baseUrl).search);

const tokenOf = (url: string) => new URL(url).pathname.split('/')[2]!;

/** Every public address of a token: the short ones, and those under /api/v1 that client developers use. */
const addressesOf = (token: string) => {
  const path = encodeURIComponent(token);
  return [`/s/${path}`, `/s/${path}/pdf`, `/s/${path}/receipt`, `/s/${path}/print`, `/api/v1/shared/${path}/invoice`, `/api/v1/shared/${path}/receipt/text`];
};

async function expectGone(t: Test, token: string, what: string, addresses = addressesOf(token)): Promise<void> {
  for (const address of addresses) {
    const reply = await api.raw('GET', address);
    t.equal(reply.status, 404, `${what}: ${address} is a 404`);
    t.same(reply.body, EN.NOT_FOUND, `${what}: the plain not_found, which says nothing more`);
  }
}

/** A link of the signed form made until short links (`<payload>.<signature>`), as a customer's phone may still hold one. */
function signedToken(key: string, shopId: string, saleId: string, expiresAt: Date): string {
  const payload = Buffer.alloc(36);
  Buffer.from(shopId.replace(/-/g, ''), 'hex').copy(payload, 0);
  Buffer.from(saleId.replace(/-/g, ''), 'hex').copy(payload, 16);
  payload.writeUInt32BE(Math.floor(expiresAt.getTime() / 1000), 32);
  const text = payload.toString('base64url');
  return `${text}.${createHmac('sha256', deriveSecret(key, 'sale share links')).update(text).digest('base64url')}`;
}

t.test('a shared link is /s/ and 12 letters and digits on the service\'s address, a new one at each call, with its PDF, receipt and printable page under it', async (t) => {
  const { owner } = await staffedShop(api);
  const sale = await saleOf(owner);
  const link = await linkOf(owner.token, sale.id);
  t.match(link.url, new RegExp(`^${api.baseUrl}/s/[0-9A-Za-z]{12}$`));
  t.same(
    { pdf: link.pdf_url, receipt: link.receipt_url, invoice: link.invoice_url },
    { pdf: `${link.url}/pdf`, receipt: `${link.url}/receipt`, invoice: `${link.url}/print` },
  );
  const tokens = new Set([tokenOf(link.url)]);
  for (let i = 0; i < 20; i++) tokens.add(tokenOf((await linkOf(owner.token, sale.id)).url));
  t.equal(tokens.size, 21, 'every call makes its own link');
  t.ok([...tokens].every((token) => SHORT_TOKEN.test(token)), 'each 12 characters of 0-9, A-Z, a-z');
  const [row] = await api.ownerSql<{ shop_id: string; sale_id: string; quote_id: string | null; expires_at: Date }[]>`
    select shop_id, sale_id, quote_id, expires_at from shared_links where token = ${tokenOf(link.url)}`;
  t.same(row, { shop_id: owner.shop.id, sale_id: sale.id, quote_id: null, expires_at: new Date(link.expires_at) }, 'stored with its shop, its sale and its expiry');
});

t.test('tokens draw every letter and digit equally: no modulo bias', async (t) => {
  const counts = new Map<string, number>();
  for (let i = 0; i < 20_000; i++) for (const ch of newShareToken()) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  t.equal(counts.size, 62, 'all 62 characters, nothing else');
  // A byte taken modulo 62 would make the first 8 characters (bytes 248 to 255 wrap onto them) a quarter more frequent.
  const mean = (chars: string) => [...chars].reduce((sum, ch) => sum + counts.get(ch)!, 0) / chars.length;
  const ratio = mean('01234567') / mean('89ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz');
  t.ok(ratio > 0.95 && ratio < 1.05, `the first 8 characters as frequent as the others (ratio ${ratio.toFixed(3)})`);
});

t.test('a shared link expires 7 days after it was made, and past its expiry every address answers 404', async (t) => {
  const { owner } = await staffedShop(api);
  const sale = await saleOf(owner);
  const before = Date.now();
  const link = await linkOf(owner.token, sale.id);
  const expiresAt = Date.parse(link.expires_at);
  t.ok(expiresAt >= before + 7 * DAY_MS - 1000 && expiresAt <= Date.now() + 7 * DAY_MS, `${link.expires_at} is 7 days ahead`);
  const token = tokenOf(link.url);
  await api.ownerSql`update shared_links set expires_at = now() + interval '1 minute' where token = ${token}`;
  t.equal((await open(link.url)).status, 200, 'a minute before its expiry it works');
  await api.ownerSql`update shared_links set expires_at = now() - interval '1 second' where token = ${token}`;
  await expectGone(t, token, 'expired a second ago');
});

t.test('a shared sale opens with no credentials: its page, its PDF, its receipt as a page, its printable invoice', async (t) => {
  const { owner } = await staffedShop(api);
  const sale = await saleOf(owner);
  const link = await linkOf(owner.token, sale.id);

  const page = await open(link.url);
  t.equal(page.status, 200);
  t.match(page.headers.get('content-type'), /^text\/html/);
  t.equal(page.headers.get('content-security-policy'), INVOICE_CSP, 'the page may only style itself and show inline images');
  t.equal(page.headers.get('referrer-policy'), 'no-referrer', 'the token never leaves in a Referer');
  t.equal(page.headers.get('cache-control'), 'no-store', 'a revoked link does not live on in a cache');
  t.match(visibleText(page.body), `Facture n° ${sale.receipt_no}`);
  t.match(visibleText(page.body), 'Total 5 000 FCFA');
  t.match(page.body, `href="${link.pdf_url}"`, 'the PDF button leads to the PDF');
  t.match(visibleText((await open(`${link.url}?locale=en`)).body), `Invoice no. ${sale.receipt_no}`, 'in English when asked');

  const pdf = await open(link.pdf_url);
  t.equal(pdf.status, 200);
  t.equal(pdf.headers.get('content-type'), 'application/pdf');
  t.equal(pdf.headers.get('content-disposition'), `inline; filename="facture-${sale.receipt_no}.pdf"`);
  t.ok(String(pdf.body).startsWith('%PDF-'), 'a PDF');
  t.equal((await open(`${link.pdf_url}?locale=en`)).headers.get('content-disposition'), `inline; filename="invoice-${sale.receipt_no}.pdf"`);

  const receipt = await open(link.receipt_url);
  t.equal(receipt.status, 200);
  t.match(receipt.headers.get('content-type'), /^text\/html/, 'a page, never JSON');
  t.notMatch(receipt.body, /\\n/, 'no escaped line break in sight');
  const text = (await api.request('GET', `/sales/${sale.id}/receipt/text?style=fixed`, { token: owner.token })).body.data.text as string;
  const firstItem = text.split('\n').find((line) => line.startsWith('Produit'))!;
  t.match(visibleText(receipt.body), firstItem.trim(), 'the printed receipt\'s lines');

  const invoice = await open(link.invoice_url);
  t.equal(invoice.body, (await api.request('GET', `/sales/${sale.id}/invoice`, { token: owner.token })).body, 'the printable page is the invoice itself');
  t.equal((await open(`${link.invoice_url}?locale=en&format=a3`)).body, (await api.request('GET', `/sales/${sale.id}/invoice?locale=en&format=a3`, { token: owner.token })).body);
  for (const address of [`${link.invoice_url}?format=pdf`, `/api/v1/shared/${tokenOf(link.url)}/invoice?format=pdf`]) {
    t.equal((await open(address)).headers.get('content-disposition'), `inline; filename="facture-${sale.receipt_no}.pdf"`, `${address}: the PDF, as the invoice route's format=pdf`);
  }
});

t.test('the addresses under /api/v1/shared/{token} answer for a short link as they did for the signed ones', async (t) => {
  const { owner } = await staffedShop(api);
  const sale = await saleOf(owner);
  const token = tokenOf((await linkOf(owner.token, sale.id)).url);
  const invoice = await api.request('GET', `/shared/${token}/invoice?locale=en`);
  t.equal(invoice.body, (await api.request('GET', `/sales/${sale.id}/invoice?locale=en`, { token: owner.token })).body);
  const text = await api.request('GET', `/shared/${token}/receipt/text?style=fixed`);
  t.same(text.body, (await api.request('GET', `/sales/${sale.id}/receipt/text?style=fixed`, { token: owner.token })).body);
});

t.test('every link that should not open is the same 404: unknown, garbage, of a sale another shop\'s link names', async (t) => {
  const shopA = await registerShop(api);
  const shopB = await registerShop(api);
  const saleA = await saleOf(shopA);
  const token = tokenOf((await linkOf(shopA.token, saleA.id)).url);
  let unknown = newShareToken();
  while (unknown === token) unknown = newShareToken();
  await expectGone(t, unknown, 'a well-formed token never issued');
  for (const garbage of ['x', token.slice(0, 11), `${token}x`, `${token.slice(0, 11)}!`, token.toLowerCase() === token ? token.toUpperCase() : token.toLowerCase(), `${token}.${token}`, 'é'.repeat(12), 'A'.repeat(200)]) {
    await expectGone(t, garbage, `garbage ${JSON.stringify(garbage.slice(0, 20))}`);
  }
  // A link row naming shop B and shop A's sale: read in shop B, the sale does not exist.
  const foreign = newShareToken();
  await api.ownerSql`insert into shared_links (token, shop_id, sale_id, expires_at) values (${foreign}, ${shopB.shop.id}, ${saleA.id}, now() + interval '1 day')`;
  await expectGone(t, foreign, 'shop B\'s link to shop A\'s sale');
  t.equal((await api.raw('GET', `/s/${token}`)).status, 200, 'the real link still works');
});

t.test('voiding a sale revokes its links: 404 everywhere, and it cannot be shared again', async (t) => {
  const { owner, manager } = await staffedShop(api);
  await openShift(api, manager.token);
  const sale = await saleOf(owner);
  const token = tokenOf((await linkOf(owner.token, sale.id)).url);
  t.equal((await api.raw('GET', `/s/${token}`)).status, 200, 'works before the void');
  t.equal((await voidSale(api, manager.token, sale.id)).status, 200);
  await expectGone(t, token, 'after the void');
  const again = await share(owner.token, sale.id);
  t.equal(again.status, 409);
  t.equal(again.body.code, 'sale_already_voided');
});

t.test('sharing another shop\'s sale, or one that does not exist, is a 404', async (t) => {
  const shopA = await registerShop(api);
  const shopB = await registerShop(api);
  const saleA = await saleOf(shopA);
  for (const reply of [await share(shopB.token, saleA.id), await share(shopA.token, randomUUID())]) {
    t.equal(reply.status, 404);
    t.same(reply.body, FR.NOT_FOUND, 'in the owner\'s language');
  }
  t.equal((await share(shopA.token, saleA.id)).status, 201, 'its own shop may');
  t.equal((await api.request('POST', `/sales/${saleA.id}/share`)).status, 401, 'nobody may without a token');
});

t.test('a cashier can share a sale', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  const sale = await saleOf(owner, cashier.token);
  const link = await linkOf(cashier.token, sale.id);
  t.equal((await open(link.receipt_url)).status, 200);
});

t.test('a link and a 20-word French message fit one SMS (160 GSM characters)', async (t) => {
  const { owner } = await staffedShop(api);
  const sale = await saleOf(owner);
  api.config.PUBLIC_BASE_URL = 'https://pos.example.cm';
  t.teardown(() => {
    delete api.config.PUBLIC_BASE_URL;
  });
  const { url } = await linkOf(owner.token, sale.id);
  t.match(url, /^https:\/\/pos\.example\.cm\/s\/[0-9A-Za-z]{12}$/, 'on the service\'s public address (PUBLIC_BASE_URL)');
  const message = `Bonjour Madame Ngo, voici votre facture de la Quincaillerie du Port, total 125 000 FCFA. Merci et a bientot : ${url}`;
  t.equal(message.replace(url, '').trim().split(/\s+/).length, 20, 'twenty words');
  // GSM 03.38's basic set: one septet each, so 160 of them fit one SMS (a character outside it would make it UCS-2, 70).
  const GSM = /^[@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&'()*+,\-./0-9:;<=>?¡A-ZÄÖÑÜ§¿a-zäöñüà]*$/;
  t.match(message, GSM, 'GSM characters only');
  t.ok(message.length <= 160, `${message.length} characters, one SMS (the link alone: ${url.length})`);
});

t.test('a receipt\'s QR code is the link to the sale\'s page: the same at every print, working a year from the sale', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  const sale = await saleOf(owner, cashier.token);
  const print = async (token: string) => (await api.request('GET', `/sales/${sale.id}/receipt?width=58`, { token })).body.data.base64 as string;
  const first = await print(cashier.token);
  t.equal(await print(owner.token), first, 'a reprint, by anyone, gives the same bytes');
  const link = qrData(readEscPos(Buffer.from(first, 'base64')))!;
  t.match(link, new RegExp(`^${api.baseUrl}/s/[0-9A-Za-z]{12}$`));
  const page = await open(link);
  t.equal(page.status, 200, 'it opens the sale\'s page');
  t.match(visibleText(page.body), `Facture n° ${sale.receipt_no}`);
  const rows = await api.ownerSql<{ sale_id: string; expires_at: Date }[]>`select sale_id, expires_at from shared_links where token = ${tokenOf(link)}`;
  t.same(rows, [{ sale_id: sale.id, expires_at: new Date(Date.parse(sale.created_at) + 365 * DAY_MS) }], 'recorded once, for 365 days from the sale');
  t.not(tokenOf(link), tokenOf((await linkOf(owner.token, sale.id)).url), 'a link shared by hand is another');
});

t.test('links of the signed form made before short links still open their sale until they expire, read only', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const sale = await saleOf(owner);
  const signed = (expiresAt: Date, key = appKey, saleId = sale.id) => signedToken(key, owner.shop.id, saleId, expiresAt);
  const live = signed(new Date(Date.now() + DAY_MS));
  t.equal((await api.request('GET', `/shared/${live}/invoice`)).body, (await api.request('GET', `/sales/${sale.id}/invoice`, { token: owner.token })).body, 'the invoice, as before');
  t.equal((await api.request('GET', `/shared/${live}/receipt/text`)).status, 200, 'the text receipt, as before');
  t.equal((await api.raw('GET', `/s/${live}`)).status, 200, 'and the new page');
  await expectGone(t, signed(new Date(Date.now() - 1000)), 'expired a second ago');
  await expectGone(t, signed(new Date(Date.now() + DAY_MS), 'another app key of at least 32 characters'), 'signed with another key');
  const other = await saleOf(owner);
  const [payload, signature] = live.split('.') as [string, string];
  const bytes = Buffer.from(payload, 'base64url');
  Buffer.from(other.id.replace(/-/g, ''), 'hex').copy(bytes, 16);
  await expectGone(t, `${bytes.toString('base64url')}.${signature}`, 'another sale in the payload, the signature kept');
  await expectGone(t, `${payload}.${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`, 'a signature character changed');
  await openShift(api, manager.token);
  t.equal((await voidSale(api, manager.token, sale.id)).status, 200);
  await expectGone(t, live, 'its sale voided');
});

t.test('a quote may be shared by any user, in any state: its page, its PDF, its printable page; a converted one shows it was invoiced', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  const quote = await createQuote(api, owner.token, { items: [freeLine(15_000, { name: 'Pose de carrelage' }), freeLine(3_000, { name: 'Transport' })] });
  const reply = await api.request('POST', `/quotes/${quote.id}/share`, { token: cashier.token });
  t.equal(reply.status, 201);
  const links = reply.body.data;
  t.strictSame(Object.keys(links).sort(), ['document_url', 'expires_at', 'pdf_url', 'url'], 'no receipt: a quote has none');
  t.match(links.url, new RegExp(`^${api.baseUrl}/s/[0-9A-Za-z]{12}$`));
  const token = tokenOf(links.url);

  const page = await open(links.url);
  t.equal(page.status, 200);
  t.match(visibleText(page.body), `Devis n° ${quote.quote_no}`);
  t.match(visibleText(page.body), 'Total 18 000 FCFA');
  t.match(visibleText((await open(`${links.url}?locale=en`)).body), `Proforma no. ${quote.quote_no}`);
  const pdf = await open(links.pdf_url);
  t.equal(pdf.headers.get('content-type'), 'application/pdf');
  t.equal(pdf.headers.get('content-disposition'), `inline; filename="devis-${quote.quote_no}.pdf"`);
  t.equal((await open(links.document_url)).body, (await api.request('GET', `/quotes/${quote.id}/document`, { token: owner.token })).body, 'the printable page is the quote\'s document');
  await expectGone(t, token, 'a quote\'s link where only a sale has something', [`/s/${token}/receipt`, `/api/v1/shared/${token}/invoice`, `/api/v1/shared/${token}/receipt/text`]);

  await openShift(api, owner.token);
  await convert(api, owner.token, quote.id, { payments: cash(18_000) });
  const converted = visibleText((await open(links.url)).body);
  t.match(converted, 'Devis accepté, facturé le', 'a converted quote still shows, saying it was invoiced');
  t.match(converted, 'Total 18 000 FCFA');

  const gone = await createQuote(api, owner.token, { items: [freeLine(1000)] });
  const goneToken = tokenOf((await api.request('POST', `/quotes/${gone.id}/share`, { token: owner.token })).body.data.url);
  t.equal((await deleteQuote(api, owner.token, gone.id)).status, 204);
  await expectGone(t, goneToken, 'a deleted quote');

  const stranger = await registerShop(api);
  t.equal((await api.request('POST', `/quotes/${quote.id}/share`, { token: stranger.token })).status, 404, 'another shop\'s quote');
  t.equal((await api.request('POST', `/quotes/${randomUUID()}/share`, { token: owner.token })).status, 404, 'no such quote');
  t.equal((await api.request('POST', `/quotes/${quote.id}/share`)).status, 401, 'nobody without a token');
});

t.test('the shared pages are rate-limited per address', async (t) => {
  const { owner } = await staffedShop(api);
  const token = tokenOf((await linkOf(owner.token, (await saleOf(owner)).id)).url);
  t.equal((await api.raw('GET', `/s/${token}`)).status, 200);
  // The address has spent its 300 requests of the window.
  await api.ownerSql`update rate_limits set hits = 300, window_started_at = now() where bucket like 'address:%'`;
  t.teardown(() => api.ownerSql`delete from rate_limits where bucket like 'address:%'`.then(() => undefined));
  for (const address of addressesOf(token)) {
    const reply = await api.raw('GET', address);
    t.equal(reply.status, 429, `${address}: 429`);
    t.equal(reply.body.code, 'rate_limited');
  }
});

t.test('a browser that opens a dead link gets a page saying so, in its language; other clients the CONTRACT\'s JSON 404', async (t) => {
  const dead = newShareToken();
  const browser = await api.raw('GET', `/s/${dead}`, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8', 'accept-language': 'fr-CM,fr;q=0.9' } });
  t.equal(browser.status, 404);
  t.match(browser.headers.get('content-type'), 'text/html');
  t.match(visibleText(browser.body as string), 'Ce lien n\'existe pas ou n\'est plus valable. Demandez-en un nouveau à la boutique.');
  const english = await api.raw('GET', `/s/${dead}/pdf`, { headers: { accept: 'text/html', 'accept-language': 'en' } });
  t.match(visibleText(english.body as string), 'This link does not exist or is no longer valid.');
  const client = await api.raw('GET', `/s/${dead}`, { headers: { accept: 'application/json' } });
  t.equal(client.status, 404);
  t.same(client.body, EN.NOT_FOUND);
  const api404 = await api.raw('GET', '/api/v1/sales/00000000-0000-4000-8000-000000000000', { headers: { accept: 'text/html' } });
  t.match(api404.headers.get('content-type'), 'application/json', 'the API itself always answers JSON');
});
