import fc from 'fast-check';

/**
 * fast-check arbitraries built from the service's own OpenAPI document: requests that follow an
 * operation's declared parameters and body, and faults to inject into them. Shared by the
 * document's conformance fuzzer (tests/platform/openapi-conformance.test.ts), the chaos fuzzer
 * (tests/chaos/fuzz.test.ts) and the document's own checks (tests/platform/openapi.test.ts).
 */

export type Schema = Record<string, any>;

export interface OpenApiDocument {
  paths: Record<string, Record<string, any>>;
  components: { schemas: Record<string, Schema> };
}

export interface Operation {
  /** `POST /api/v1/sales`, as reports name it. */
  name: string;
  method: string;
  path: string;
  spec: any;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

export function operationsOf(doc: OpenApiDocument): Operation[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method]).map((method) => ({ name: `${method.toUpperCase()} ${path}`, method, path, spec: item[method] })),
  );
}

const REF = /^#\/components\/schemas\/(.+)$/;

/** The schema a `$ref` names (followed until it is no reference). */
export function deref(doc: OpenApiDocument, schema: Schema): Schema {
  let current = schema;
  while (current?.$ref) {
    const name = REF.exec(current.$ref)?.[1];
    if (!name || !doc.components.schemas[name]) throw new Error(`unresolvable reference ${current.$ref}`);
    current = doc.components.schemas[name]!;
  }
  return current;
}

/** The JSON body schema of an operation, if it takes one. */
export function bodySchema(op: Operation): Schema | undefined {
  return op.spec.requestBody?.content?.['application/json']?.schema;
}

/** Every schema a request of the operation is checked against, named by where it sits: parameters and the body (with the records its arrays hold). */
export function requestSchemas(doc: OpenApiDocument, op: Operation): { where: string; schema: Schema }[] {
  const found: { where: string; schema: Schema }[] = (op.spec.parameters ?? []).map((p: any) => ({ where: `${p.in} ${p.name}`, schema: p.schema }));
  const body = bodySchema(op);
  if (body) found.push({ where: 'body', schema: body });
  return found;
}

/** The JSON type of a value, as a schema's `type` names it. */
const typeOfValue = (value: unknown) =>
  value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value === 'number' ? (Number.isInteger(value) ? 'integer' : 'number') : typeof value;

/** Whether a schema (a branch of an anyOf or oneOf) can take a value of that JSON type. */
function takesTypeOf(doc: OpenApiDocument, schema: Schema, value: unknown): boolean {
  const resolved = deref(doc, schema);
  if (resolved.anyOf || resolved.oneOf || resolved.allOf || resolved.type === undefined) return true;
  const types: string[] = [resolved.type].flat();
  const type = typeOfValue(value);
  return types.includes(type) || (type === 'integer' && types.includes('number'));
}

/**
 * The dotted paths (`items.0.foo`) of the keys of `value` that its schema closes out
 * (`additionalProperties: false`): the unknown fields the server answers 422 on. An open object (a
 * pushed record) takes any key, in everything it holds. A key is unknown to a choice (anyOf, oneOf)
 * when every branch that takes the value's type closes it out.
 */
export function unknownFieldsOf(doc: OpenApiDocument, schema: Schema, value: unknown, at: (string | number)[] = []): string[] {
  let resolved = deref(doc, schema);
  // An allOf beside the object's own properties only adds rules to them (CreatePromotion's); without, it is the object.
  if (resolved.allOf && !resolved.properties) resolved = mergeAllOf(doc, resolved);
  const branches: Schema[] = (resolved.anyOf ?? resolved.oneOf ?? []).filter((branch: Schema) => takesTypeOf(doc, branch, value));
  if (branches.length) {
    const [first = [], ...others] = branches.map((branch) => unknownFieldsOf(doc, branch, value, at));
    return first.filter((path) => others.every((found) => found.includes(path)));
  }
  if (Array.isArray(value)) return resolved.items ? value.flatMap((item, index) => unknownFieldsOf(doc, resolved.items, item, [...at, index])) : [];
  if (!value || typeof value !== 'object' || resolved.additionalProperties === true) return [];
  return Object.entries(value).flatMap(([key, field]) => {
    const property = resolved.properties && Object.hasOwn(resolved.properties, key) ? resolved.properties[key] : undefined;
    if (property) return unknownFieldsOf(doc, property, field, [...at, key]);
    if (resolved.additionalProperties === false) return [[...at, key].join('.')];
    return resolved.additionalProperties ? unknownFieldsOf(doc, resolved.additionalProperties, field, [...at, key]) : [];
  });
}

/**
 * Calls `visit` on the schema and every schema inside it (properties, items, record values and keys,
 * combinations), with a dotted location; `key` is true for a record's `propertyNames`.
 */
