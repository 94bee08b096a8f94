import { randomUUID } from 'node:crypto';
import t, { type Test } from 'tap';
import { signShareToken } from '../../api/receipts/share.ts';
import { openShift, sell, staffedShop, voidSale } from '../sales/sale-fixtures.ts';
import { createProduct, registerShop, type ShopFixture } from '../support/fixtures.ts';
import { FR } from '../support/replies.ts';
import { startService, type Reply } from '../support/service.ts';

const api = await startService(t);
const appKey = api.runtime.appKey;
const NOT_FOUND = { message: 'Not found.', code: 'not_found' };
const DAY_MS = 86_400_000;

async function saleOf(shop: ShopFixture, token = shop.token): Promise<any> {
  const product = await createProduct(api, shop.token, { price_xaf: 2500 }, 10);
  return sell(api, token, { items: [{ product_id: product.id, quantity: 2 }], payments: [{ method: 'cash', amount_xaf: 5000 }] });
}

async function share(token: string, saleId: string): Promise<Reply> {
  return api.request('POST', `/sales/${saleId}/share`, { token });
}

async function linkOf(token: string, saleId: string): Promise<{ url: string; invoice_url: string; receipt_url: string; expires_at: string }> {
  const reply = await share(token, saleId);
  if (reply.status !== 201) throw new Error(`share failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

/** A shared address, opened with no credentials at all. */
const open = (url: string) => api.raw('GET', new URL(url).pathname + new URL(url).search);

const tokenOf = (url: string) => new URL(url).pathname.split('/')[4]!;

const sharedInvoice = (token: string) => api.request('GET', `/shared/${token}/invoice`);
const sharedText = (token: string) => api.request('GET', `/shared/${token}/receipt/text`);

async function expectGone(t: Test, token: string, what: string): Promise<void> {
  for (const reply of [await sharedInvoice(token), await sharedText(token)]) {
    t.equal(reply.status, 404, `${what}: 404`);
    t.same(reply.body, NOT_FOUND, `${what}: the plain not_found, which says nothing more`);
  }
}

/** The token with another sale's id in its payload and its own signature kept. */
function withSaleId(token: string, saleId: string): string {
  const [payload, signature] = token.split('.') as [string, string];
  const bytes = Buffer.from(payload, 'base64url');
  Buffer.from(saleId.replace(/-/g, ''), 'hex').copy(bytes, 16);
  return `${bytes.toString('base64url')}.${signature}`;
}

t.test('a shared link serves the invoice and the text receipt without a token, the same as the authenticated routes', async (t) => {
  const { owner } = await staffedShop(api);
  const sale = await saleOf(owner);
  const link = await linkOf(owner.token, sale.id);
  t.ok(link.url.startsWith(`${api.baseUrl}/api/v1/shared/`), 'an absolute address on this service');
  t.equal(link.url, link.invoice_url);
  t.equal(link.receipt_url, link.invoice_url.replace(/\/invoice$/, '/receipt/text'));

  const invoice = await open(link.invoice_url);
  const authenticatedInvoice = await api.request('GET', `/sales/${sale.id}/invoice`, { token: owner.token });
  t.equal(invoice.status, 200);
  t.match(invoice.headers.get('content-type'), /text\/html/);
  t.equal(invoice.body, authenticatedInvoice.body, 'the same page');
  t.equal(invoice.headers.get('content-security-policy'), authenticatedInvoice.headers.get('content-security-policy'), 'under the same CSP');
  t.equal(invoice.headers.get('referrer-policy'), 'no-referrer', 'the token never leaves in a Referer');

  const text = await open(link.receipt_url);
  t.equal(text.status, 200);
  t.same(text.body, (await api.request('GET', `/sales/${sale.id}/receipt/text`, { token: owner.token })).body, 'the same text receipt');

  t.equal((await open(`${link.invoice_url}?locale=en&format=a3`)).body, (await api.request('GET', `/sales/${sale.id}/invoice?locale=en&format=a3`, { token: owner.token })).body, 'in English on A3 too');
  t.same((await open(`${link.receipt_url}?locale=en`)).body, (await api.request('GET', `/sales/${sale.id}/receipt/text?locale=en`, { token: owner.token })).body);
});

t.test('a shared link expires 7 days after it was made', async (t) => {
  const { owner } = await staffedShop(api);
  const sale = await saleOf(owner);
  const before = Date.now();
  const link = await linkOf(owner.token, sale.id);
  const expiresAt = Date.parse(link.expires_at);
  t.ok(expiresAt >= before + 7 * DAY_MS - 1000 && expiresAt <= Date.now() + 7 * DAY_MS, `${link.expires_at} is 7 days ahead`);
});

t.test('an expired link answers 404', async (t) => {
  const { owner } = await staffedShop(api);
  const sale = await saleOf(owner);
  const claims = { shopId: owner.shop.id, saleId: sale.id };
  t.equal((await sharedText(signShareToken(appKey, { ...claims, expiresAt: new Date(Date.now() + 60_000) }))).status, 200, 'the same link before its expiry works');
  await expectGone(t, signShareToken(appKey, { ...claims, expiresAt: new Date(Date.now() - 1000) }), 'expired a second ago');
  await expectGone(t, signShareToken(appKey, { ...claims, expiresAt: new Date(Date.now() - 8 * DAY_MS) }), 'expired a day ago');
});

t.test('a tampered or malformed link answers 404', async (t) => {
  const { owner } = await staffedShop(api);
  const sale = await saleOf(owner);
  const other = await saleOf(owner);
  const token = tokenOf((await linkOf(owner.token, sale.id)).url);
  const signature = token.split('.')[1]!;
  for (const at of [0, Math.floor(signature.length / 2), signature.length - 1]) {
    const changed = signature[at] === 'A' ? 'B' : 'A';
    await expectGone(t, `${token.split('.')[0]}.${signature.slice(0, at)}${changed}${signature.slice(at + 1)}`, `signature character ${at} changed`);
  }
  await expectGone(t, withSaleId(token, other.id), 'another sale of the same shop in the payload');
  await expectGone(t, signShareToken('another app key of at least 32 characters', { shopId: owner.shop.id, saleId: sale.id, expiresAt: new Date(Date.now() + DAY_MS) }), 'signed with another key');
  for (const malformed of ['x', token.split('.')[0]!, `${token}.x`, `${token}x`, `.${signature}`, token.replace('.', '')]) {
    await expectGone(t, malformed, `malformed ${malformed}`);
  }
  t.equal((await sharedText(token)).status, 200, 'the link itself still works');
});

t.test('a link of one shop\'s sale cannot be turned into another shop\'s sale', async (t) => {
  const shopA = await registerShop(api);
  const shopB = await registerShop(api);
  const saleA = await saleOf(shopA);
  const saleB = await saleOf(shopB);
  const token = tokenOf((await linkOf(shopA.token, saleA.id)).url);
  await expectGone(t, withSaleId(token, saleB.id), 'shop B\'s sale in shop A\'s link');
  await expectGone(t, signShareToken(appKey, { shopId: shopA.shop.id, saleId: saleB.id, expiresAt: new Date(Date.now() + DAY_MS) }), 'even signed, shop A\'s link finds nothing of shop B');
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

t.test('voiding a sale revokes its links: 404, and it cannot be shared again', async (t) => {
  const { owner, manager } = await staffedShop(api);
  await openShift(api, manager.token);
  const sale = await saleOf(owner);
  const token = tokenOf((await linkOf(owner.token, sale.id)).url);
  t.equal((await sharedInvoice(token)).status, 200, 'works before the void');
  t.equal((await voidSale(api, manager.token, sale.id)).status, 200);
  await expectGone(t, token, 'after the void');
  const again = await share(owner.token, sale.id);
  t.equal(again.status, 409);
  t.equal(again.body.code, 'sale_already_voided');
});

t.test('a cashier can share a sale', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  const sale = await saleOf(owner, cashier.token);
  const link = await linkOf(cashier.token, sale.id);
  t.equal((await open(link.receipt_url)).status, 200);
});
