import openapiTS, { astToString } from 'openapi-typescript';
import t from 'tap';
import ts from 'typescript';
import { deref, operationsOf, type Schema } from '../support/openapi-arbitraries.ts';
import { documentValidator, undocumentedFields } from '../support/openapi-validator.ts';
import { startService } from '../support/service.ts';

/**
 * The OpenAPI document read as a client developer reads it, from the served /openapi.json: every
 * operation named (`operationId`), described and tagged, tags explained, every request and answer
 * with an example that the document's own schema accepts, every 409 and 422 listing the codes the
 * operation can give and what each means. Each check lists the operations that miss it by name.
 */

const api = await startService(t);
const doc = (await api.raw('GET', '/openapi.json')).body;
const operations = operationsOf(doc);
const validator = documentValidator(doc);

/** Authenticated POSTs that take no Idempotency-Key, each saying why in its description. */
const WITHOUT_IDEMPOTENCY_KEY = new Set(['POST /api/v1/sync/push']);

t.test('every operation has a unique camelCase operationId', async (t) => {
  const missing = operations.filter((op) => !op.spec.operationId).map((op) => op.name);
  t.strictSame(missing, [], 'operations without an operationId (createRoute({ operationId: \'listProducts\', ... }))');
  const malformed = operations.filter((op) => op.spec.operationId && !/^[a-z][a-zA-Z0-9]*$/.test(op.spec.operationId)).map((op) => `${op.name}: ${op.spec.operationId}`);
  t.strictSame(malformed, [], 'operationIds in camelCase, a verb first (listX, getX, createX, updateX, deleteX, voidSale...)');
  const byId = new Map<string, string[]>();
  for (const op of operations) if (op.spec.operationId) byId.set(op.spec.operationId, [...(byId.get(op.spec.operationId) ?? []), op.name]);
  const duplicates = [...byId].filter(([, names]) => names.length > 1).map(([id, names]) => `${id}: ${names.join(', ')}`);
  t.strictSame(duplicates, [], 'operationIds unique across the document');
});

t.test('every operation has a summary and a description', async (t) => {
  t.strictSame(operations.filter((op) => !op.spec.summary?.trim()).map((op) => op.name), [], 'operations without a summary');
  t.strictSame(operations.filter((op) => !op.spec.description?.trim()).map((op) => op.name), [], 'operations without a description');
});

t.test('every operation has a tag, and every tag is declared with a description', async (t) => {
  t.strictSame(operations.filter((op) => !op.spec.tags?.length).map((op) => op.name), [], 'operations without a tag');
  const declared = new Map<string, string>((doc.tags ?? []).map((tag: { name: string; description?: string }) => [tag.name, tag.description ?? '']));
  const used = new Set(operations.flatMap((op) => op.spec.tags ?? []));
  t.strictSame([...used].filter((tag) => !declared.has(tag)).sort(), [], 'tags used but not declared in the document\'s `tags` (api/app.ts)');
  t.strictSame([...declared].filter(([, description]) => !description.trim()).map(([name]) => name), [], 'declared tags without a description');
  t.strictSame([...declared.keys()].filter((tag) => !used.has(tag)), [], 'declared tags no operation uses');
});

t.test('the dashboard is under its own tag', async (t) => {
  t.strictSame(doc.paths['/api/v1/dashboard'].get.tags, ['Dashboard']);
});

t.test('every authenticated POST declares the Idempotency-Key header', async (t) => {
  const missing = operations
    .filter((op) => op.method === 'post' && op.spec.security?.some((scheme: object) => 'bearerAuth' in scheme) && !WITHOUT_IDEMPOTENCY_KEY.has(op.name))
    .filter((op) => !(op.spec.parameters ?? []).some((p: { in: string; name: string }) => p.in === 'header' && p.name === 'idempotency-key'))
    .map((op) => op.name);
  t.strictSame(missing, [], 'authenticated POSTs without the idempotency-key header parameter');
  for (const name of WITHOUT_IDEMPOTENCY_KEY) {
    t.match(operations.find((op) => op.name === name)?.spec.description, /No Idempotency-Key/, `${name} says why it takes none`);
  }
});

interface Media {
  schema?: Schema;
  example?: unknown;
  examples?: Record<string, { value?: unknown }>;
}

/** An example a schema carries itself (`example`, or JSON Schema's `examples`), following references. */
const hasOwnExample = (schema: Schema | undefined): boolean => {
  if (!schema) return false;
  if (schema.example !== undefined || schema.examples?.length) return true;
  return !!schema.$ref && hasOwnExample(deref(doc, schema));
};

/**
 * A media type shows an example when it has one itself, when its schema has one, or, for the
 * `{data}` envelope, when the record in `data` (or the items of a `data` list) has one.
 */
