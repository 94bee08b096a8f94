import type { Reply, Service } from '../support/service.ts';

/** Set-up and read-backs shared by the sync tests. */

export interface PairedDevice {
  id: string;
  token: string;
}

/** A device paired the way a till does it: pairing request, claim by a manager or owner, poll with the secret. */
export async function pairDevice(api: Service, managerToken: string, name = 'Caisse'): Promise<PairedDevice> {
  const pairing = await api.request('POST', '/device-pairings', { body: { name, platform: 'pwa' } });
  if (pairing.status !== 201) throw new Error(`pairing failed: ${pairing.status} ${JSON.stringify(pairing.body)}`);
  const { code, poll_secret } = pairing.body.data;
  const claimed = await api.request('POST', `/device-pairings/${code}/claim`, { token: managerToken });
  if (claimed.status !== 201) throw new Error(`claim failed: ${claimed.status} ${JSON.stringify(claimed.body)}`);
  const polled = await api.request('GET', `/device-pairings/${code}`, { headers: { 'x-pairing-secret': poll_secret } });
  return polled.body.data.device as PairedDevice;
}

/** Who syncs: a device (device credentials, /device/sync) or a shop user (bearer, /sync). */
export type SyncAuth = { device: string } | { bearer: string };

const route = (auth: SyncAuth, action: 'pull' | 'push') => ('device' in auth ? `/device/sync/${action}` : `/sync/${action}`);
const credentials = (auth: SyncAuth) => ('device' in auth ? { headers: { authorization: `Device ${auth.device}` } } : { token: auth.bearer });

export function pull(api: Service, auth: SyncAuth, query: Record<string, string | number> = {}): Promise<Reply> {
  const search = new URLSearchParams(Object.entries(query).map(([key, value]) => [key, String(value)])).toString();
  return api.request('GET', `${route(auth, 'pull')}${search ? `?${search}` : ''}`, credentials(auth));
}

export function push(api: Service, auth: SyncAuth, body: unknown): Promise<Reply> {
  return api.request('POST', route(auth, 'push'), { ...credentials(auth), body });
}

export const ENTITIES = ['categories', 'products', 'product_options', 'variants', 'customers', 'promotions', 'loyalty_tiers', 'sales', 'quotes'] as const;
export type Entity = (typeof ENTITIES)[number];

/** What a till holds: each entity's live records by id, and its cursor. */
export interface Replica {
  records: Record<Entity, Map<string, any>>;
  cursor: string | undefined;
  pages: number;
}

export function emptyReplica(): Replica {
  return { records: Object.fromEntries(ENTITIES.map((entity) => [entity, new Map()])) as Replica['records'], cursor: undefined, pages: 0 };
}

/** Pulls until no entity has more, applying each record (a deletion drops it), as a till does. */
export async function catchUp(api: Service, auth: SyncAuth, replica: Replica, query: Record<string, string | number> = {}): Promise<Replica> {
  for (let guard = 0; guard < 10_000; guard++) {
    const reply = await pull(api, auth, { ...query, ...(replica.cursor ? { since: replica.cursor } : {}) });
    if (reply.status !== 200) throw new Error(`pull failed: ${reply.status} ${JSON.stringify(reply.body)}`);
    replica.pages++;
    for (const entity of ENTITIES) {
      for (const record of reply.body.data[entity]) {
        if (record.deleted_at) replica.records[entity].delete(record.id);
        else replica.records[entity].set(record.id, record);
      }
    }
    replica.cursor = reply.body.cursor;
    if (!ENTITIES.some((entity) => reply.body.has_more[entity])) return replica;
  }
  throw new Error('pull never caught up');
}

/** A sale as a till records it offline: its own id and time. */
export function offlineSale(id: string, productId: string, quantity: number, extra: Record<string, unknown> = {}) {
  return { id, created_at: new Date().toISOString(), items: [{ product_id: productId, quantity }], payments: [{ method: 'cash', amount_xaf: 1_000_000 }], ...extra };
}
