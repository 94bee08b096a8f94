import { createCategory, createProduct, postVariant, type ShopFixture } from '../support/fixtures.ts';
export { staffedShop, type StaffedShop } from '../support/fixtures.ts';
import type { Reply, Service } from '../support/service.ts';

/** Set-up shared by the promotion tests (tests/promotions only). */

export const postPromotion = (api: Service, token: string, body: Record<string, unknown>) => api.request('POST', '/promotions', { token, body });
export const putPromotion = (api: Service, token: string, id: string, body: Record<string, unknown>) =>
  api.request('PUT', `/promotions/${id}`, { token, body });
export const deletePromotion = (api: Service, token: string, id: string) => api.request('DELETE', `/promotions/${id}`, { token });

/** A promotion created through the API; fails the set-up loudly when refused. */
export async function createPromotion(api: Service, token: string, body: Record<string, unknown>): Promise<any> {
  const reply = await postPromotion(api, token, { name: 'Promo', ...body });
  if (reply.status !== 201) throw new Error(`create promotion failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

export interface PreviewItem {
  product_id: string;
  variant_id?: string | null;
  quantity: number;
  unit_price_xaf?: number | null;
  discount_xaf?: number | null;
}

export const preview = (api: Service, token: string, items: PreviewItem[], at?: string): Promise<Reply> =>
  api.request('POST', '/promotions/preview', { token, body: at === undefined ? { items } : { items, at } });

/** A preview that must succeed: its body's data. */
export async function priced(api: Service, token: string, items: PreviewItem[], at?: string): Promise<any> {
  const reply = await preview(api, token, items, at);
  if (reply.status !== 200) throw new Error(`preview failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

/** A product with one variant per size, each at its own price. */
export async function productWithVariants(api: Service, token: string, prices: Record<string, number>, fields: Record<string, unknown> = {}) {
  const product = await createProduct(api, token, fields);
  const variants: Record<string, any> = {};
  for (const [size, price] of Object.entries(prices)) {
    const reply = await postVariant(api, token, product.id, { options: { Taille: size }, price_xaf: price });
    if (reply.status !== 201) throw new Error(`create variant failed: ${reply.status} ${JSON.stringify(reply.body)}`);
    variants[size] = reply.body.data;
  }
  return { product, variants };
}

export { createCategory, createProduct };

/** Sets shop settings through PUT /shop (owner). */
export async function setShop(api: Service, owner: ShopFixture, body: Record<string, unknown>): Promise<void> {
  const reply = await api.request('PUT', '/shop', { token: owner.token, body });
  if (reply.status !== 200) throw new Error(`shop settings failed: ${reply.status} ${JSON.stringify(reply.body)}`);
}