function showsExample(media: Media): boolean {
  if (media.example !== undefined || Object.keys(media.examples ?? {}).length) return true;
  if (!media.schema) return false;
  if (hasOwnExample(media.schema)) return true;
  const data = deref(doc, media.schema).properties?.data;
  if (!data) return false;
  return hasOwnExample(data) || (deref(doc, data).type === 'array' && hasOwnExample(deref(doc, data).items));
}

const json = (content: Record<string, Media> | undefined): Media | undefined => content?.['application/json'];

t.test('every request body and every JSON answer of success has an example', async (t) => {
  // A body that is a file, not JSON (PUT /shop/logo's image), has no example to show.
  const bodies = operations.filter((op) => json(op.spec.requestBody?.content) && !showsExample(json(op.spec.requestBody.content)!)).map((op) => op.name);
  t.strictSame(bodies, [], 'request bodies without an example (on the body\'s component schema, or on the media type)');
  const answers = operations.flatMap((op) =>
    Object.entries(op.spec.responses as Record<string, { content?: Record<string, Media> }>)
      .filter(([status, answer]) => status.startsWith('2') && json(answer.content) && !showsExample(json(answer.content)!))
      .map(([status]) => `${op.name} ${status}`),
  );
  t.strictSame(answers, [], 'answers of success without an example (on the record\'s component schema, or on the media type)');
});

interface Found {
  where: string;
  schema: Schema;
  value: unknown;
}

/** Every example inside a schema (its own and those of the schemas within it), with the schema it illustrates. */
function schemaExamples(schema: Schema | undefined, where: string, found: Found[] = []): Found[] {
  if (!schema || typeof schema !== 'object') return found;
  if (schema.example !== undefined) found.push({ where: `${where} example`, schema, value: schema.example });
  if (Array.isArray(schema.examples)) schema.examples.forEach((value: unknown, index: number) => found.push({ where: `${where} examples[${index}]`, schema, value }));
  for (const [key, inner] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) schemaExamples(inner, `${where}.${key}`, found);
  for (const key of ['items', 'additionalProperties', 'propertyNames', 'not', 'contains']) {
    if (schema[key] && typeof schema[key] === 'object') schemaExamples(schema[key], `${where}[${key}]`, found);
  }
  for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems']) {
    (schema[key] ?? []).forEach((inner: Schema, index: number) => schemaExamples(inner, `${where}[${key}.${index}]`, found));
  }
  return found;
}

function mediaExamples(media: Media | undefined, where: string, found: Found[]): void {
  if (!media?.schema) return;
  if (media.example !== undefined) found.push({ where: `${where} example`, schema: media.schema, value: media.example });
  for (const [name, example] of Object.entries(media.examples ?? {})) found.push({ where: `${where} examples.${name}`, schema: media.schema, value: example.value });
  schemaExamples(media.schema, `${where} schema`, found);
}

/** Every example of the document: components (schemas and shared answers), parameters, bodies and answers. */
function allExamples(): Found[] {
  const found: Found[] = [];
  for (const [name, schema] of Object.entries(doc.components.schemas as Record<string, Schema>)) schemaExamples(schema, `components.schemas.${name}`, found);
  for (const [name, answer] of Object.entries((doc.components.responses ?? {}) as Record<string, { content?: Record<string, Media> }>)) {
    mediaExamples(json(answer.content), `components.responses.${name}`, found);
  }
  for (const op of operations) {
    for (const parameter of op.spec.parameters ?? []) {
      if (parameter.example !== undefined) found.push({ where: `${op.name} ${parameter.in} ${parameter.name} example`, schema: parameter.schema, value: parameter.example });
      schemaExamples(parameter.schema, `${op.name} ${parameter.in} ${parameter.name}`, found);
    }
    mediaExamples(json(op.spec.requestBody?.content), `${op.name} body`, found);
    for (const [status, answer] of Object.entries(op.spec.responses as Record<string, { content?: Record<string, Media> }>)) {
      mediaExamples(json(answer.content), `${op.name} ${status}`, found);
    }
  }
  return found;
}

t.test('every example follows the schema it illustrates and names no field the schema does not', async (t) => {
  const found = allExamples();
  t.ok(found.length > 100, `${found.length} examples checked`);
  const wrong = found.flatMap(({ where, schema, value }) => [
    ...validator.problems(schema, value).map((problem) => `${where}: ${problem}`),
    ...undocumentedFields(doc, schema, value).map((field) => `${where}: ${field} is not in the schema`),
  ]);
  t.strictSame(wrong, [], 'examples the document\'s own schemas refuse');
});

/** `- \`code\`: meaning` lines, as api/docs/error-answers.ts writes the codes `refusals` (api/schemas.ts) names. */
const LISTED_CODE = /^- `([a-z_]+)`: \S/gm;

