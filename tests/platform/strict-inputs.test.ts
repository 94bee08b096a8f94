import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import t from 'tap';
import { localise } from '../../api/lib/messages.ts';
import { UNKNOWN_FIELD } from '../../api/strict-inputs.ts';
import { adminAccount, createProduct, login, PASSWORD, registerShop, uniqueEmail } from '../support/fixtures.ts';
import { bodySchema, deref, mergeAllOf, operationsOf, requestOf, type Operation, type Schema, unknownFieldsOf } from '../support/openapi-arbitraries.ts';
import { startService } from '../support/service.ts';
import { offlineSale, pairDevice, push } from '../sync/sync-fixtures.ts';
import { openShift } from '../shifts/shift-fixtures.ts';

/**
 * Strict inputs (CONTRACT section 2, issue 29): a body field or a query parameter an operation does
 * not know is a 422 "Unknown field." on its dotted path, on every operation of the document; the
 * records of a sync push take fields from newer tills. Each operation is called once or twice, as a
 * caller who gets past its authentication, with a body the document allows plus the unknown fields:
 * nothing is recorded, every request stops at validation.
 */

const api = await startService(t);
const doc = (await api.raw('GET', '/openapi.json')).body;
const operations = operationsOf(doc);

const owner = await registerShop(api);
const device = await pairDevice(api, owner.token);
const admin = await adminAccount(api);
const partnerEmail = uniqueEmail('partner');
const partner = await api.request('POST', '/admin/partners', { token: admin.token, body: { name: 'Moussa', email: partnerEmail, password: PASSWORD } });
if (partner.status !== 201) throw new Error(`partner failed: ${partner.status} ${JSON.stringify(partner.body)}`);
const partnerToken = await login(api, partnerEmail);

/** The message, in the fixtures' French or in English (a request without a token). */
const UNKNOWN = [UNKNOWN_FIELD, localise(UNKNOWN_FIELD, 'fr')];

/** Credentials that get past the operation's authentication and role checks: the owner, the partner, the administrator or the till. */
function credentialsFor(op: Operation): Record<string, string> {
  const schemes: string[] = (op.spec.security ?? []).flatMap((requirement: object) => Object.keys(requirement));
  if (schemes.includes('deviceAuth')) return { authorization: `Device ${device.token}` };
  if (!schemes.includes('bearerAuth')) return {};
  if (op.path.startsWith('/api/v1/partner/')) return { authorization: `Bearer ${partnerToken}` };
  if (op.path.startsWith('/api/v1/admin/')) return { authorization: `Bearer ${admin.token}` };
  return { authorization: `Bearer ${owner.token}` };
}

/** Path parameters and required query parameters the document allows (a fixed sample: every request stops at validation anyway). */
function parametersOf(op: Operation): { path: string; query: Record<string, string> } {
  const [plan] = fc.sample(requestOf({ doc, pools: new Map() }, op), { seed: 29, numRuns: 1 });
  const required = new Set((op.spec.parameters ?? []).filter((p: any) => p.in === 'query' && p.required).map((p: any) => p.name));
  const query = Object.fromEntries(Object.entries(plan!.query).filter(([name]) => required.has(name)));
  return { path: op.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(plan!.path[name]!)), query };
}

/** The operation's own example body: one the document allows. */
function exampleBody(op: Operation): unknown {
  const media = op.spec.requestBody.content['application/json'];
  return media.example ?? deref(doc, media.schema).example;
}

