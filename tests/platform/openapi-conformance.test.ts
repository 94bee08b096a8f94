import fc from 'fast-check';
import t from 'tap';
import { bodySchema, deref, faultOf, injectFault, type Operation, type RequestPlan } from '../support/openapi-arbitraries.ts';
import { describe, fuzzWorld, plannedRequest } from '../support/openapi-fuzz.ts';
import { answerProblems, documentValidator } from '../support/openapi-validator.ts';
import { propertyRun } from '../support/property.ts';
import { startService } from '../support/service.ts';

/**
 * The OpenAPI document is the contract the server enforces: requests generated from the document
 * itself (most as it describes them, some with a fault injected), sent as the shop's owner, its
 * cashier, a shop whose subscription has ended, a paired device, nobody or a forged token, each
 * answered with a status the operation declares, the headers it declares (`X-Request-Id`, an error's
 * `Content-Language`, `Retry-After`) and a body that follows the schema declared for it, its `code`
 * one of those the operation lists for that status;
 * and a JSON body the document forbids is never taken.
 * Fixed seed; FC_SEED and FC_RUNS run another sample.
 */

const RUN = propertyRun(20_261_122, 1_500);
// With the simulator every shop certifies: the certification routes, and sales carrying `certification`, are exercised turned on.
const api = await startService(t, { TRUST_PROXY: 'true', FISCAL_PROVIDER: 'simulator' });
const world = await fuzzWorld(api);
const validator = documentValidator(world.doc);

/** The JSON value a request's body carried, if it was sent as JSON and parses. */
function jsonSent(plan: RequestPlan): unknown {
  if (plan.contentType !== undefined) return undefined;
  if (plan.rawBody === undefined) return plan.body;
  try {
    return JSON.parse(plan.rawBody);
  } catch {
    return undefined;
  }
}

interface Problem {
  count: number;
  example: string;
}

/** The order a push applies its records in, and answers their results in (the push's description). */
const PUSH_ORDER = ['customers', 'sales', 'expenses', 'cash_movements'];

/**
 * What the document forbids and the server took anyway. A push takes its body whatever its records
 * hold (each is checked on its own): there, each record the document forbids must be answered
 * `rejected`, never `applied`.
 */
function forbiddenTaken(op: Operation, sent: unknown, answer: { body?: any }): string[] {
  const schema = bodySchema(op)!;
  const push = deref(world.doc, schema);
  if (!op.path.endsWith('/sync/push') || !sent || typeof sent !== 'object' || Array.isArray(sent)) {
    const refusals = validator.problems(schema, sent);
    return refusals.length ? [`a body the document forbids was taken: ${refusals.slice(0, 2).join('; ')}`] : [];
  }
  const body = sent as Record<string, unknown>;
  const shell = Object.fromEntries(Object.entries(body).map(([key, value]) => [key, PUSH_ORDER.includes(key) && Array.isArray(value) ? [] : value]));
  const found = validator.problems(schema, shell).map((problem) => `a push body the document forbids was taken: ${problem}`);
  const results: { status?: string }[] = answer.body?.data?.results ?? [];
  let index = 0;
  for (const entity of PUSH_ORDER) {
    for (const record of Array.isArray(body[entity]) ? (body[entity] as unknown[]) : []) {
      const result = results[index++];
      const refusals = validator.problems(push.properties[entity].items, record);
      if (refusals.length && result?.status === 'applied') found.push(`a pushed ${entity} record the document forbids was applied: ${refusals.slice(0, 2).join('; ')}`);
    }
  }
  return found;
}

t.test('every answer has a status the operation declares (or its default describes), the headers it declares and a body that follows its declared schema with a `code` that answer lists, none is a 500, and no body the document forbids is taken', async (t) => {
  const problems = new Map<string, Problem>();
  const statuses = new Map<number, number>();
  const reached = new Set<string>();
  let requests = 0;
  let faults = 0;
  const started = Date.now();
  const request = plannedRequest(world).chain(({ plan, caller }) =>
    fc.option(faultOf, { freq: 3 }).map((fault) => ({ caller, plan: (fault && injectFault(plan, fault)) || plan, faulty: !!fault && !!injectFault(plan, fault) })),
  );
  t.comment(`fast-check seed ${RUN.seed}, ${RUN.runs} requests`);
  await fc.assert(
    fc.asyncProperty(request, async ({ plan, caller, faulty }) => {
      requests++;
      if (faulty) faults++;
      const answer = await world.send(plan, caller);
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      if (answer.status < 300) reached.add(plan.op.name);
      const found = answerProblems(validator, plan.op, answer);
      if (answer.status >= 500) found.push(`a ${answer.status}: ${answer.text.slice(0, 200)}`);
      if (!answer.headers.get('x-request-id')) found.push('no X-Request-Id');
      // The other way round: a JSON body the document forbids is refused.
      const schema = bodySchema(plan.op);
      const sent = jsonSent(plan);
      if (schema && sent !== undefined && answer.status < 300) found.push(...forbiddenTaken(plan.op, sent, answer));
      for (const problem of found) {
        const key = `${plan.op.name} ${answer.status}: ${problem}`;
        const seen = problems.get(key);
        if (seen) seen.count++;
        else problems.set(key, { count: 1, example: `${describe(plan, caller)}\n    answered ${answer.status} ${answer.text.slice(0, 400)}` });
      }
    }),
    { seed: RUN.seed, numRuns: RUN.runs, includeErrorInReport: true, ...(RUN.path ? { path: RUN.path } : {}) },
  );
  t.comment(`${requests} requests (${faults} with a fault injected) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  t.comment(`statuses: ${[...statuses].sort(([a], [b]) => a - b).map(([status, count]) => `${status} x${count}`).join(', ')}`);
  const unreached = world.operations.filter((op) => !reached.has(op.name)).map((op) => op.name);
  t.comment(`operations answered with a success: ${reached.size} of ${world.operations.length}${unreached.length ? ` (not: ${unreached.join('; ')})` : ''}`);
  t.equal(problems.size, 0, 'no answer strays from the document');
  for (const [key, { count, example }] of [...problems].slice(0, 40)) t.fail(`${key} (x${count})\n    e.g. ${example}`);
});
