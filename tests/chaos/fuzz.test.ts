import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import t from 'tap';
import { errors } from '../../api/errors.ts';
import { ledgerInvariants } from '../support/fixtures.ts';
import { bodySchema, faultOf, injectFault, type RequestPlan, unknownFieldsOf } from '../support/openapi-arbitraries.ts';
import { describe, fuzzWorld, plannedRequest, type SentAnswer } from '../support/openapi-fuzz.ts';
import { answerProblems, documentValidator } from '../support/openapi-validator.ts';
import { propertyRun } from '../support/property.ts';
import { localise } from '../../api/lib/messages.ts';
import { EN, FR, INVALID_DATA } from '../support/replies.ts';
import { startService } from '../support/service.ts';

/**
 * Every operation of the OpenAPI document, fed requests built from its own schemas with a fault
 * injected into each (NUL and lone surrogates in text and keys, huge and over-precise numbers, wrong
 * types, missing and extra keys, malformed or non-JSON bodies, bad query and path values, missing,
 * forged or out-of-role credentials), while a till keeps selling between them: no answer is a 500,
 * every error answer has the CONTRACT's shape (section 2), and no sale the service acknowledged is
 * lost. Fixed seed; FC_SEED and FC_RUNS run another sample.
 */

const RUN = propertyRun(20_261_124, 1_500);
/** Every this many faulty requests, a good sale (online, then pushed) is made and must be kept. */
const SALE_EVERY = 15;

// With the simulator every shop certifies: the certification routes, and sales carrying `certification`, are exercised turned on.
const api = await startService(t, { TRUST_PROXY: 'true', FISCAL_PROVIDER: 'simulator' });
const world = await fuzzWorld(api);
const validator = documentValidator(world.doc);

/** An answer in English (the CONTRACT's text) and in French: callers are French users or anonymous requests answered in English. */
const fixed = (error: { message: string; code: string }) => [
  { message: error.message, code: error.code },
  { message: localise(error.message, 'fr'), code: error.code },
];
/** CONTRACT section 2: the statuses whose body is always one of these, in either language. */
const FIXED_ANSWERS: Record<number, { message: string; code: string }[]> = {
  400: [EN.MALFORMED_JSON, FR.MALFORMED_JSON],
  401: [EN.UNAUTHENTICATED, FR.UNAUTHENTICATED, EN.INVALID_CREDENTIALS, FR.INVALID_CREDENTIALS, ...fixed(errors.deviceUnauthenticated())],
  402: [EN.SUBSCRIPTION_REQUIRED, FR.SUBSCRIPTION_REQUIRED],
  403: [EN.FORBIDDEN, FR.FORBIDDEN],
  404: [EN.NOT_FOUND, FR.NOT_FOUND, ...fixed(errors.pairingNotFound())],
  413: fixed(errors.payloadTooLarge()),
  415: fixed(errors.unsupportedMediaType()),
  429: fixed(errors.rateLimited()),
  503: fixed(errors.serviceUnavailable()),
};

/** What is wrong with an error answer's body, measured against CONTRACT section 2; none when it follows it. */
function contractProblems(answer: SentAnswer): string[] {
  if (answer.status < 400) return [];
  const body = answer.body;
  if (!body || typeof body !== 'object' || Array.isArray(body)) return ['the body is no JSON object'];
  const problems: string[] = [];
  const extra = Object.keys(body).filter((key) => !['message', 'code', 'errors'].includes(key));
  if (extra.length) problems.push(`keys beyond message, code and errors: ${extra.join(', ')}`);
  if (typeof body.message !== 'string' || !body.message) problems.push('no message');
  if (typeof body.code !== 'string' || !/^[a-z_]+$/.test(body.code)) problems.push('no snake_case code');
  const rows = FIXED_ANSWERS[answer.status];
  if (rows && !rows.some((row) => row.message === body.message && row.code === body.code)) problems.push(`not the CONTRACT's ${answer.status} row`);
  if (answer.status === 422) {
    if (body.message !== INVALID_DATA.en && body.message !== INVALID_DATA.fr) problems.push(`a 422 whose message is not "${INVALID_DATA.en}" nor "${INVALID_DATA.fr}"`);
    const entries = Object.entries(body.errors ?? {});
    if (entries.length === 0) problems.push('a 422 without errors');
    if (!entries.every(([, messages]) => Array.isArray(messages) && messages.length > 0 && messages.every((m) => typeof m === 'string' && m))) {
      problems.push('errors that are not lists of messages');
    }
  } else if (body.errors !== undefined) problems.push(`errors on a ${answer.status}`);
  return problems;
}