/** The path of the first object inside `value` (not the value itself) whose schema is closed: where a nested unknown field goes. */
function nestedClosedObject(schema: Schema, value: unknown, at: (string | number)[] = []): (string | number)[] | undefined {
  let resolved = deref(doc, schema);
  if (resolved.allOf && !resolved.properties) resolved = mergeAllOf(doc, resolved);
  for (const branch of resolved.anyOf ?? resolved.oneOf ?? []) {
    const found = nestedClosedObject(branch, value, at);
    if (found) return found;
  }
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = resolved.items && nestedClosedObject(resolved.items, item, [...at, index]);
      if (found) return found;
    }
    return undefined;
  }
  if (!value || typeof value !== 'object') return undefined;
  if (at.length > 0 && resolved.additionalProperties === false) return at;
  for (const [key, field] of Object.entries(value)) {
    const found = resolved.properties?.[key] && nestedClosedObject(resolved.properties[key], field, [...at, key]);
    if (found) return found;
  }
  return undefined;
}

function withKey(value: unknown, at: (string | number)[], key: string): unknown {
  if (at.length === 0) return { ...(value as object), [key]: true };
  const copy: any = Array.isArray(value) ? [...value] : { ...(value as object) };
  copy[at[0]!] = withKey(copy[at[0]!], at.slice(1), key);
  return copy;
}

async function call(op: Operation, query: Record<string, string>, body?: unknown) {
  const { path } = parametersOf(op);
  const search = new URLSearchParams(query).toString();
  return api.raw(op.method.toUpperCase(), `${path}${search ? `?${search}` : ''}`, { headers: credentialsFor(op), ...(body === undefined ? {} : { body }) });
}

/** What is wrong with an answer that should name each of `keys` as an unknown field. */
function unnamed(reply: { status: number; body: any }, keys: string[]): string[] {
  if (reply.status !== 422) return [`answered ${reply.status} ${JSON.stringify(reply.body).slice(0, 200)}`];
  return keys.filter((key) => !reply.body.errors?.[key]?.some((message: string) => UNKNOWN.includes(message))).map((key) => `no "Unknown field." on ${key}: ${JSON.stringify(reply.body.errors)}`);
}

t.test('an unknown body field, at the top level and nested, is a 422 "Unknown field." on its dotted path, on every operation that takes a body but a sync push', async (t) => {
  const problems: string[] = [];
  const taken: string[] = [];
  let nestedChecked = 0;
  for (const op of operations.filter((o) => bodySchema(o))) {
    const body = exampleBody(op);
    const nested = nestedClosedObject(bodySchema(op)!, body);
    if (nested) nestedChecked++;
    const sent = withKey(nested ? withKey(body, nested, 'unknown_field') : body, [], 'unknown_field');
    // What the document closes out; a push's body is open, and the push is answered as usual.
    const unknown = unknownFieldsOf(doc, bodySchema(op)!, sent);
    const reply = await call(op, parametersOf(op).query, sent);
    if (unknown.length === 0) {
      taken.push(op.name);
      if (reply.status !== 200) problems.push(`${op.name}: an open body answered ${reply.status} ${JSON.stringify(reply.body).slice(0, 200)}`);
    } else {
      const added = ['unknown_field', ...(nested ? [[...nested, 'unknown_field'].join('.')] : [])];
      if ([...unknown].sort().join() !== added.sort().join()) problems.push(`${op.name}: the document closes out ${unknown.join(', ')}, not ${added.join(', ')}`);
      problems.push(...unnamed(reply, unknown).map((problem) => `${op.name}: ${problem}`));
    }
  }
  t.strictSame(problems, [], 'every body operation names both unknown fields');
  t.strictSame(taken, ['POST /api/v1/device/sync/push', 'POST /api/v1/sync/push'], 'only the pushes take a field they do not know');
  t.ok(nestedChecked >= 10, `${nestedChecked} operations checked with a nested unknown field`);
});

t.test('an unknown query parameter is a 422 on its name, on every operation, whether or not it takes query parameters', async (t) => {
  const problems: string[] = [];
  for (const op of operations) {
    const { query } = parametersOf(op);
    const reply = await call(op, { ...query, dat: '2026-11-21' });
    problems.push(...unnamed(reply, ['dat']).map((problem) => `${op.name}: ${problem}`));
  }
  t.strictSame(problems, [], 'every operation names the unknown parameter');
});

