import t from 'tap';
import { createProduct, registerShop } from '../support/fixtures.ts';
import { startService, type Reply } from '../support/service.ts';
import { createCustomer, expectLedgerInvariants, movements, onHand, postSale, productWithVariants, readCustomer, receiptNumbers, upTo } from './sale-fixtures.ts';

const api = await startService(t);

const cash = (amount: number) => [{ method: 'cash', amount_xaf: amount }];

function tally(replies: Reply[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const reply of replies) {
    const key = `${reply.status}${reply.body?.code && reply.status !== 201 ? ` ${reply.body.code}` : ''}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

t.test('50 simultaneous sales of one unit with 10 in stock: 10 succeed, 40 are refused, no gap, no oversell', async (t) => {
  const owner = await registerShop(api);
  const product = await createProduct(api, owner.token, { price_xaf: 1000 }, 10);
  const replies = await Promise.all(upTo(50).map(() => postSale(api, owner.token, { items: [{ product_id: product.id, quantity: 1 }], payments: cash(1000) })));
  t.strictSame(tally(replies), { '201': 10, '422 insufficient_stock': 40 });
  for (const refused of replies.filter((r) => r.status === 422)) {
    t.strictSame(Object.keys(refused.body.errors), ['items.0.quantity'], 'refused on items.0.quantity');
  }
  t.equal(await onHand(api, product.id), 0, 'on-hand ends at 0');
  const sold = (await movements(api, product.id)).filter((m) => m.type === 'sale');
  t.equal(sold.length, 10, 'ten sale movements');
  t.strictSame(sold.map((m) => m.on_hand_after).sort((a, b) => b - a), [9, 8, 7, 6, 5, 4, 3, 2, 1, 0], 'each movement saw the stock the previous one left');
  t.strictSame(await receiptNumbers(api, owner.shop.id), upTo(10), 'receipt numbers 1 to 10, no gap');
  t.strictSame(
    replies.filter((r) => r.status === 201).map((r) => r.body.data.receipt_no).sort((a, b) => a - b),
    upTo(10),
    'each success answered its own number',
  );
  await expectLedgerInvariants(t, api, owner.shop.id);
});

t.test('simultaneous sales without stock contention share out the receipt numbers without gap or repeat', async (t) => {
  const owner = await registerShop(api);
  const replies = await Promise.all(upTo(30).map((n) => postSale(api, owner.token, { items: [{ name: 'Pain', quantity: n, unit_price_xaf: 100 }], payments: cash(100 * n) })));
  t.strictSame(tally(replies), { '201': 30 });
  t.strictSame(await receiptNumbers(api, owner.shop.id), upTo(30));
});

t.test('baskets sharing products in opposite orders, sold at the same time again and again, never deadlock', async (t) => {
  const owner = await registerShop(api);
  const first = await createProduct(api, owner.token, { price_xaf: 100 }, 1000);
  const second = await createProduct(api, owner.token, { price_xaf: 200 }, 1000);
  const { product: shirt, variants } = await productWithVariants(api, owner.token, { M: { price_xaf: 300, on_hand: 1000 }, L: { price_xaf: 300, on_hand: 1000 } });
  const customer = await createCustomer(api, owner.token, { credit_ceiling_xaf: 10_000_000 });
  const a = { product_id: first.id, quantity: 1 };
  const b = { product_id: second.id, quantity: 1 };
  const m = { product_id: shirt.id, variant_id: variants.M.id, quantity: 1 };
  const l = { product_id: shirt.id, variant_id: variants.L.id, quantity: 1 };
  const baskets = [
    { items: [a, b], payments: cash(300) },
    { items: [b, a], payments: cash(300) },
    { items: [m, a, l], payments: cash(700) },
    { items: [l, b, m], customer_id: customer.id, payments: cash(100) },
    { items: [b, l, a, m], customer_id: customer.id },
    { items: [m, l], payments: cash(600) },
  ];
  const rounds = 15;
  const replies: Reply[] = [];
  for (let round = 0; round < rounds; round++) replies.push(...(await Promise.all(baskets.map((basket) => postSale(api, owner.token, basket)))));
  t.strictSame(tally(replies), { '201': rounds * baskets.length }, 'every sale recorded, none refused, no 500');
  const count = (item: object) => baskets.filter((basket) => basket.items.includes(item as never)).length * rounds;
  t.equal(await onHand(api, first.id), 1000 - count(a));
  t.equal(await onHand(api, second.id), 1000 - count(b));
  t.equal(await onHand(api, shirt.id, variants.M.id), 1000 - count(m));
  t.equal(await onHand(api, shirt.id, variants.L.id), 1000 - count(l));
  t.equal((await readCustomer(api, owner.token, customer.id)).balance_xaf, rounds * (800 - 100 + 900), 'the customer owes every credit sale');
  await expectLedgerInvariants(t, api, owner.shop.id);
});