/** The refusals that come before a body is read against its schema: the caller's credentials, role, subscription or share. */
const REFUSED_BEFORE_VALIDATION = new Set([401, 402, 403, 429, 503]);
const UNKNOWN_FIELD = ['Unknown field.', localise('Unknown field.', 'fr')];
/** Requests refused with a 422 naming their unknown fields. */
let unknownFieldsNamed = 0;

/**
 * Strict inputs (CONTRACT section 2): a body key the document closes out, anywhere outside the pushed
 * records, is a 422 naming it with "Unknown field.", unless the request was refused before its body was read.
 */
function unknownFieldProblems(plan: RequestPlan, answer: SentAnswer): string[] {
  const schema = bodySchema(plan.op);
  const unknown = schema && plan.body !== undefined && plan.rawBody === undefined ? unknownFieldsOf(world.doc, schema, plan.body) : [];
  if (unknown.length === 0 || REFUSED_BEFORE_VALIDATION.has(answer.status)) return [];
  if (answer.status !== 422) return [`an unknown field (${unknown.join(', ')}) answered ${answer.status}`];
  const unnamed = unknown.filter((path) => !answer.body?.errors?.[path]?.some((message: string) => UNKNOWN_FIELD.includes(message)));
  if (unnamed.length === 0) unknownFieldsNamed++;
  return unnamed.length ? [`a 422 that does not name the unknown field ${unnamed.join(', ')} with "Unknown field."`] : [];
}

