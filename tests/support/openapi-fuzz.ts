import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { pairDevice } from '../sync/sync-fixtures.ts';
import { addStaff, adminAccount, createCategory, createProduct, expireSubscription, PASSWORD, registerShop } from './fixtures.ts';
import {
  addToPool,
  bodyOf,
  harvest,
  operationsOf,
  requestOf,
  urlOf,
  type GenerationContext,
  type IdPools,
  type OpenApiDocument,
  type Operation,
  type RequestPlan,
} from './openapi-arbitraries.ts';
import type { Answer } from './openapi-validator.ts';
import type { Service } from './service.ts';

/**
 * The world the document-driven fuzzers run in: a shop with staff, a paired device, a shop whose
 * subscription has ended, a platform administrator, a sales partner whose referred shop paid (so it
 * has a commission line), records of every kind to name, and the means to send a planned request as
 * one of them. Start the service with `TRUST_PROXY=true`: the fixtures log in again from addresses of
 * their own, so the fuzzed public requests may exhaust the shared address's rate limit (a 429 is an
 * answer worth reaching) without locking the fixtures out.
 */

export type Caller = 'owner' | 'cashier' | 'expired_owner' | 'partner' | 'admin' | 'device' | 'nobody' | 'forged';
type Account_ = 'owner' | 'cashier' | 'expired_owner' | 'partner' | 'admin';

export interface SentAnswer extends Answer {
  /** The parsed JSON body, when there is one. */
  body: any;
}

export interface FuzzWorld {
  api: Service;
  doc: OpenApiDocument;
  operations: Operation[];
  pools: IdPools;
  ctx: GenerationContext;
  /** An untracked product in no pool: no fuzzed request names it, so a sale of it can always be made. */
  tillProductId: string;
  /** Who may call the operation, weighted toward callers who get past authentication. */
  callerOf(op: Operation): fc.Arbitrary<Caller>;
  send(plan: RequestPlan, caller: Caller): Promise<SentAnswer>;
}

interface Account {
  email: string;
  token: string;
}

/** An address of its own for each fixture login, so the public per-address limit never locks a fixture out. */
const ownAddress = () => `10.${randomBytes(3).join('.')}`;