export function visitSchemas(
  doc: OpenApiDocument,
  schema: Schema,
  where: string,
  visit: (schema: Schema, where: string, key: boolean) => void,
  key = false,
  seen = new Set<Schema>(),
): void {
  const resolved = deref(doc, schema);
  if (seen.has(resolved)) return;
  const inner = new Set(seen).add(resolved);
  visit(resolved, where, key);
  for (const [name, property] of Object.entries<Schema>(resolved.properties ?? {})) visitSchemas(doc, property, `${where}.${name}`, visit, false, inner);
  if (resolved.items && typeof resolved.items === 'object') visitSchemas(doc, resolved.items, `${where}.N`, visit, false, inner);
  if (resolved.additionalProperties && typeof resolved.additionalProperties === 'object') {
    visitSchemas(doc, resolved.additionalProperties, `${where}.<value>`, visit, false, inner);
  }
  if (resolved.propertyNames) visitSchemas(doc, resolved.propertyNames, `${where}.<key>`, visit, true, inner);
  for (const combination of ['anyOf', 'oneOf', 'allOf'] as const) {
    (resolved[combination] ?? []).forEach((branch: Schema, index: number) => visitSchemas(doc, branch, `${where}(${combination} ${index})`, visit, key, inner));
  }
}

// ---------------------------------------------------------------------------------------------
// Record ids the requests may name: real ones (set up by fixtures, harvested from answers) and random ones.

/** Pools of ids by kind of record, filled by the fixtures and by the answers of the run itself. */
export type IdPools = Map<string, string[]>;

/** The pool a property or parameter of this name draws from. */
const POOL_OF_NAME: Record<string, string> = {
  product_id: 'products',
  product_ids: 'products',
  variant_id: 'variants',
  variant_ids: 'variants',
  customer_id: 'customers',
  category_id: 'categories',
  category_ids: 'categories',
  parent_id: 'categories',
  sale_id: 'sales',
  sale_item_id: 'sale_items',
  item_id: 'stocktake_items',
  stocktake_id: 'stocktakes',
  promotion_id: 'promotions',
  option_id: 'options',
  expense_id: 'expenses',
  user_id: 'users',
  cashier: 'users',
  shift_id: 'shifts',
  device_id: 'devices',
  code: 'pairing_codes',
  card_no: 'cards',
  supplier_id: 'suppliers',
  purchase_id: 'purchases',
  purchase_item_id: 'purchase_items',
  quote_id: 'quotes',
  partner_id: 'partners',
  partner: 'partners',
  ids: 'partner_commissions',
};

/** `{id}` takes its kind from the collection before it: `/customers/{id}` names a customer. */
function poolOfPathId(path: string): string | undefined {
  const collection = /\/([a-z-]+)\/\{id\}/.exec(path)?.[1];
  return collection === 'devices' ? 'spare_devices' : collection;
}

export function addToPool(pools: IdPools, pool: string, id: unknown): void {
  if (typeof id !== 'string') return;
  const ids = pools.get(pool) ?? [];
  if (!ids.includes(id)) ids.push(id);
  if (ids.length > 200) ids.shift();
  pools.set(pool, ids);
}

/** Records an answer's ids in their pools, so later requests name records that exist. */
export function harvest(pools: IdPools, plan: RequestPlan, status: number, body: any): void {
  const { op } = plan;
  if (status < 200 || status >= 300) return;
  if (op.method === 'delete') {
    // A deleted record leaves its pool: later requests name records that exist (or random ids).
    for (const [name, id] of Object.entries(plan.path)) {
      const pool = name === 'id' ? poolOfPathId(op.path) : POOL_OF_NAME[name];
      if (pool && /\{[a-z_]+\}$/.test(op.path) && op.path.endsWith(`{${name}}`)) pools.set(pool, (pools.get(pool) ?? []).filter((known) => known !== id));
    }
    return;
  }
  if (!body || typeof body !== 'object') return;
  const data = body.data;
  const records: any[] = Array.isArray(data) ? data : data && typeof data === 'object' ? [data] : [];
  const collection = /^\/api\/v1\/([a-z-]+)/.exec(op.path)?.[1];
  for (const record of records) {
    if (!record || typeof record !== 'object') continue;
    if (collection === 'device-pairings' && typeof record.code === 'string') addToPool(pools, 'pairing_codes', record.code);
    if (collection === 'sales' || record.receipt_no !== undefined) {
      addToPool(pools, 'sales', record.id);
      for (const item of record.items ?? []) addToPool(pools, 'sale_items', item.id);
    } else if (collection === 'stocktakes') {
      addToPool(pools, 'stocktakes', record.id);
      for (const item of record.items ?? []) addToPool(pools, 'stocktake_items', item.id);
    } else if (collection === 'purchases') {
      addToPool(pools, 'purchases', record.id);
      for (const item of record.items ?? []) addToPool(pools, 'purchase_items', item.id);
    } else if (collection === 'quotes') {
      // A conversion answers {quote, sale}.
      const quote = record.quote ?? record;
      addToPool(pools, 'quotes', quote.id);
      if (record.sale) addToPool(pools, 'sales', record.sale.id);
    } else if (collection === 'products' && /variants/.test(op.path)) addToPool(pools, 'variants', record.id);
    else if (collection === 'products' && /options/.test(op.path)) addToPool(pools, 'options', record.id);
    else if (collection && ['products', 'customers', 'categories', 'promotions', 'expenses', 'suppliers'].includes(collection)) addToPool(pools, collection, record.id);
    if (typeof record.card_no === 'string') addToPool(pools, 'cards', record.card_no);
    if (op.path === '/api/v1/admin/partners') addToPool(pools, 'partners', record.id);
    // Commission lines: listed, or changed by a payout ({lines}).
    for (const line of typeof record.charge_reference === 'string' ? [record] : Array.isArray(record.lines) ? record.lines : []) {
      addToPool(pools, 'partner_commissions', line.id);
      addToPool(pools, 'partners', line.partner_id);
    }
  }
}

