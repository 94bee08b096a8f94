import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { decimalPlacesOf, deref, mergeAllOf, type OpenApiDocument, type Operation, type Schema } from './openapi-arbitraries.ts';

/**
 * JSON Schema 2020-12 validation (ajv) of values against the service's OpenAPI document, as any
 * client's tool reads it: `pattern` in Unicode mode, formats checked, and `multipleOf` exact in
 * decimal (a float division would call 0.3 no multiple of 0.001, or 1.0000000001 one).
 */

const COMPONENTS = 'https://pos.local/components';

/** `#/components/schemas/X` in the document becomes a reference into the bundle ajv holds. */
function rebased(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(rebased);
  if (!schema || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [
      key,
      key === '$ref' && typeof value === 'string' ? value.replace('#/components/schemas/', `${COMPONENTS}#/$defs/`) : rebased(value),
    ]),
  );
}

/** `value` as an exact integer count of `10^-places`, from its decimal form; undefined when it has more decimals. */
function scaled(value: number, places: number): bigint | undefined {
  if (decimalPlacesOf(value) > places) return undefined;
  const [digits = '', exponent = '0'] = String(Math.abs(value)).split('e');
  const [whole = '', fraction = ''] = digits.split('.');
  const shift = places + Number(exponent) - fraction.length;
  const magnitude = BigInt(whole + fraction) * 10n ** BigInt(Math.max(0, shift));
  return value < 0 ? -magnitude : magnitude;
}

