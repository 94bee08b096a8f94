import { z } from 'zod';

/**
 * Strict inputs (CONTRACT section 2): a body field or a query parameter an operation does not know is
 * a 422 on its dotted path (`items.0.foo`, `dat`) with this message, never silently dropped: a typo
 * (`credit_ceiling` for `credit_ceiling_xaf`) would otherwise be taken as "not given". The records of
 * a sync push are the exception (api/sync/schemas.ts): a till updated before the server may send
 * fields this version does not know, and a sale that happened is never refused for them.
 *
 * The schemas stay zod's default objects (unknown keys stripped); the router hands every body and
 * query to `unknownFields` with the route's schema (api/router.ts, api/validation.ts), so no route can
 * forget the rule, and `closeRequestBodies` states it in the document.
 */
export const UNKNOWN_FIELD = 'Unknown field.';

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The dotted paths of `value` that `schema` does not know: keys an object's shape lacks (unless the
 * object takes any key: `z.looseObject`, a `catchall`), at any depth, through arrays, records,
 * optional, nullable, default, pipe (its input side) and lazy schemas. A union is walked with the
 * option the value parses with; when none does, a key is unknown only if every option lacks it.
 * Runs on every body and query: one walk, paths joined only for what it finds.
 */
export function unknownFields(schema: z.core.$ZodType, value: unknown, path = ''): string[] {
  const found: string[] = [];
  collectUnknown(schema, value, path, found);
  return found;
}

/** The zod schema under optional, nullable, default, pipe (its input side), lazy and the like: what a present value is checked against. */
export function unwrapped(schema: z.core.$ZodType): z.core.$ZodTypes {
  const def = (schema as z.core.$ZodTypes)._zod.def;
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'nonoptional':
    case 'readonly':
    case 'catch':
      return unwrapped(def.innerType);
    case 'pipe':
      return unwrapped(def.in);
    case 'lazy':
      return unwrapped(def.getter());
    default:
      return schema as z.core.$ZodTypes;
  }
}

const child = (path: string, key: string | number) => (path === '' ? String(key) : `${path}.${key}`);

// A null or absent value holds no field: every case below finds nothing in it.
function collectUnknown(schema: z.core.$ZodType, value: unknown, path: string, found: string[]): void {
  const def = unwrapped(schema)._zod.def;
  switch (def.type) {
    case 'array':
      if (Array.isArray(value)) for (let index = 0; index < value.length; index++) collectUnknown(def.element, value[index], child(path, index), found);
      return;
    case 'tuple':
      if (!Array.isArray(value)) return;
      for (let index = 0; index < value.length; index++) {
        const element = def.items[index] ?? def.rest;
        if (element) collectUnknown(element, value[index], child(path, index), found);
      }
      return;
    case 'record':
      if (isPlainObject(value)) for (const key in value) if (Object.hasOwn(value, key)) collectUnknown(def.valueType, value[key], child(path, key), found);
      return;
    case 'object': {
      if (!isPlainObject(value)) return;
      // A strict object's catchall is `never`: its extra keys are unknown fields too (zod's own issue is dropped).
      const open = def.catchall !== undefined && (def.catchall as z.core.$ZodTypes)._zod.def.type !== 'never';
      for (const key of Object.keys(value)) {
        if (Object.hasOwn(def.shape, key)) collectUnknown(def.shape[key]!, value[key], child(path, key), found);
        else if (open) collectUnknown(def.catchall!, value[key], child(path, key), found);
        else found.push(child(path, key));
      }
      return;
    }
    case 'union': {
      const chosen = def.options.find((option) => z.safeParse(option, value).success);
      if (chosen) return collectUnknown(chosen, value, path, found);
      found.push(...common(def.options.map((option) => unknownFields(option, value, path))));
      return;
    }
    case 'intersection':
      // Each side knows its own keys: unknown is what neither side knows.
      found.push(...common([unknownFields(def.left, value, path), unknownFields(def.right, value, path)]));
      return;
    default:
      return;
  }
}

/** The paths found in every list. */
function common(lists: string[][]): string[] {
  const [first = [], ...rest] = lists;
  return first.filter((path) => rest.every((list) => list.includes(path)));
}

type JsonSchema = Record<string, unknown>;

/**
 * The document's statement of the rule: every object a request body can hold says
 * `additionalProperties: false`, the body's own and those of the components it names. An object that
 * already says it takes other keys (`additionalProperties: true`: a pushed record) is left open with
 * everything in it. JSON Schema checks each branch of an `allOf` alone: a component extended that way
 * would be closed against its own extra fields, so it is refused here (build such a body flat), and
 * rules written as `allOf` beside an object's properties stay open.
 * Works on a copy: the generator shares sub-schemas between components.
 */
export function closeRequestBodies<T extends { paths?: object; components?: { schemas?: object } }>(document: T): T {
  const copy = structuredClone(document);
  const components = (copy.components?.schemas ?? {}) as Record<string, JsonSchema>;
  const seen = new Set<JsonSchema>();
  const close = (schema: unknown, where: string): void => {
    if (!isPlainObject(schema) || seen.has(schema)) return;
    seen.add(schema);
    if (typeof schema.$ref === 'string') return close(components[schema.$ref.split('/').pop()!], `${where} (${schema.$ref})`);
    if (schema.additionalProperties === true) return;
    const isObject = schema.type === 'object' || (Array.isArray(schema.type) && schema.type.includes('object')) || isPlainObject(schema.properties);
    if (isObject && schema.additionalProperties === undefined) schema.additionalProperties = false;
    Object.entries((schema.properties ?? {}) as Record<string, unknown>).forEach(([key, property]) => close(property, `${where}.${key}`));
    close(schema.items, `${where}[]`);
    if (Array.isArray(schema.prefixItems)) schema.prefixItems.forEach((item, index) => close(item, `${where}[${index}]`));
    close(schema.additionalProperties, `${where}.<value>`);
    for (const branch of [...((schema.anyOf ?? []) as unknown[]), ...((schema.oneOf ?? []) as unknown[])]) close(branch, where);
    // Rules beside the object's own properties (CreatePromotion's) constrain it without being it: left open.
    // A component's extension (`allOf: [{$ref}, {...}]`) would be closed against its own extra fields.
    if (((schema.allOf ?? []) as JsonSchema[]).some((branch) => isPlainObject(branch) && '$ref' in branch)) {
      throw new Error(`${where}: a request body extends a component (allOf over $ref), which cannot be closed; build the schema flat`);
    }
  };
  for (const item of Object.values(copy.paths ?? {}) as Record<string, { requestBody?: { content?: Record<string, { schema?: unknown }> } }>[]) {
    for (const [method, operation] of Object.entries(item)) {
      for (const [type, media] of Object.entries(operation?.requestBody?.content ?? {})) close(media.schema, `${method} ${type}`);
    }
  }
  return copy;
}