/** A real id of the pool most of the time (the live pool, read when the value is drawn), else a random one. */
function idFrom(pools: IdPools, pool: string | undefined, random: fc.Arbitrary<string>): fc.Arbitrary<string> {
  if (!pool) return random;
  return fc.oneof(
    { weight: 3, arbitrary: fc.nat().map((i) => pools.get(pool)?.[i % (pools.get(pool)?.length || 1)]) },
    { weight: 1, arbitrary: random },
  ).chain((id) => (id === undefined ? random : fc.constant(id)));
}

// ---------------------------------------------------------------------------------------------
// Values that follow a schema.

export interface GenerationContext {
  doc: OpenApiDocument;
  pools: IdPools;
}

/** Characters of shop texts, each one code point: letters, French accents, spaces, and some beyond the Basic Multilingual Plane. */
const TEXT_UNIT = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789') },
  { weight: 2, arbitrary: fc.constantFrom(' ', '-', "'", '.', ',', 'é', 'è', 'ç', 'ô', 'É', 'ß', 'ñ') },
  { weight: 1, arbitrary: fc.constantFrom('😀', '🍵', '中', '𝄞', '\u00a0', '\t', '\n', 'ﻼ', '\u200b') },
);

function textArbitrary(schema: Schema): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = schema.maxLength ?? 200;
  const pattern = schema.pattern ? new RegExp(schema.pattern, 'u') : undefined;
  const typical = fc.string({ unit: TEXT_UNIT, minLength: min, maxLength: Math.max(min, Math.min(max, 24)) });
  const longest = fc.string({ unit: TEXT_UNIT, minLength: max, maxLength: max });
  return fc
    .oneof({ weight: 9, arbitrary: typical }, { weight: 1, arbitrary: longest })
    .map((text) => (pattern && !pattern.test(text) && text.length > 0 ? `x${[...text].slice(1).join('')}` : text))
    .map((text) => (pattern && !pattern.test(text) && max > 0 ? 'x' : text));
}

const DAY_MS = 86_400_000;

/**
 * Days and times far from now: a till's dead clock (year 1, 1970, a millisecond before 2000) or one
 * running years ahead. Drawn now and then wherever the schema's pattern admits them (a till's
 * `created_at`, a list filter), never where it states the 2000-01-01 minimum of a day a person types.
 */
const FAR_DAYS = ['0001-01-01', '0026-11-29', '1970-01-01', '1999-12-31', '2099-06-30'];
const FAR_TIMES = ['0001-01-01T00:00:00.000Z', '0010-01-31T00:00:00.000Z', '1970-01-01T00:00:00.000Z', '1999-12-31T23:59:59.999Z', '2099-06-30T12:00:00.000Z'];

function nearOrFar(schema: Schema, near: fc.Arbitrary<string>, far: string[]): fc.Arbitrary<string> {
  const admitted = far.filter((value) => !schema.pattern || new RegExp(schema.pattern).test(value));
  return admitted.length ? fc.oneof({ weight: 9, arbitrary: near }, { weight: 1, arbitrary: fc.constantFrom(...admitted) }) : near;
}

function stringArbitrary(ctx: GenerationContext, schema: Schema, name: string | undefined, path: string | undefined): fc.Arbitrary<string> {
  if (schema.format === 'uuid') {
    const pool = name === 'id' && path ? poolOfPathId(path) : name ? POOL_OF_NAME[name] : undefined;
    return idFrom(ctx.pools, pool, fc.uuid({ version: 4 }));
  }
  if (schema.format === 'email') {
    return fc.tuple(fc.stringMatching(/^[a-z]{1,12}$/), fc.nat(99_999)).map(([local, n]) => `${local}.${n}@example.cm`);
  }
  if (schema.format === 'date') {
    return nearOrFar(schema, fc.integer({ min: -400, max: 30 }).map((days) => new Date(Date.now() + days * DAY_MS).toISOString().slice(0, 10)), FAR_DAYS);
  }
  if (schema.format === 'date-time') {
    return nearOrFar(schema, fc.integer({ min: -100 * 24 * 60, max: 60 }).map((minutes) => new Date(Date.now() + minutes * 60_000).toISOString()), FAR_TIMES);
  }
  if (name && POOL_OF_NAME[name] && ['pairing_codes', 'cards'].includes(POOL_OF_NAME[name]!)) {
    return idFrom(ctx.pools, POOL_OF_NAME[name], textArbitrary(schema));
  }
  // A shape (a time, a month) is drawn from its pattern; free text (TEXT_PATTERNS, `^[^\x00]...`) from shop-like characters.
  if (schema.pattern && !schema.pattern.startsWith('^[^\\x00')) return fc.stringMatching(new RegExp(schema.pattern));
  return textArbitrary(schema);
}