t.test('an unknown field is answered together with the request\'s other validation errors', async (t) => {
  const reply = await api.request('POST', '/customers', { token: owner.token, body: { phone: '+237 699 00 01 11', credit_ceiling: 50_000 } });
  t.equal(reply.status, 422);
  t.equal(reply.body.code, 'validation_failed');
  t.strictSame(reply.body.errors, { name: ['Ce champ est obligatoire.'], credit_ceiling: ['Champ inconnu.'] });
  const query = await api.request('GET', '/sales?limit=0&cursr=abc', { token: owner.token });
  t.equal(query.status, 422);
  t.strictSame(Object.keys(query.body.errors).sort(), ['cursr', 'limit']);
});

t.test('a typo is no longer taken as "not given": credit_ceiling on a new customer, dat on the Z report', async (t) => {
  const before = await api.request('GET', '/customers', { token: owner.token });
  const typo = await api.request('POST', '/customers', { token: owner.token, body: { name: 'Awa', credit_ceiling: 50_000 } });
  t.strictSame([typo.status, typo.body.errors], [422, { credit_ceiling: ['Champ inconnu.'] }], 'the owner reads French');
  const after = await api.request('GET', '/customers', { token: owner.token });
  t.equal(after.body.data.length, before.body.data.length, 'no customer was created');
  const z = await api.request('GET', '/reports/z?dat=2026-01-02', { token: owner.token });
  t.strictSame([z.status, z.body.errors], [422, { dat: ['Champ inconnu.'] }]);
  const anonymous = await api.request('POST', '/auth/login', { body: { email: 'awa@example.cm', password: PASSWORD, remember: true } });
  t.strictSame([anonymous.status, anonymous.body.errors], [422, { remember: ['Unknown field.'] }], 'in English to a request without a token');
});

t.test('keys named after what every JavaScript object has are unknown fields like any other', async (t) => {
  const reply = await api.request('POST', '/customers', { token: owner.token, rawBody: '{"name":"Awa","__proto__":{"credit_ceiling_xaf":1},"constructor":1,"toString":"x"}' });
  t.equal(reply.status, 422);
  t.strictSame(Object.keys(reply.body.errors).sort(), ['__proto__', 'constructor', 'toString']);
});

t.test('headers and path parameters are not strict: an extra header is ignored', async (t) => {
  const reply = await api.request('GET', '/customers', { token: owner.token, headers: { 'x-till-version': '2.4.0' } });
  t.equal(reply.status, 200);
});

t.test('pushed records accept fields this version does not know, on the record and in a sale line, and are applied', async (t) => {
  const product = await createProduct(api, owner.token, { price_xaf: 1000 }, 10);
  await openShift(api, owner.token);
  const newer = { loyalty_stamp: 'v3', till_version: '3.1.0' };
  const sale = offlineSale(randomUUID(), product.id, 1, { ...newer, items: [{ product_id: product.id, quantity: 1, ...newer }], payments: [{ method: 'cash', amount_xaf: 1000, ...newer }] });
  const fromTill = await push(api, { device: device.token }, { sales: [sale], customers: [{ id: randomUUID(), name: 'Odile', ...newer }] });
  t.equal(fromTill.status, 200);
  t.strictSame(fromTill.body.data.results.map((r: any) => [r.entity, r.status]), [['customers', 'applied'], ['sales', 'applied']]);
  const fromOwner = await push(api, { bearer: owner.token }, {
    expenses: [{ id: randomUUID(), category: 'transport', amount_xaf: 2000, payment_method: 'cash', ...newer }],
    cash_movements: [{ id: randomUUID(), direction: 'in', amount_xaf: 500, reason: 'Monnaie', ...newer }],
  });
  t.strictSame(fromOwner.body.data.results.map((r: any) => [r.entity, r.status]), [['expenses', 'applied'], ['cash_movements', 'applied']]);
  const recorded = await api.request('GET', `/sales/${sale.id}`, { token: owner.token });
  t.equal(recorded.body.data.total_xaf, 1000, 'the sale is recorded as the fields this version knows say');
  const newerKinds = await push(api, { device: device.token }, { refunds: [{ id: randomUUID() }], sales: [offlineSale(randomUUID(), product.id, 1)] });
  t.strictSame(newerKinds.body.data.results.map((r: any) => [r.entity, r.status]), [['sales', 'applied']], 'records of a kind this version does not know are ignored, the sale beside them applied');
});

