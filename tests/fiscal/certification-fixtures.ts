import type { Service } from '../support/service.ts';

/** A cash sale of `items`, paid exactly. */
export async function sell(api: Service, token: string, items: { product_id: string; quantity: number }[], extra: Record<string, unknown> = {}) {
  const priced = await Promise.all(items.map(async (item) => ({ ...item, price: (await api.request('GET', `/products/${item.product_id}`, { token })).body.data.price_xaf as number })));
  const total = priced.reduce((sum, item) => sum + Math.round(item.price * item.quantity), 0);
  return api.request('POST', '/sales', { token, body: { items, payments: [{ method: 'cash', amount_xaf: total }], ...extra } });
}

/** A sale's certification as GET /sales/{id} answers it. */
export async function certificationOf(api: Service, token: string, saleId: string) {
  return (await api.request('GET', `/sales/${saleId}`, { token })).body.data.certification;
}