export function isExactMultiple(value: number, step: number): boolean {
  const places = Math.max(decimalPlacesOf(value), decimalPlacesOf(step));
  const [v, s] = [scaled(value, places), scaled(step, places)];
  return v !== undefined && s !== undefined && s !== 0n && v % s === 0n;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** RFC 3339 full-date: a real calendar day. */
function isDate(text: string): boolean {
  const match = DATE.exec(text);
  if (!match) return false;
  const [year, month, day] = match.slice(1).map(Number) as [number, number, number];
  const date = new Date(Date.UTC(2000, month - 1, day));
  date.setUTCFullYear(year);
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

function isDateTime(text: string): boolean {
  const match = DATE_TIME.exec(text);
  return !!match && isDate(match[1]!) && Number(match[2]) < 24 && Number(match[3]) < 60 && Number(match[4]) < 61;
}

export interface DocumentValidator {
  doc: OpenApiDocument;
  /** The problems of `value` against `schema` (a schema of the document), none when it conforms. */
  problems(schema: Schema, value: unknown): string[];
}

export function documentValidator(doc: OpenApiDocument): DocumentValidator {
  const ajv = new Ajv2020({ strict: true, allErrors: true, unicodeRegExp: true });
  // `discriminator` (SyncPushResult) only names the branch a `oneOf` already picks by its `entity` const.
  ajv.addVocabulary(['example', 'discriminator']);
  ajv.addFormat('uuid', UUID);
  ajv.addFormat('date', isDate);
  ajv.addFormat('date-time', isDateTime);
  ajv.addFormat('email', /^[^@\s]+@[^@\s]+$/);
  ajv.addFormat('password', true);
  ajv.removeKeyword('multipleOf');
  ajv.addKeyword({ keyword: 'multipleOf', type: 'number', schemaType: 'number', validate: (step: number, value: number) => isExactMultiple(value, step) });
  ajv.addSchema({ $id: COMPONENTS, $defs: rebased(doc.components.schemas) });
  const compiled = new Map<Schema, ValidateFunction>();
  return {
    doc,
    problems(schema, value) {
      let validate = compiled.get(schema);
      if (!validate) {
        validate = ajv.compile(rebased(schema) as object);
        compiled.set(schema, validate);
      }
      if (validate(value)) return [];
      return (validate.errors ?? []).map((error) => `${error.instancePath || '(root)'} ${error.message}${error.params ? ` ${JSON.stringify(error.params)}` : ''}`);
    },
  };
}

/**
 * Fields of `value` its schema does not name: JSON Schema lets an object carry more than its
 * `properties` unless told otherwise, but an answer with fields the document never mentions is not
 * the answer it declares. Objects that are maps (`additionalProperties`) may hold any key.
 */
export function undocumentedFields(doc: OpenApiDocument, schema: Schema, value: unknown, at = ''): string[] {
  let resolved = deref(doc, schema);
  if (resolved.allOf) resolved = mergeAllOf(doc, resolved);
  const branches: Schema[] = resolved.anyOf ?? resolved.oneOf ?? [];
  if (branches.length) {
    const candidates = branches.map((branch) => undocumentedFields(doc, branch, value, at));
    return candidates.find((found) => found.length === 0) ?? candidates[0] ?? [];
  }
  if (Array.isArray(value)) return resolved.items ? value.flatMap((item, index) => undocumentedFields(doc, resolved.items, item, `${at}/${index}`)) : [];
  if (!value || typeof value !== 'object' || !resolved.properties || resolved.additionalProperties) return [];
  return Object.entries(value).flatMap(([key, field]) =>
    key in resolved.properties ? undocumentedFields(doc, resolved.properties[key], field, `${at}/${key}`) : [`${at}/${key}`],
  );
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

/** A response or a header of the document, followed when it is a reference (`#/components/responses/NotFound`). */
export function resolved(doc: OpenApiDocument, item: Schema | undefined): Schema | undefined {
  const [, kind, name] = /^#\/components\/(responses|headers)\/(.+)$/.exec(item?.$ref ?? '') ?? [];
  return kind && name ? (doc.components as Record<string, Record<string, Schema>>)[kind]?.[name] : item;
}

/** The headers an answer lacks or carries wrongly, of those its declared response says it carries (`required`). */
function headerProblems(validator: DocumentValidator, declared: Schema, answer: Answer): string[] {
  return Object.entries((declared.headers ?? {}) as Record<string, Schema>).flatMap(([name, item]) => {
    const header = resolved(validator.doc, item)!;
    const value = answer.headers.get(name);
    if (value === null) return header.required ? [`no ${name} header`] : [];
    const typed = header.schema?.type === 'integer' && /^\d+$/.test(value) ? Number(value) : value;
    return validator.problems(header.schema ?? {}, typed).map((problem) => `header ${name} ${problem}`);
  });
}

/**
 * What is wrong with an answer, measured against the operation's document: a status it does not
 * declare (nor its `default` answer describe), a header the declared answer carries missing, a
 * content type it does not declare for that status, a body that does not follow the declared schema
 * (its `code` one the answer lists), or a body on a status declared without one. None when it conforms.
 */
export function answerProblems(validator: DocumentValidator, op: Operation, answer: Answer): string[] {
  const listed = op.spec.responses?.[String(answer.status)];
  const declared = resolved(validator.doc, listed ?? op.spec.responses?.default);
  const undeclared = `status ${answer.status} is not declared (declared: ${Object.keys(op.spec.responses ?? {}).join(', ')})`;
  if (!declared) return [undeclared];
  const problems = [...headerProblems(validator, declared, answer), ...bodyProblems(validator, declared, answer)];
  // A status the operation does not list is the `default` answer's, if that answer describes it.
  return !listed && problems.length ? [`${undeclared}, nor is it the default answer: ${problems.join('; ')}`] : problems;
}

function bodyProblems(validator: DocumentValidator, declared: Schema, answer: Answer): string[] {
  const content: Record<string, { schema?: Schema }> | undefined = declared.content;
  if (!content) return answer.text === '' ? [] : [`status ${answer.status} is declared without a body, but the answer has one`];
  const type = (answer.headers.get('content-type') ?? '').split(';')[0]!.trim();
  const media = content[type];
  if (!media) return [`content type "${type}" is not declared for status ${answer.status} (declared: ${Object.keys(content).join(', ')})`];
  if (type !== 'application/json' || !media.schema) return [];
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    return ['the body is not JSON'];
  }
  const undocumented = undocumentedFields(validator.doc, media.schema, body);
  return [
    ...validator.problems(media.schema, body).map((problem) => `body ${problem}`),
    ...(undocumented.length ? [`fields the document does not name: ${undocumented.slice(0, 5).join(', ')}`] : []),
  ];
}
