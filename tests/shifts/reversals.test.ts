import t from 'tap';
import { createProduct, staffedShop, type StaffedShop } from '../support/fixtures.ts';
import { expectConflict } from '../support/replies.ts';
import { startService } from '../support/service.ts';
import { closeShift, currentShift, openShift } from './shift-fixtures.ts';

/**
 * Which drawer a void's or a refund's money leaves (CONTRACT section 12): a void gives the sale's cash
 * back from the shift the sale was taken in while that shift is open, else from the voider's open
 * shift; a cash refund pays out from the refunder's open shift, else from the sale's shift while it is
 * open; with neither, voiding or refunding in cash a sale that took cash is a 409 no_open_shift. A
 * till counted right then closes at 0, and the Z's cash agrees with the drawers.
 */
const api = await startService(t);

interface Till extends StaffedShop {
  product: { id: string };
}

async function till(): Promise<Till> {
  const shop = await staffedShop(api);
  const product = await createProduct(api, shop.owner.token, { price_xaf: 1_000, tracked: false, vat_rate: 0 });
  return { ...shop, product };
}

const sell = async (shop: Till, token: string, quantity: number, method = 'cash') => {
  const reply = await api.request('POST', '/sales', { token, body: { items: [{ product_id: shop.product.id, quantity }], payments: [{ method, amount_xaf: quantity * 1_000 }] } });
  if (reply.status !== 201) throw new Error(`sale failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
};
const voidSale = (token: string, saleId: string) => api.request('POST', `/sales/${saleId}/void`, { token, body: { reason: 'Erreur de caisse' } });
const refundAll = (token: string, sale: any, method = 'cash') =>
  api.request('POST', `/sales/${sale.id}/refund`, { token, body: { method, items: [{ sale_item_id: sale.items[0].id, quantity: sale.items[0].quantity }] } });
const zCash = async (token: string) =>
  ((await api.request('GET', '/reports/z', { token })).body.data.payments as { method: string; amount_xaf: number }[]).find((p) => p.method === 'cash')?.amount_xaf ?? 0;

t.test('a manager with no shift voids and refunds a cashier\'s cash sales: the cash leaves the cashier\'s open drawer, which closes at 0', async (t) => {
  const shop = await till();
  await openShift(api, shop.cashier.token, 10_000);
  const first = await sell(shop, shop.cashier.token, 2);
  const second = await sell(shop, shop.cashier.token, 3);
  t.equal((await voidSale(shop.manager.token, first.id)).status, 200);
  t.equal((await refundAll(shop.manager.token, second)).status, 201);
  const drawer = await currentShift(api, shop.cashier.token);
  t.match(drawer.totals, { cash_sales_xaf: 5_000, cash_refunds_xaf: 5_000, expected_cash_xaf: 10_000 }, 'the float is what is left');
  t.equal(await zCash(shop.owner.token), 0, 'the Z: nothing taken in cash');
  const closed = await closeShift(api, shop.cashier.token, { counted_cash_xaf: 10_000 });
  t.equal(closed.difference_xaf, 0, 'counted right, closed at 0');
  const losses = (await api.request('GET', '/reports/losses', { token: shop.owner.token })).body.data;
  t.same(losses.cash.shifts, [], 'no shortage reported');
});

t.test('with the manager\'s own shift open: a void still comes from the sale\'s open drawer, a refund from the manager\'s', async (t) => {
  const shop = await till();
  await openShift(api, shop.cashier.token, 10_000);
  await openShift(api, shop.manager.token, 1_000);
  const first = await sell(shop, shop.cashier.token, 2);
  const second = await sell(shop, shop.cashier.token, 3);
  t.equal((await voidSale(shop.manager.token, first.id)).status, 200);
  t.equal((await refundAll(shop.manager.token, second)).status, 201);
  t.equal((await currentShift(api, shop.cashier.token)).expected_cash_xaf, 13_000, 'the cashier\'s drawer: 10000 + 5000 - 2000');
  t.equal((await currentShift(api, shop.manager.token)).expected_cash_xaf, -2_000, 'the manager paid the 3000 out of a 1000 float: counted, the drawer shows it');
  t.equal(await zCash(shop.owner.token), 0);
});

t.test('once the sale\'s shift is closed, a void gives the cash back from the voider\'s open drawer', async (t) => {
  const shop = await till();
  await openShift(api, shop.cashier.token, 0);
  const sale = await sell(shop, shop.cashier.token, 4);
  await closeShift(api, shop.cashier.token, { counted_cash_xaf: 4_000 });
  await openShift(api, shop.manager.token, 5_000);
  t.equal((await voidSale(shop.manager.token, sale.id)).status, 200);
  t.equal((await currentShift(api, shop.manager.token)).expected_cash_xaf, 1_000);
});

t.test('a cash refund with the refunder\'s drawer closed comes from the sale\'s drawer while it is open', async (t) => {
  const shop = await till();
  await openShift(api, shop.cashier.token, 0);
  const sale = await sell(shop, shop.cashier.token, 2);
  t.equal((await refundAll(shop.owner.token, sale)).status, 201);
  t.equal((await currentShift(api, shop.cashier.token)).expected_cash_xaf, 0);
});

t.test('with neither drawer open: a void of a sale that took cash, or a cash refund, is a 409 no_open_shift and changes nothing', async (t) => {
  const shop = await till();
  const sale = await sell(shop, shop.owner.token, 2);
  expectConflict(t, await voidSale(shop.manager.token, sale.id), 'no_open_shift', 'void');
  expectConflict(t, await refundAll(shop.manager.token, sale), 'no_open_shift', 'cash refund');
  const again = (await api.request('GET', `/sales/${sale.id}`, { token: shop.owner.token })).body.data;
  t.match(again, { status: 'completed', refunds: [] }, 'the sale is as it was');
  const [row] = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from sale_payments where sale_id = ${sale.id} and kind in ('void', 'refund')`;
  t.equal(row!.n, 0, 'no payment reversed');
});

t.test('with neither drawer open, a sale that took no cash is voided, and refunded by mobile money', async (t) => {
  const shop = await till();
  const momo = await sell(shop, shop.owner.token, 2, 'carrier1_momo');
  const other = await sell(shop, shop.owner.token, 1, 'carrier1_momo');
  t.equal((await voidSale(shop.manager.token, momo.id)).status, 200);
  t.equal((await refundAll(shop.manager.token, other, 'carrier1_momo')).status, 201);
});
