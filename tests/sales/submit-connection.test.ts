import t from 'tap';
import { createProduct, registerShop } from '../support/fixtures.ts';
import { startService } from '../support/service.ts';

/**
 * POST /sales sends the sale and the read of its answer together on one database connection
 * (recordSaleAlone). A refused sale must not hand that connection to the next request while the read
 * is still on its way: their statements would meet on the wire and take each other's answers (seen
 * in CI as a request that never answered, and as a 500 on the next purchase). With a pool of one
 * connection every request takes the connection the refused sale just left.
 */
const api = await startService(t, { DB_POOL_MAX: '1' });

t.test('refused sales followed at once by other requests on their connection: every answer is its own, none hangs', async (t) => {
  const owner = await registerShop(api);
  const product = await createProduct(api, owner.token, { price_xaf: 1000 }, 2);
  const refused = () =>
    api.request('POST', '/sales', { token: owner.token, body: { items: [{ product_id: product.id, quantity: 5 }], payments: [{ method: 'cash', amount_xaf: 5000 }] } });
  const statuses = new Map<string, number>();
  for (let round = 0; round < 60; round++) {
    const [sale, read, other] = await Promise.all([refused(), api.request('GET', `/products/${product.id}`, { token: owner.token }), refused()]);
    for (const [name, reply, expected] of [['sale', sale, 422], ['read', read, 200], ['other', other, 422]] as const) {
      const key = `${name} ${reply.status}`;
      statuses.set(key, (statuses.get(key) ?? 0) + 1);
      if (reply.status !== expected) t.fail(`round ${round}, ${name}: ${reply.status} ${JSON.stringify(reply.body)}`);
    }
    if (read.body.data?.id !== product.id) t.fail(`round ${round}: the product read answered ${JSON.stringify(read.body).slice(0, 200)}`);
  }
  t.strictSame(Object.fromEntries(statuses), { 'sale 422': 60, 'read 200': 60, 'other 422': 60 }, 'each request got its own answer');
});
