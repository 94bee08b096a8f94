import type { Test } from 'tap';
import { createLogger } from '../../api/logger.ts';
import type { Runtime } from '../../api/runtime.ts';
import type { LivenessTiming } from '../../worker/liveness.ts';
import { startWorker, type Worker } from '../../worker/worker.ts';
import { registerShop, waitFor, type ShopFixture } from '../support/fixtures.ts';
import type { Mailbox } from '../support/mailbox.ts';
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

// Helpers for the authorities' end-to-end tests (certification-emecef.test.ts, certification-fne.test.ts).

/** A shop whose default VAT rate is `rate` (e-MECeF and FNE have no group for Cameroon's 19.25 %). */
export async function shopSellingAt(api: Service, rate: number, overrides: Record<string, unknown> = {}): Promise<ShopFixture> {
  const owner = await registerShop(api, overrides);
  const set = await api.request('PUT', '/shop', { token: owner.token, body: { default_vat_rate: rate } });
  if (set.status !== 200) throw new Error(`setting the default VAT rate failed: ${set.status} ${JSON.stringify(set.body)}`);
  return owner;
}

/** Turns certification on with `settings`, failing loudly when refused. */
export async function enableCertification(api: Service, token: string, settings: Record<string, unknown>) {
  const reply = await api.request('PUT', '/fiscal/certification', { token, body: { enabled: true, ...settings } });
  if (reply.status !== 200) throw new Error(`enabling certification failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

/** A sale paid by card: it can be voided or refunded without an open shift. */
export async function sellByCard(api: Service, token: string, items: { product_id: string; quantity: number }[], extra: Record<string, unknown> = {}) {
  const priced = await Promise.all(items.map(async (item) => ({ ...item, price: (await api.request('GET', `/products/${item.product_id}`, { token })).body.data.price_xaf as number })));
  const total = priced.reduce((sum, item) => sum + Math.round(item.price * item.quantity), 0);
  return api.request('POST', '/sales', { token, body: { items, payments: [{ method: 'card', amount_xaf: total }], ...extra } });
}

/** Refunds `quantity` of the sale's line at `index`, by card; answers the sale with its refunds. */
export async function refundByCard(api: Service, token: string, sale: { id: string; items: { id: string }[] }, index: number, quantity: number) {
  const reply = await api.request('POST', `/sales/${sale.id}/refund`, {
    token,
    body: { method: 'card', reason: 'Retour client', items: [{ sale_item_id: sale.items[index]!.id, quantity }] },
  });
  if (reply.status !== 201) throw new Error(`refund failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

/** Every record of the shop as GET /fiscal/certifications lists it, in chain order (of one status, or all). */
export async function certificationRecords(api: Service, token: string, status?: 'pending' | 'certified' | 'rejected'): Promise<any[]> {
  const reply = await api.request('GET', `/fiscal/certifications?limit=100${status ? `&status=${status}` : ''}`, { token });
  if (reply.status !== 200) throw new Error(`listing certifications failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

/** Waits until the shop has `count` records and none pending; answers them in chain order. */
export async function allCertified(api: Service, token: string, count: number, timeoutMs = 30_000): Promise<any[]> {
  return waitFor(async () => {
    const records = await certificationRecords(api, token);
    return records.length === count && records.every((record) => record.status === 'certified') && records;
  }, `${count} records certified`, timeoutMs);
}

/**
 * A real worker (both runners) whose mail goes to `mailbox`, stopped when the (sub)test ends. One per
 * test, so that a test can kill its worker and start another without a third one taking the jobs.
 */
export async function startCertifyingWorker(t: Test, api: Service, mailbox: Mailbox, timing?: LivenessTiming): Promise<Worker> {
  const runtime: Runtime = { ...api.runtime, config: { ...api.config, SMTP_URL: `smtp://127.0.0.1:${mailbox.port}` } };
  const worker = await startWorker(runtime, createLogger('silent'), undefined, timing);
  t.teardown(() => worker.stop());
  return worker;
}
