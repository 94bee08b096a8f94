import t from 'tap';
import { createProduct, ledgerInvariants, staffedShop } from '../support/fixtures.ts';
import { startService } from '../support/service.ts';
import { receive } from '../purchases/purchase-fixtures.ts';

const api = await startService(t);

/**
 * A return to the supplier and sales racing for the last units of a batch: every request either
 * fits and is kept whole, or is refused with insufficient_stock; no batch goes below zero and the
 * batches never hold more than the on-hand.
 */
t.test('a purchase return and sales racing for the last units of a batch never leave it negative', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const rounds = 15;
  for (let round = 0; round < rounds; round++) {
    const product = await createProduct(api, owner.token, { price_xaf: 100 });
    const purchase = await receive(api, manager.token, {
      items: [{ product_id: product.id, quantity: 3, unit_cost_xaf: 40, batch_number: `R${round}`, expiry_date: '2027-05-31' }],
    });
    const sale = () =>
      api.request('POST', '/sales', { token: owner.token, body: { items: [{ product_id: product.id, quantity: 2 }], payments: [{ method: 'cash', amount_xaf: 200 }] } });
    const giveBack = () =>
      api.request('POST', `/purchases/${purchase.id}/returns`, { token: manager.token, body: { items: [{ purchase_item_id: purchase.items[0].id, quantity: 2 }] } });
    const replies = await Promise.all([sale(), giveBack(), sale()]);
    const statuses = replies.map((reply) => reply.status);
    t.equal(statuses.filter((status) => status === 201).length, 1, `round ${round}: exactly one of the three fits (${statuses})`);
    for (const reply of replies.filter((r) => r.status !== 201)) t.equal(reply.body.code, 'insufficient_stock', `round ${round}: the others are refused for stock`);
    const [row] = await api.ownerSql<{ quantity: number; on_hand: number }[]>`
      select b.quantity, p.on_hand from batches b join products p on p.id = b.product_id where b.product_id = ${product.id}`;
    t.strictSame([Number(row!.quantity), Number(row!.on_hand)], [1, 1], `round ${round}: 1 left in the batch and on hand`);
  }
  t.same(await ledgerInvariants(api, owner.shop.id), { stockMismatches: [], unbalancedEntries: [] });
});