t.test('faults injected into every operation never make a 500, every error follows the CONTRACT, and no acknowledged sale is lost', async (t) => {
  const violations = new Map<string, { count: number; example: string }>();
  const byFault = new Map<string, number>();
  const acknowledged = new Set<string>();
  let requests = 0;
  let faultsInjected = 0;
  let serverErrors = 0;
  const started = Date.now();

  const note = (key: string, example: string) => {
    const seen = violations.get(key);
    if (seen) seen.count++;
    else violations.set(key, { count: 1, example });
  };
  const keepSales = (plan: RequestPlan, answer: SentAnswer) => {
    if (plan.op.path === '/api/v1/sales' && plan.op.method === 'post' && answer.status < 300) acknowledged.add(answer.body.data.id);
    if (plan.op.path.endsWith('/sync/push') && answer.status === 200) {
      for (const result of answer.body.data.results) {
        if (result.entity === 'sales' && (result.status === 'applied' || result.status === 'duplicate')) acknowledged.add(result.id);
      }
    }
  };
  const productId = world.tillProductId;
  const saleOp = world.operations.find((op) => op.name === 'POST /api/v1/sales')!;
  const pushOp = world.operations.find((op) => op.name === 'POST /api/v1/device/sync/push')!;
  const line = { items: [{ product_id: productId, quantity: 1 }], payments: [{ method: 'cash', amount_xaf: 1000 }] };

  const request = plannedRequest(world).chain(({ plan, caller }) => fc.record({ plan: fc.constant(plan), caller: fc.constant(caller), fault: faultOf, fallback: faultOf }));
  t.comment(`fast-check seed ${RUN.seed}, ${RUN.runs} requests, a good sale every ${SALE_EVERY}`);
  await fc.assert(
    fc.asyncProperty(request, async ({ plan, caller, fault, fallback }) => {
      // A fault with nothing to act on (no body, no parameter) gives way to a bad parameter, else to forged credentials.
      const primary = injectFault(plan, fault);
      const faulty = primary ?? injectFault(plan, { ...fallback, kind: 'bad_parameter' });
      const sentAs = faulty || caller === 'nobody' ? caller : 'forged';
      const kind = primary ? fault.kind : faulty ? 'bad_parameter' : sentAs === 'forged' ? 'forged_credentials' : 'none';
      const sent = faulty ?? plan;
      requests++;
      if (kind !== 'none') faultsInjected++;
      byFault.set(kind, (byFault.get(kind) ?? 0) + 1);
      const answer = await world.send(sent, sentAs);
      // A pushed record that failed on the server is a 500 in all but the status (the push itself answers 200).
      const pushFailures = sent.op.path.endsWith('/sync/push') && answer.status === 200
        ? answer.body.data.results.filter((result: { code?: string }) => result.code === 'server_error').length
        : 0;
      if (answer.status >= 500 || pushFailures > 0) serverErrors++;
      keepSales(sent, answer);
      const problems = [
        ...(answer.status >= 500 ? [`a ${answer.status}`] : []),
        ...(pushFailures ? ['a pushed record rejected as server_error'] : []),
        ...contractProblems(answer),
        ...unknownFieldProblems(sent, answer),
        // The document's answer too: a status it declares, the headers it says, `code` one it lists there.
        ...answerProblems(validator, sent.op, answer),
      ];
      for (const problem of problems) note(`${sent.op.name} ${answer.status}: ${problem}`, `${describe(sent, sentAs)}\n    answered ${answer.status} ${answer.text.slice(0, 300)}`);

      if (requests % SALE_EVERY === 0) {
        const sell = () => world.send({ op: saleOp, path: {}, query: {}, headers: {}, body: line }, 'owner');
        // A fuzzed logout may have ended the owner's session just before: the fixture has logged in again.
        const first = await sell();
        const online = first.status === 401 ? await sell() : first;
        if (online.status !== 201) note(`a good sale answered ${online.status}`, online.text.slice(0, 300));
        else acknowledged.add(online.body.data.id);
        const id = randomUUID();
        const pushed = await world.send({ op: pushOp, path: {}, query: {}, headers: {}, body: { sales: [{ id, created_at: new Date().toISOString(), ...line }] } }, 'device');
        if (pushed.status !== 200 || pushed.body.data.results[0].status !== 'applied') note(`a good pushed sale answered ${pushed.status}`, pushed.text.slice(0, 300));
        else acknowledged.add(id);
      }
    }),
    { seed: RUN.seed, numRuns: RUN.runs, includeErrorInReport: true, ...(RUN.path ? { path: RUN.path } : {}) },
  );

  const ids = [...acknowledged];
  const kept = await api.ownerSql<{ id: string }[]>`select id from sales where id = any(${ids}::uuid[])`;
  const lost = ids.filter((id) => !kept.some((row) => row.id === id));
  const shopId = (await api.ownerSql<{ shop_id: string }[]>`select shop_id from products where id = ${productId}`)[0]!.shop_id;
  const invariants = await ledgerInvariants(api, shopId);

  t.comment(`${requests} requests, ${faultsInjected} faults injected, ${serverErrors} answers 500, ${lost.length} lost sales of ${ids.length} acknowledged, in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  t.comment(`faults: ${[...byFault].sort().map(([kind, count]) => `${kind} x${count}`).join(', ')}`);
  t.equal(serverErrors, 0, 'no answer is a 500');
  t.ok(unknownFieldsNamed > 0, `${unknownFieldsNamed} requests with an unknown field refused with a 422 naming it`);
  t.strictSame(lost, [], 'every acknowledged sale is recorded');
  t.ok(ids.length >= Math.floor(RUN.runs / SALE_EVERY), `${ids.length} sales acknowledged`);
  t.strictSame(invariants, { stockMismatches: [], unbalancedEntries: [] }, 'stock equals the sum of movements and every journal entry balances');
  t.equal(violations.size, 0, 'every error answer follows the CONTRACT');
  for (const [key, { count, example }] of [...violations].slice(0, 40)) t.fail(`${key} (x${count})\n    e.g. ${example}`);
});