function integerArbitrary(schema: Schema): fc.Arbitrary<number> {
  const min = Math.max(schema.minimum ?? -1_000_000, schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : -Infinity);
  const max = Math.min(schema.maximum ?? 1_000_000, schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : Infinity);
  if (min > max) throw new Error(`no integer between ${min} and ${max}`);
  const small = fc.integer({ min: Math.max(min, -100), max: Math.max(Math.max(min, -100), Math.min(max, 1000)) });
  // JSON Schema's integers have no bounds of their own: an unbounded one must take 10^16 as well.
  const unbounded = [schema.minimum === undefined && schema.exclusiveMinimum === undefined ? -1e16 : undefined, schema.maximum === undefined && schema.exclusiveMaximum === undefined ? 1e16 : undefined]
    .filter((n): n is number => n !== undefined);
  const value = fc.oneof(
    { weight: 6, arbitrary: small },
    { weight: 2, arbitrary: fc.integer({ min: Math.max(min, -(2 ** 31)), max: Math.min(max, 2 ** 31 - 1) }) },
    { weight: 1, arbitrary: fc.constantFrom(min, max, ...unbounded) },
  );
  return schema.not && 'const' in schema.not ? value.filter((n) => n !== schema.not.const) : value;
}

/** A number with at most the decimals of `multipleOf` (written exactly: `123e-3`, never 0.1 + 0.2). */
function numberArbitrary(schema: Schema): fc.Arbitrary<number> {
  const places = schema.multipleOf ? decimalPlacesOf(schema.multipleOf) : 2;
  const scale = 10 ** places;
  const scaled = integerArbitrary({
    minimum: schema.minimum !== undefined ? Math.ceil(schema.minimum * scale) : -1_000_000 * scale,
    maximum: schema.maximum !== undefined ? Math.floor(schema.maximum * scale) : 1_000_000 * scale,
    ...(schema.exclusiveMinimum !== undefined ? { exclusiveMinimum: Math.floor(schema.exclusiveMinimum * scale) } : {}),
    ...(schema.exclusiveMaximum !== undefined ? { exclusiveMaximum: Math.ceil(schema.exclusiveMaximum * scale) } : {}),
  });
  return scaled.map((n) => Number(`${n}e-${places}`));
}

/** Decimals of a JSON number, exactly (as api/schemas.ts counts them). */
export function decimalPlacesOf(value: number): number {
  const [digits = '', exponent = '0'] = String(Math.abs(value)).split('e');
  return Math.max(0, (digits.split('.')[1]?.length ?? 0) - Number(exponent));
}

/** One object schema for an `allOf` of object schemas (how the generator writes a component extended with more properties). */
export function mergeAllOf(doc: OpenApiDocument, schema: Schema): Schema {
  const { allOf, ...rest } = schema;
  const branches: Schema[] = allOf.map((branch: Schema) => deref(doc, branch));
  const merged = [rest, ...branches.filter((branch) => !isRule(branch))].reduce((merged: Schema, branch: Schema) => {
    const flat = branch.allOf ? mergeAllOf(doc, branch) : branch;
    return {
      ...merged,
      ...flat,
      properties: { ...merged.properties, ...flat.properties },
      required: [...new Set([...(merged.required ?? []), ...(flat.required ?? [])])],
      conditions: [...(merged.conditions ?? []), ...(flat.conditions ?? [])],
    };
  }, {});
  return { ...merged, conditions: [...merged.conditions, ...branches.filter(isRule).map((branch) => (branch.if ? branch : { if: {}, then: branch }))] };
}

/**
 * An `allOf` branch that constrains the object without adding to it: a condition (`if`/`then`), or a
 * choice with no properties of its own (CreatePromotion's `oneOf` of kinds), a condition always met.
 */
const isRule = (branch: Schema) => !!branch.if || (!branch.properties && !!(branch.oneOf || branch.anyOf));