t.test('the document closes every object a request body holds, and leaves the pushed records open', async (t) => {
  const open = new Set<string>();
  const notClosed: string[] = [];
  const seen = new Set<Schema>();
  const visit = (schema: Schema, where: string, insideRecord: boolean): void => {
    const name = schema.$ref?.replace('#/components/schemas/', '');
    const resolved = deref(doc, schema);
    if (seen.has(resolved)) return;
    seen.add(resolved);
    const record = insideRecord || resolved.additionalProperties === true;
    if (resolved.additionalProperties === true && name) open.add(name);
    const isObject = resolved.type === 'object' || [resolved.type].flat().includes('object') || resolved.properties;
    if (isObject && !record && resolved.additionalProperties !== false && typeof resolved.additionalProperties !== 'object') notClosed.push(where);
    if (isObject && insideRecord && resolved.additionalProperties === false) notClosed.push(`${where} (closed inside a pushed record)`);
    for (const [key, property] of Object.entries<Schema>(resolved.properties ?? {})) visit(property, `${where}.${key}`, record);
    if (resolved.items) visit(resolved.items, `${where}[]`, record);
    for (const branch of [...(resolved.anyOf ?? []), ...(resolved.oneOf ?? [])]) visit(branch, where, record);
  };
  for (const op of operations.filter((o) => bodySchema(o))) visit(bodySchema(op)!, op.name, false);
  t.strictSame(notClosed, [], 'objects of request bodies without additionalProperties: false');
  t.strictSame([...open].sort(), ['SyncCashMovement', 'SyncCustomer', 'SyncExpense', 'SyncPush', 'SyncSale'], 'the push and its records, and only they, are open');
  for (const name of open) t.match(doc.components.schemas[name].description, /accepted and ignored/, `${name} says why`);
  t.notOk(JSON.stringify(doc).includes('x-record-schema'), 'no x-record-schema left');
});

t.test('each pushed array is typed by its record, and each result by its entity', async (t) => {
  const pushBody = deref(doc, doc.components.schemas.SyncPush);
  t.strictSame(
    Object.fromEntries(Object.entries<Schema>(pushBody.properties).map(([entity, array]) => [entity, array.items])),
    {
      customers: { $ref: '#/components/schemas/SyncCustomer' },
      sales: { $ref: '#/components/schemas/SyncSale' },
      expenses: { $ref: '#/components/schemas/SyncExpense' },
      cash_movements: { $ref: '#/components/schemas/SyncCashMovement' },
    },
  );
  const results = doc.components.schemas.SyncPushResult;
  t.equal(results.discriminator.propertyName, 'entity');
  const byEntity: Record<string, Schema> = Object.fromEntries(Object.entries<string>(results.discriminator.mapping).map(([entity, ref]) => [entity, deref(doc, { $ref: ref })]));
  t.strictSame(Object.keys(byEntity).sort(), ['cash_movements', 'customers', 'expenses', 'sales']);
  for (const [entity, result] of Object.entries<Schema>(byEntity)) t.strictSame(result.properties.entity.enum ?? [result.properties.entity.const], [entity], `${entity}: its entity`);
  t.ok(byEntity.sales?.properties.receipt_no, 'a sale\'s result carries its receipt number');
  t.ok(byEntity.customers?.properties.record, 'a customer\'s result carries the server\'s record when stale');
  t.notOk(byEntity.expenses?.properties.receipt_no, 'an expense\'s result has no receipt number');
});