async function login(api: Service, email: string): Promise<string> {
  const reply = await api.request('POST', '/auth/login', { body: { email, password: PASSWORD }, headers: { 'x-forwarded-for': ownAddress() } });
  if (reply.status !== 200) throw new Error(`fixture login failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data.token;
}

export async function fuzzWorld(api: Service): Promise<FuzzWorld> {
  const doc = (await api.raw('GET', '/openapi.json')).body as OpenApiDocument;
  const pools: IdPools = new Map();
  const owner = await registerShop(api);
  const cashier = await addStaff(api, owner, 'cashier');
  const spareManager = await addStaff(api, owner, 'manager');
  const expired = await registerShop(api);
  await expireSubscription(api, expired.shop.id);
  const device = await pairDevice(api, owner.token);
  const spareDevice = await pairDevice(api, owner.token, 'Caisse de rechange');
  const administrator = await adminAccount(api);
  const partnerEmail = `partner.${randomBytes(5).toString('hex')}@example.cm`;
  const partner = await api.request('POST', '/admin/partners', { token: administrator.token, body: { name: 'Moussa', email: partnerEmail, password: PASSWORD } });
  addToPool(pools, 'partners', partner.body.data.id);
  const referred = await registerShop(api, { referral_code: partner.body.data.code });
  const charge = await api.request('POST', '/billing/subscribe', { token: referred.token, body: { plan_id: '6b1c1a70-0000-4000-8000-000000000030', method: 'carrier1_momo', phone: '670000000' } });
  await api.request('POST', `/billing/confirm/${charge.body.data.reference}`, { token: referred.token });
  // The accrual's task, run here: the fuzzers run no worker.
  const [line] = await api.ownerSql<{ id: string }[]>`select (commission_accrue(${charge.body.data.reference})).id`;
  addToPool(pools, 'partner_commissions', line!.id);
  addToPool(pools, 'referred_shops', referred.shop.id);
  const accounts: Record<Account_, Account> = {
    owner: { email: owner.email, token: owner.token },
    cashier: { email: cashier.email, token: cashier.token },
    expired_owner: { email: expired.email, token: expired.token },
    admin: { email: administrator.email, token: administrator.token },
    partner: { email: partnerEmail, token: await login(api, partnerEmail) },
  };

  const tillProduct = await createProduct(api, owner.token, { name: 'Pain', price_xaf: 1000, tracked: false });
  addToPool(pools, 'users', spareManager.user.id);
  addToPool(pools, 'spare_devices', spareDevice.id);
  addToPool(pools, 'devices', device.id);
  const category = await createCategory(api, owner.token);
  addToPool(pools, 'categories', category.id);
  for (const fields of [{ category_id: category.id }, { unit: 'kg' }, { tracked: false }, {}]) {
    addToPool(pools, 'products', (await createProduct(api, owner.token, { price_xaf: 500, ...fields }, fields.tracked === false ? 0 : 1_000_000)).id);
  }
  const withVariants = await createProduct(api, owner.token, { name: 'T-shirt' });
  addToPool(pools, 'products', withVariants.id);
  const axes = await api.request('POST', `/products/${withVariants.id}/options`, { token: owner.token, body: { options: [{ name: 'Taille', values: ['S', 'M'] }] } });
  for (const option of axes.body.data) addToPool(pools, 'options', option.id);
  const variants = await api.request('POST', `/products/${withVariants.id}/variants/generate`, { token: owner.token, body: {} });
  for (const variant of variants.body.data) addToPool(pools, 'variants', variant.id);
  const customer = await api.request('POST', '/customers', { token: owner.token, body: { name: 'Awa', credit_ceiling_xaf: 100_000, card_no: 'CARTE-001' } });
  addToPool(pools, 'customers', customer.body.data.id);
  addToPool(pools, 'cards', 'CARTE-001');
  const sale = await api.request('POST', '/sales', {
    token: owner.token,
    // On credit: the customer owes 50,000, so that settlements can be taken.
    body: { customer_id: customer.body.data.id, items: [{ product_id: pools.get('products')![0], quantity: 100 }] },
  });
  addToPool(pools, 'sales', sale.body.data.id);
  for (const item of sale.body.data.items) addToPool(pools, 'sale_items', item.id);
  const stocktake = await api.request('POST', '/stocktakes', { token: owner.token, body: {} });
  addToPool(pools, 'stocktakes', stocktake.body.data.id);
  for (const item of stocktake.body.data.items) addToPool(pools, 'stocktake_items', item.id);
  const promotion = await api.request('POST', '/promotions', { token: owner.token, body: { name: 'Rentrée', kind: 'percent', value: 10 } });
  addToPool(pools, 'promotions', promotion.body.data.id);
  const expense = await api.request('POST', '/expenses', { token: owner.token, body: { category: 'rent', amount_xaf: 1000, payment_method: 'bank' } });
  addToPool(pools, 'expenses', expense.body.data.id);
  for (const customer_id of [customer.body.data.id, null]) {
    const quote = await api.request('POST', '/quotes', { token: owner.token, body: { customer_id, items: [{ product_id: pools.get('products')![0], quantity: 2 }] } });
    addToPool(pools, 'quotes', quote.body.data.id);
  }
  const shift = await api.request('POST', '/shift/open', { token: cashier.token, body: { opening_float_xaf: 10_000 } });
  addToPool(pools, 'shifts', shift.body.data.id);

  const ctx: GenerationContext = { doc, pools };

  const callerOf = (op: Operation): fc.Arbitrary<Caller> => {
    const schemes: string[] = (op.spec.security ?? []).flatMap((requirement: object) => Object.keys(requirement));
    if (schemes.includes('deviceAuth')) return fc.oneof({ weight: 8, arbitrary: fc.constant('device' as const) }, fc.constant('nobody' as const), fc.constant('forged' as const));
    if (schemes.includes('bearerAuth')) {
      // Each side's own operations mostly as its own account; everyone else's now and then (a 403).
      for (const [prefix, own] of [['/api/v1/partner/', 'partner'], ['/api/v1/admin/', 'admin']] as const) {
        if (op.path.startsWith(prefix)) {
          return fc.oneof(
            { weight: 12, arbitrary: fc.constant(own) },
            { weight: 1, arbitrary: fc.constant(own === 'admin' ? ('partner' as const) : ('admin' as const)) },
            { weight: 1, arbitrary: fc.constant('owner' as const) },
            { weight: 1, arbitrary: fc.constant('nobody' as const) },
            { weight: 1, arbitrary: fc.constant('forged' as const) },
          );
        }
      }
      return fc.oneof(
        { weight: 12, arbitrary: fc.constant('owner' as const) },
        { weight: 4, arbitrary: fc.constant('cashier' as const) },
        { weight: 2, arbitrary: fc.constant('expired_owner' as const) },
        { weight: 1, arbitrary: fc.constant('partner' as const) },
        { weight: 1, arbitrary: fc.constant('admin' as const) },
        { weight: 1, arbitrary: fc.constant('nobody' as const) },
        { weight: 1, arbitrary: fc.constant('forged' as const) },
      );
    }
    return fc.constant('nobody' as const);
  };

  const authorization = (caller: Caller): string | undefined => {
    switch (caller) {
      case 'device':
        return `Device ${device.token}`;
      case 'nobody':
        return undefined;
      case 'forged':
        return 'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';
      default:
        return `Bearer ${accounts[caller as Account_].token}`;
    }
  };

  const send = async (plan: RequestPlan, caller: Caller): Promise<SentAnswer> => {
    const { text, contentType } = bodyOf(plan);
    const headers: Record<string, string> = { ...plan.headers };
    const auth = authorization(caller);
    if (auth) headers.authorization = auth;
    if (contentType) headers['content-type'] = contentType;
    const response = await fetch(`${api.baseUrl}${urlOf(plan)}`, { method: plan.op.method.toUpperCase(), headers, body: text });
    const answerText = await response.text();
    let body: unknown;
    if ((response.headers.get('content-type') ?? '').includes('json') && answerText) {
      try {
        body = JSON.parse(answerText);
      } catch {
        body = undefined;
      }
    }
    harvest(pools, plan, response.status, body);
    // A list that shows the till's product (GET /products) must not put it in reach of the fuzzed
    // requests (a PUT made it cost a billion francs, and every good sale after that came up short).
    pools.set('products', (pools.get('products') ?? []).filter((id) => id !== tillProduct.id));
    // Logout (or anything that ended the session) is part of the run: the fixture logs in again.
    if (response.status === 401 && caller in accounts) {
      accounts[caller as Account_].token = await login(api, accounts[caller as Account_].email);
    }
    return { status: response.status, headers: response.headers, text: answerText, body };
  };

  return { api, doc, operations: operationsOf(doc).filter((op) => op.path.startsWith('/api/v1/')), pools, ctx, tillProductId: tillProduct.id, callerOf, send };
}

/** One planned request: an operation's request as its document describes it, and who sends it. */
export function plannedRequest(world: FuzzWorld): fc.Arbitrary<{ plan: RequestPlan; caller: Caller }> {
  return fc
    .constantFrom(...world.operations)
    .chain((op) => fc.record({ plan: requestOf(world.ctx, op), caller: world.callerOf(op) }));
}

/** A request as a line of a report: method, URL, caller and the start of the body. */
export function describe(plan: RequestPlan, caller: Caller): string {
  const { text, contentType } = bodyOf(plan);
  const body = text === undefined ? '' : ` ${contentType ?? '(no content type)'} ${text.length > 300 ? `${text.slice(0, 300)}...` : text}`;
  return `${plan.op.method.toUpperCase()} ${urlOf(plan).slice(0, 300)} as ${caller}${body}`;
}