/** Whether an object meets a condition's `if`, for the simple conditions the document uses (consts, presence, type). */
function meets(condition: Schema, value: Record<string, unknown>): boolean {
  const present = (condition.required ?? []).every((key: string) => key in value);
  return present && Object.entries<Schema>(condition.properties ?? {}).every(([key, rule]) => {
    if (!(key in value)) return true;
    const field = value[key];
    if ('const' in rule && field !== rule.const) return false;
    if (rule.not && 'const' in rule.not && field === rule.not.const) return false;
    if (rule.type === 'string' && typeof field !== 'string') return false;
    return true;
  });
}

/** A property's schema and a rule's about it, both holding: the rule's keywords win, and its `items` add to the property's (`items: {}` adds nothing). */
function both(property: Schema, rule: Schema): Schema {
  return { ...property, ...rule, ...(property.items && rule.items ? { items: { ...property.items, ...rule.items } } : {}) };
}

/**
 * Makes an object meet the `then` of every condition whose `if` it meets: the properties `then`
 * names are drawn again from both rules, and for an `anyOf` or a `oneOf` one branch is made to hold.
 */
function withConditions(ctx: GenerationContext, schema: Schema, base: fc.Arbitrary<Record<string, unknown>>, path?: string, depth = 0): fc.Arbitrary<Record<string, unknown>> {
  const conditions: Schema[] = schema.conditions ?? [];
  if (conditions.length === 0) return base;
  const apply = (value: Record<string, unknown>, rule: Schema): fc.Arbitrary<Record<string, unknown>> => {
    const choice: Schema[] | undefined = rule.anyOf ?? rule.oneOf;
    if (choice) return fc.constantFrom(...choice).chain((branch) => apply(value, branch));
    const keys = [...new Set([...Object.keys(rule.properties ?? {}), ...(rule.required ?? [])])];
    const model = Object.fromEntries(keys.map((key) => [key, valueOf(ctx, both(schema.properties?.[key] ? deref(ctx.doc, schema.properties[key]) : {}, rule.properties?.[key] ?? {}), key, path, depth + 1)]));
    const drawn = fc.record(model).map((drawn) => ({ ...value, ...drawn }));
    // A branch's own rules (a kind's targets), after its properties.
    return ((rule.allOf ?? []) as Schema[]).reduce<fc.Arbitrary<Record<string, unknown>>>((arb, inner) => arb.chain((current) => apply(current, inner)), drawn);
  };
  return base.chain((value) =>
    conditions
      .filter((condition) => meets(condition.if, value))
      .reduce<fc.Arbitrary<Record<string, unknown>>>((arb, condition) => arb.chain((current) => apply(current, condition.then)), fc.constant(value)),
  );
}

/**
 * Values that follow `schema`: every bound, pattern and format it states. `name` is the property or
 * parameter the value is for (a `product_id` names a real product most of the time).
 */
export function valueOf(ctx: GenerationContext, schema: Schema, name?: string, path?: string, depth = 0): fc.Arbitrary<unknown> {
  const resolved = deref(ctx.doc, schema);
  if (resolved.allOf) return valueOf(ctx, mergeAllOf(ctx.doc, resolved), name, path, depth);
  if ('const' in resolved) return fc.constant(resolved.const);
  if (resolved.enum) return fc.constantFrom(...resolved.enum);
  for (const combination of ['anyOf', 'oneOf'] as const) {
    if (resolved[combination]) return fc.oneof(...resolved[combination].map((branch: Schema) => valueOf(ctx, branch, name, path, depth)));
  }
  if (Array.isArray(resolved.type)) {
    const types = resolved.type.filter((type: string) => type !== 'null');
    const branches = types.map((type: string) => ({ weight: 5, arbitrary: valueOf(ctx, { ...resolved, type }, name, path, depth) }));
    return resolved.type.includes('null') ? fc.oneof(...branches, { weight: 1, arbitrary: fc.constant(null) }) : fc.oneof(...branches);
  }
  switch (resolved.type) {
    case 'string':
      return stringArbitrary(ctx, resolved, name, path);
    case 'integer':
      return integerArbitrary(resolved);
    case 'number':
      return numberArbitrary(resolved);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return arrayArbitrary(ctx, resolved, name, path, depth);
    case 'object':
      return objectArbitrary(ctx, resolved, path, depth);
    default:
      return fc.jsonValue({ maxDepth: 1 });
  }
}

function arrayArbitrary(ctx: GenerationContext, schema: Schema, name: string | undefined, path: string | undefined, depth: number): fc.Arbitrary<unknown[]> {
  const minLength = schema.minItems ?? 0;
  const maxLength = Math.max(minLength, Math.min(schema.maxItems ?? 4, depth > 0 ? 3 : 4));
  const items = valueOf(ctx, schema.items ?? {}, name, path, depth + 1);
  if (schema.contains) {
    // One item also follows `contains`, at a random place; the others as they come.
    const wanted = valueOf(ctx, mergeAllOf(ctx.doc, { allOf: [schema.items ?? {}, schema.contains] }), name, path, depth + 1);
    const others = fc.array(items, { minLength: Math.max(0, minLength - 1), maxLength: maxLength - 1 });
    return fc.tuple(others, wanted, fc.nat()).map(([rest, item, at]) => [...rest.slice(0, at % (rest.length + 1)), item, ...rest.slice(at % (rest.length + 1))]);
  }
  return schema.uniqueItems
    ? fc.uniqueArray(items, { minLength, maxLength, selector: (item) => JSON.stringify(item) })
    : fc.array(items, { minLength, maxLength });
}

