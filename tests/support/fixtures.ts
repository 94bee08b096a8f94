import { randomBytes, randomUUID } from 'node:crypto';
import { hashPassword } from '../../api/lib/password.ts';
import type { Service } from './service.ts';

/** Shared set-up: a shop with its owner, staff of each role, unique e-mails. */

export const PASSWORD = 'secret-pass-1';

export function uniqueEmail(prefix = 'user'): string {
  return `${prefix}.${randomBytes(5).toString('hex')}@example.cm`;
}

export interface ShopFixture {
  token: string;
  user: any;
  shop: any;
  email: string;
  password: string;
}

export async function registerShop(api: Service, overrides: Record<string, unknown> = {}): Promise<ShopFixture> {
  const email = (overrides.owner_email as string) ?? uniqueEmail('owner');
  const reply = await api.request('POST', '/auth/register', {
    body: { shop_name: 'Boutique Awa', owner_name: 'Awa Ndiaye', owner_email: email, password: PASSWORD, ...overrides },
  });
  if (reply.status !== 201) throw new Error(`register failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return { token: reply.body.data.token, user: reply.body.data.user, shop: reply.body.data.shop, email, password: PASSWORD };
}

export interface StaffFixture {
  token: string;
  user: any;
  email: string;
}

/** A staff member of the given role, created by the shop's owner, logged in. */
export async function addStaff(api: Service, owner: ShopFixture, role: 'owner' | 'manager' | 'cashier'): Promise<StaffFixture> {
  const email = uniqueEmail(role);
  const created = await api.request('POST', '/users', { token: owner.token, body: { name: `A ${role}`, email, password: PASSWORD, role } });
  if (created.status !== 201) throw new Error(`add staff failed: ${created.status} ${JSON.stringify(created.body)}`);
  return { token: await login(api, email), user: created.body.data, email };
}

export async function login(api: Service, email: string, password = PASSWORD): Promise<string> {
  const reply = await api.request('POST', '/auth/login', { body: { email, password } });
  if (reply.status !== 200) throw new Error(`login failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data.token;
}

/** A platform administrator, as `npm run admin:create` makes one, logged in. */
export async function adminAccount(api: Service): Promise<{ id: string; email: string; token: string }> {
  const id = randomUUID();
  const email = uniqueEmail('admin');
  await api.ownerSql`
    insert into users (id, kind, name, email, password_hash)
    values (${id}, 'admin', 'Platform Admin', ${email}, ${await hashPassword(PASSWORD, api.config.BCRYPT_ROUNDS)})`;
  return { id, email, token: await login(api, email) };
}

/** Ends the shop's trial (and any subscription) so that writes need a subscription. */
export async function expireSubscription(api: Service, shopId: string): Promise<void> {
  await api.ownerSql`update shops set trial_ends_at = now() - interval '1 day', subscription_ends_at = null where id = ${shopId}`;
}

/** A string of exactly `length` characters. */
export const chars = (length: number, ch = 'a') => ch.repeat(length);

/**
 * Polls `probe` every 100 ms until it returns something other than undefined or false, for at most
 * `timeoutMs`. For things that happen in another process (a job, a server starting), never a fixed sleep.
 */
export async function waitFor<T>(probe: () => T | undefined | false | Promise<T | undefined | false>, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A product created through the API by a manager or owner; `on_hand` > 0 sets its stock with an adjustment. */
export async function createProduct(api: Service, token: string, fields: Record<string, unknown> = {}, onHand = 0): Promise<any> {
  const created = await api.request('POST', '/products', {
    token,
    body: { name: `Produit ${randomBytes(3).toString('hex')}`, price_xaf: 1000, cost_xaf: 600, ...fields },
  });
  if (created.status !== 201) throw new Error(`create product failed: ${created.status} ${JSON.stringify(created.body)}`);
  if (onHand === 0) return created.body.data;
  const adjusted = await api.request('POST', `/products/${created.body.data.id}/adjust`, { token, body: { new_quantity: onHand, reason: 'Opening stock' } });
  if (adjusted.status !== 200) throw new Error(`opening stock failed: ${adjusted.status} ${JSON.stringify(adjusted.body)}`);
  return adjusted.body.data.product;
}

export async function createCategory(api: Service, token: string, fields: Record<string, unknown> = {}): Promise<any> {
  const created = await api.request('POST', '/categories', { token, body: { name: `Rayon ${randomBytes(3).toString('hex')}`, ...fields } });
  if (created.status !== 201) throw new Error(`create category failed: ${created.status} ${JSON.stringify(created.body)}`);
  return created.body.data;
}

/** Checks two invariants straight from the database: on-hand equals the sum of movements, every journal entry balances. */
export async function ledgerInvariants(api: Service, shopId: string): Promise<{ stockMismatches: unknown[]; unbalancedEntries: unknown[] }> {
  const stockMismatches = await api.ownerSql`
    select p.id, p.on_hand, coalesce(sum(m.quantity), 0) as movements
      from products p left join stock_movements m on m.shop_id = p.shop_id and m.product_id = p.id
     where p.shop_id = ${shopId}
     group by p.shop_id, p.id having p.on_hand <> coalesce(sum(m.quantity), 0)
    union all
    select v.id, v.on_hand, coalesce(sum(m.quantity), 0)
      from variants v left join stock_movements m on m.shop_id = v.shop_id and m.variant_id = v.id
     where v.shop_id = ${shopId}
     group by v.shop_id, v.id having v.on_hand <> coalesce(sum(m.quantity), 0)`;
  const unbalancedEntries = await api.ownerSql`
    select e.id, sum(l.debit_xaf) as debit, sum(l.credit_xaf) as credit
      from journal_entries e join journal_lines l on l.shop_id = e.shop_id and l.entry_id = e.id
     where e.shop_id = ${shopId}
     group by e.shop_id, e.id having sum(l.debit_xaf) <> sum(l.credit_xaf)`;
  return { stockMismatches: [...stockMismatches], unbalancedEntries: [...unbalancedEntries] };
}

/**
 * POST /products/{id}/variants after making sure the product's axes include the options named, so
 * set-up code can say `{options: {Taille: 'M'}}` without declaring the axes first. Answers the reply.
 */
export async function postVariant(api: Service, token: string, productId: string, body: { options: Record<string, string> } & Record<string, unknown>) {
  const current = await api.request('GET', `/products/${productId}/options`, { token });
  if (current.status !== 200) return api.request('POST', `/products/${productId}/variants`, { token, body });
  const axes: { name: string; values: string[] }[] = current.body.data.map((o: any) => ({ name: o.name, values: o.values }));
  let changed = false;
  for (const [rawName, rawValue] of Object.entries(body.options)) {
    const [name, value] = [rawName.trim(), rawValue.trim()];
    const axis = axes.find((a) => a.name === name);
    if (!axis) {
      axes.push({ name, values: [value] });
      changed = true;
    } else if (!axis.values.includes(value)) {
      axis.values.push(value);
      changed = true;
    }
  }
  if (changed) {
    const replaced = await api.request('POST', `/products/${productId}/options`, { token, body: { options: axes } });
    if (replaced.status !== 200) throw new Error(`options failed: ${replaced.status} ${JSON.stringify(replaced.body)}`);
  }
  return api.request('POST', `/products/${productId}/variants`, { token, body });
}

export interface StaffedShop {
  owner: ShopFixture;
  manager: StaffFixture;
  cashier: StaffFixture;
}

/** A shop with its owner, one manager and one cashier, all logged in. */
export async function staffedShop(api: Service): Promise<StaffedShop> {
  const owner = await registerShop(api);
  const manager = await addStaff(api, owner, 'manager');
  const cashier = await addStaff(api, owner, 'cashier');
  return { owner, manager, cashier };
}

/** A subscription charge's next poll (worker/tasks/charge__poll.ts), removed: the test then asks by POST /billing/confirm alone. */
export async function stopChargePolling(api: Service, reference: string): Promise<void> {
  await waitFor(async () => {
    await api.ownerSql`select graphile_worker.remove_job(${`charge_poll:${reference}`})`;
    const [row] = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from graphile_worker.jobs where key = ${`charge_poll:${reference}`}`;
    return row!.n === 0;
  }, 'the charge\'s poll to be removed');
}