t.test('every 409 and 422 lists the codes of its operation with their meaning, each with an example', async (t) => {
  const wrong: string[] = [];
  for (const op of operations) {
    for (const status of ['409', '422']) {
      const answer = op.spec.responses[status];
      if (!answer) continue;
      const codes = [...String(answer.description).matchAll(LISTED_CODE)].map((match) => match[1]!);
      const examples = (json(answer.content)?.examples ?? {}) as Record<string, { value?: { code?: string } }>;
      if (!codes.length) wrong.push(`${op.name} ${status}: lists no code (use refusals(${status}, { code: 'meaning' }) from api/schemas.ts)`);
      for (const code of codes) if (examples[code]?.value?.code !== code) wrong.push(`${op.name} ${status}: \`${code}\` has no example`);
    }
  }
  t.strictSame(wrong, [], '409 and 422 answers that do not list their codes');
  const sale = doc.paths['/api/v1/sales'].post.responses;
  for (const code of ['idempotency_conflict']) t.match(sale['409'].description, `\`${code}\``, `POST /sales 409 lists ${code}`);
  for (const code of ['validation_failed', 'insufficient_stock', 'payment_insufficient']) t.match(sale['422'].description, `\`${code}\``, `POST /sales 422 lists ${code}`);
});

t.test('the interactive reference sends nothing to validator.swagger.io', async (t) => {
  const page = String((await api.raw('GET', '/api-docs')).body);
  t.match(page, /validatorUrl:\s*null/, 'Swagger UI\'s validator badge is off');
  t.notMatch(page, /validator\.swagger\.io/);
});

t.test('no component admits null: a use site that does says anyOf [$ref, null] beside its description', async (t) => {
  // `Shop.nullable()` on a named component puts the null into the component itself (every use of it
  // then admits null) and drops the use site's description: use nullableRef (api/schemas.ts).
  const nullable = Object.keys(doc.components.schemas).filter((name) => validator.problems({ $ref: `#/components/schemas/${name}` }, null).length === 0);
  t.strictSame(nullable, [], 'components whose own schema takes null (write the null at the use site: nullableRef(Component, description))');
  const shop = doc.components.schemas.Session.properties.shop;
  t.strictSame(shop.anyOf, [{ $ref: '#/components/schemas/Shop' }, { type: 'null' }], 'Session.shop: a Shop or null');
  t.match(shop.description, /partners and administrators/, 'with its description at the use site');
  t.strictSame(doc.components.schemas.OwnerSession.properties.shop, { $ref: '#/components/schemas/Shop' }, 'register answers a shop, never null');
});

/**
 * What openapi-typescript makes of the document (its Node API, as a client developer's build runs
 * it): each component's alias, by name, and the whole text. A description beside an `allOf` or a
 * `$ref`, or a rule written as `if`/`then`, generates `X & unknown`; a component that admits null, `X | null`.
 */
async function generatedTypes(): Promise<{ text: string; components: Map<string, ts.TypeNode> }> {
  const nodes = await openapiTS(structuredClone(doc), { silent: true });
  const components = new Map<string, ts.TypeNode>();
  for (const node of nodes) {
    if (!ts.isInterfaceDeclaration(node) || node.name.text !== 'components') continue;
    const schemas = node.members.find((member) => member.name && ts.isIdentifier(member.name) && member.name.text === 'schemas');
    if (!schemas || !ts.isPropertySignature(schemas) || !schemas.type || !ts.isTypeLiteralNode(schemas.type)) continue;
    for (const member of schemas.type.members) {
      if (ts.isPropertySignature(member) && member.type && member.name && (ts.isIdentifier(member.name) || ts.isStringLiteral(member.name))) components.set(member.name.text, member.type);
    }
  }
  return { text: astToString(nodes), components };
}

/** Whether a type is `... | null` at its top (through parentheses). */
const orNull = (type: ts.TypeNode): boolean =>
  ts.isParenthesizedTypeNode(type) ? orNull(type.type) : ts.isUnionTypeNode(type) && type.types.some((member) => (ts.isLiteralTypeNode(member) && member.literal.kind === ts.SyntaxKind.NullKeyword) || orNull(member));

const UNKNOWN_PART = /&\s*\(*unknown\b|\bunknown\s*\)*\s*&/;

t.test('the TypeScript openapi-typescript generates types every component exactly: no `& unknown`, no component `| null`', async (t) => {
  const { text, components } = await generatedTypes();
  t.ok(components.size >= Object.keys(doc.components.schemas).length, 'every component generated');
  const printed = (type: ts.TypeNode) => astToString(type);
  t.strictSame([...components].filter(([, type]) => orNull(type)).map(([name]) => name), [], 'component aliases `X | null` (the null belongs at the use site: nullableRef in api/schemas.ts)');
  t.strictSame([...components].filter(([, type]) => UNKNOWN_PART.test(printed(type))).map(([name]) => name), [], 'components with an `& unknown` part (a description beside a $ref or an allOf, or an if/then rule)');
  const lines = text.split('\n').filter((line) => UNKNOWN_PART.test(line)).map((line) => line.trim());
  t.strictSame(lines, [], 'lines of the generated types with `& unknown`, components and operations alike');
});