/**
 * An object with every required key and about a third of the optional ones: each optional input is
 * one more chance for a request to be refused before it reaches the deeper rules.
 */
function someOf(entries: [string, fc.Arbitrary<unknown>, boolean][]): fc.Arbitrary<Record<string, unknown>> {
  const model = Object.fromEntries(entries.map(([key, value, required]) => [key, required ? value : fc.oneof({ weight: 2, arbitrary: fc.constant(OMITTED) }, { weight: 1, arbitrary: value })]));
  return fc.record(model).map((record) => Object.fromEntries(Object.entries(record).filter(([, value]) => value !== OMITTED)));
}

const OMITTED = Symbol('omitted');

function objectArbitrary(ctx: GenerationContext, schema: Schema, path: string | undefined, depth: number): fc.Arbitrary<Record<string, unknown>> {
  if (schema.properties) {
    const base = someOf(Object.entries<Schema>(schema.properties).map(([key, property]) => [key, valueOf(ctx, property, key, path, depth + 1), (schema.required ?? []).includes(key)]));
    return withConditions(ctx, schema, base, path, depth);
  }
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
    const keys = schema.propertyNames ? (valueOf(ctx, { type: 'string', ...schema.propertyNames }) as fc.Arbitrary<string>) : fc.string({ maxLength: 10 });
    return fc.dictionary(keys, valueOf(ctx, schema.additionalProperties, undefined, path, depth + 1), {
      minKeys: schema.minProperties ?? 0,
      maxKeys: Math.min(schema.maxProperties ?? 3, 3),
    });
  }
  return fc.constant({});
}

// ---------------------------------------------------------------------------------------------
// Requests.

export interface RequestPlan {
  op: Operation;
  path: Record<string, string>;
  query: Record<string, string>;
  headers: Record<string, string>;
  /** The body as a value, or absent for none. */
  body?: unknown;
  /** Sent instead of `JSON.stringify(body)` (faults that are not JSON values). */
  rawBody?: string;
  /** Sent instead of application/json; null sends none. */
  contentType?: string | null;
}

/** A header's value: printable ASCII (what HTTP carries), from a small set so that keys are reused (Idempotency-Key). */
const HEADER_VALUE = fc.stringMatching(/^key-[0-9]{1,3}$/);

/** A parameter's value as a query or path string: numbers and booleans as JSON writes them. */
function asParameter(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Requests that follow the operation's document: path parameters, some optional query parameters, the body. */
export function requestOf(ctx: GenerationContext, op: Operation): fc.Arbitrary<RequestPlan> {
  const parameters: any[] = op.spec.parameters ?? [];
  const byPlace = (place: string) =>
    someOf(
      parameters
        .filter((p) => p.in === place)
        .map((p) => [p.name, place === 'header' ? HEADER_VALUE : valueOf(ctx, p.schema, p.name, op.path).map(asParameter), !!p.required]),
    ) as fc.Arbitrary<Record<string, string>>;
  const body = bodySchema(op);
  const bodyValue = body
    ? op.spec.requestBody.required
      ? valueOf(ctx, body, undefined, op.path)
      : fc.option(valueOf(ctx, body, undefined, op.path), { nil: undefined, freq: 4 })
    : fc.constant(undefined);
  return fc
    .record({ path: byPlace('path'), query: byPlace('query'), headers: byPlace('header'), body: bodyValue })
    .map(({ path, query, headers, body: value }) => ({ op, path, query, headers, ...(value === undefined ? {} : { body: value }) }));
}

// ---------------------------------------------------------------------------------------------
// Faults.

export const FAULTS = [
  'nul_in_text',
  'lone_surrogate_in_text',
  'nul_in_key',
  'huge_number',
  'too_many_decimals',
  'wrong_type',
  'missing_key',
  'extra_key',
  'malformed_json',
  'not_json_content_type',
  'no_content_type',
  'json_not_an_object',
  'oversized_body',
  'bad_parameter',
  'missing_parameter',
  'early_date',
] as const;
export type FaultKind = (typeof FAULTS)[number];

export interface Fault {
  kind: FaultKind;
  /** Picks the place (a leaf of the body, a parameter) and the value, deterministically. */
  pick: number;
  variant: number;
}

export const faultOf: fc.Arbitrary<Fault> = fc.record({ kind: fc.constantFrom(...FAULTS), pick: fc.nat(), variant: fc.nat() });

type Node = { path: (string | number)[]; value: unknown };

/** Every node of a JSON value with its path, the root first. */
function nodesOf(value: unknown, path: (string | number)[] = []): Node[] {
  const here = [{ path, value }];
  if (Array.isArray(value)) return here.concat(value.flatMap((item, index) => nodesOf(item, [...path, index])));
  if (value && typeof value === 'object') return here.concat(Object.entries(value).flatMap(([key, item]) => nodesOf(item, [...path, key])));
  return here;
}

function setAt(root: unknown, path: (string | number)[], value: unknown): unknown {
  if (path.length === 0) return value;
  const copy: any = Array.isArray(root) ? [...root] : { ...(root as object) };
  copy[path[0]!] = setAt(copy[path[0]!], path.slice(1), value);
  return copy;
}

function deleteAt(root: unknown, path: (string | number)[]): unknown {
  if (path.length === 1) {
    if (Array.isArray(root)) return root.filter((_, index) => index !== path[0]);
    const { [path[0]!]: _gone, ...rest } = root as Record<string, unknown>;
    return rest;
  }
  const copy: any = Array.isArray(root) ? [...root] : { ...(root as object) };
  copy[path[0]!] = deleteAt(copy[path[0]!], path.slice(1));
  return copy;
}

const pick = <T>(items: readonly T[], n: number): T => items[n % items.length]!;

/** Numbers JSON can carry that no bound of the document allows, or that a float tolerance would let through. */
const HUGE_NUMBERS = ['1e308', '-1e308', '1e400', '-1e400', '9007199254740993', '123456789012345678901234567890', '1e21', '-0', '1e-400'];
const PRECISE_NUMBERS = ['1e-10', '1.0000000001', '10.0000000001', '0.30000000000000004', '2.5e-7', '0.0005'];
const NUMBER_MARK = '\u0001number\u0001';
const OTHER_TYPES: unknown[] = ['1', 'true', true, false, 0, -1, [], {}, null, [1, 'a'], { a: { b: null } }, ''];
/** Query and path values no parameter allows: NUL, a lone surrogate written as UTF-8 (CESU), invalid UTF-8, huge numbers, long text. */
const BAD_PARAMETERS = ['a%00b', '%00', '%ED%A0%80', '%FF%FE', '1e400', '-1', '0', '99999999999999999999', 'abc', '', '..%2F..%2Fetc', 'x'.repeat(5000), '%22%3Cscript%3E', 'null', '%20'];

/** What a fault does to a request, or undefined when it has nothing to act on (the request goes unchanged). */
export function injectFault(plan: RequestPlan, fault: Fault): RequestPlan | undefined {
  const hasBody = bodySchema(plan.op) !== undefined;
  const nodes = plan.body === undefined ? [] : nodesOf(plan.body);
  const strings = nodes.filter((n) => typeof n.value === 'string');
  const numbers = nodes.filter((n) => typeof n.value === 'number');
  const objects = nodes.filter((n) => n.value && typeof n.value === 'object' && !Array.isArray(n.value));
  const keyed = nodes.filter((n) => n.path.length > 0 && typeof n.path[n.path.length - 1] === 'string');
  const json = (body: unknown) => ({ ...plan, body });
  const params = [...Object.keys(plan.path).map((name) => ['path', name] as const), ...Object.keys(plan.query).map((name) => ['query', name] as const)];
  switch (fault.kind) {
    case 'nul_in_text':
    case 'lone_surrogate_in_text': {
      const bad = fault.kind === 'nul_in_text' ? '\u0000' : pick(['\ud800', '\udfff', '\udc00\ud800'], fault.variant);
      if (strings.length === 0) return undefined;
      const target = pick(strings, fault.pick);
      const text = target.value as string;
      const at = fault.variant % (text.length + 1);
      return json(setAt(plan.body, target.path, text.slice(0, at) + bad + text.slice(at)));
    }
    case 'nul_in_key': {
      if (objects.length === 0) return undefined;
      const target = pick(objects, fault.pick);
      return json(setAt(plan.body, target.path, { ...(target.value as object), [pick(['a\u0000', '\ud800', '\u0000'], fault.variant)]: 'x' }));
    }
    case 'huge_number':
    case 'too_many_decimals': {
      // Written into the JSON text as is: 1e400 is no JavaScript number, and 1e-10 must reach the server in that form.
      const targets = numbers.length ? numbers : nodes.slice(1);
      if (targets.length === 0) return undefined;
      const text = pick(fault.kind === 'huge_number' ? HUGE_NUMBERS : PRECISE_NUMBERS, fault.variant);
      const marked = JSON.stringify(setAt(plan.body, pick(targets, fault.pick).path, NUMBER_MARK));
      return { ...plan, rawBody: marked.replace(JSON.stringify(NUMBER_MARK), text) };
    }
    case 'wrong_type': {
      if (nodes.length === 0) return undefined;
      return json(setAt(plan.body, pick(nodes, fault.pick).path, pick(OTHER_TYPES, fault.variant)));
    }
    case 'missing_key':
      return keyed.length ? json(deleteAt(plan.body, pick(keyed, fault.pick).path)) : undefined;
    case 'extra_key': {
      if (objects.length === 0) return undefined;
      const target = pick(objects, fault.pick);
      const extra = pick(['unexpected', 'id', 'shop_id', 'on_hand', '__proto__', 'constructor', 'deleted_at', 'role'], fault.variant);
      return json(setAt(plan.body, target.path, { ...(target.value as object), [extra]: pick(OTHER_TYPES, fault.variant >> 3) }));
    }
    case 'malformed_json': {
      if (!hasBody) return undefined;
      const text = JSON.stringify(plan.body ?? {});
      return { ...plan, rawBody: pick([text.slice(0, Math.max(1, text.length - 1)), `${text},`, "{'a': 1}", '{"a": }', '\u0000', 'NaN', '{"a": 1e}', '[', '{"items": [}'], fault.variant) };
    }
    case 'not_json_content_type':
      return hasBody ? { ...plan, rawBody: JSON.stringify(plan.body ?? {}), contentType: pick(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml'], fault.variant) } : undefined;
    case 'no_content_type':
      return hasBody ? { ...plan, rawBody: JSON.stringify(plan.body ?? {}), contentType: null } : undefined;
    case 'json_not_an_object':
      return hasBody ? { ...plan, rawBody: pick(['null', '[]', '"text"', '42', 'true', '[{}]'], fault.variant) } : undefined;
    case 'oversized_body':
      return hasBody && !plan.op.path.endsWith('/sync/push') ? { ...plan, rawBody: JSON.stringify({ filler: 'x'.repeat(1024 * 1024 + 16) }) } : undefined;
    case 'bad_parameter': {
      if (params.length === 0) return undefined;
      const [place, name] = pick(params, fault.pick);
      return { ...plan, [place]: { ...plan[place], [name]: `\u0001raw\u0001${pick(BAD_PARAMETERS, fault.variant)}` } };
    }
    case 'missing_parameter': {
      const query = Object.keys(plan.query);
      if (query.length === 0) return undefined;
      const { [pick(query, fault.pick)]: _gone, ...rest } = plan.query;
      return { ...plan, query: rest };
    }
    case 'early_date': {
      // A day or time typed with the wrong century (0026 for 2026), or a till's dead clock: a 422, or a pushed record kept, never a 500.
      const year = pick(EARLY_YEARS, fault.variant);
      const days = strings.filter((n) => DATED.test(n.value as string));
      const dayParams = params.filter(([place, name]) => DATED.test(plan[place][name] ?? ''));
      // A date parameter the plan left out is given one (a report's period, a Z's day).
      const unsent = ((plan.op.spec.parameters ?? []) as any[]).filter((p) => p.in === 'query' && ['date', 'date-time'].includes(p.schema?.format) && !(p.name in plan.query));
      const total = days.length + dayParams.length + unsent.length;
      if (total === 0) return undefined;
      const at = fault.pick % total;
      if (at < days.length) return json(setAt(plan.body, days[at]!.path, (days[at]!.value as string).replace(DATED, year)));
      if (at < days.length + dayParams.length) {
        const [place, name] = dayParams[at - days.length]!;
        return { ...plan, [place]: { ...plan[place], [name]: plan[place][name]!.replace(DATED, year) } };
      }
      const parameter = unsent[at - days.length - dayParams.length]!;
      return { ...plan, query: { ...plan.query, [parameter.name]: `${year}-01-31${parameter.schema.format === 'date-time' ? 'T00:00:00Z' : ''}` } };
    }
  }
}

/** A day or a time's year, and the years `early_date` puts there. */
const DATED = /^\d{4}(?=-\d{2}-\d{2})/;
const EARLY_YEARS = ['0001', '0010', '0026', '0099', '1970', '1999'];

/** Marks a parameter value that is already URL-encoded on purpose (faults send bytes no encoder would). */
const RAW = '\u0001raw\u0001';

const encode = (value: string) => (value.startsWith(RAW) ? value.slice(RAW.length) : encodeURIComponent(value));

/** The request's URL path and query, `{name}` filled in. */
export function urlOf(plan: RequestPlan): string {
  const path = plan.op.path.replace(/\{([^}]+)\}/g, (_, name: string) => encode(plan.path[name] ?? ''));
  const query = Object.entries(plan.query).map(([name, value]) => `${encodeURIComponent(name)}=${encode(value)}`);
  return query.length ? `${path}?${query.join('&')}` : path;
}

/** The request's body text and content type, as sent. */
export function bodyOf(plan: RequestPlan): { text?: string; contentType?: string } {
  const text = plan.rawBody ?? (plan.body === undefined ? undefined : JSON.stringify(plan.body));
  if (text === undefined) return {};
  if (plan.contentType === null) return { text };
  return { text, contentType: plan.contentType ?? 'application/json' };
}
