import { createRoute, z } from '@hono/zod-openapi';
import { behindMessage, codeMigrations, compareSchema } from '../../db/schema-check.ts';
import type { Sql } from '../db.ts';
import { newRouter } from '../router.ts';
import { ErrorBody, jsonResponse } from '../schemas.ts';

const Status = z.object({ status: z.string() });

const healthz = createRoute({
  method: 'get',
  path: '/healthz',
  tags: ['Operations'],
  operationId: 'getLiveness',
  summary: 'Liveness: 200 while the process lives',
  description: 'No token, no database: answers 200 as long as the process serves requests. A load balancer or an orchestrator restarts a process that stops answering it.',
  responses: { 200: jsonResponse('Alive.', Status, { status: 'ok' }) },
});

const readyz = createRoute({
  method: 'get',
  path: '/readyz',
  tags: ['Operations'],
  operationId: 'getReadiness',
  summary: 'Readiness: 200 only when the database answers and its schema is not behind the code',
  description:
    'No token. Answers 200 when the database answers a query within 2 seconds and has every migration this code has; else 503 `not_ready`: ' +
    'send no traffic to this process until it is ready again. The schema is compared at most every 5 seconds (migrations only, from `schema_migrations`): ' +
    'a migration the code has and the database lacks makes the process not ready (the message names it: run `npm run migrate`); ' +
    'a migration recorded by a newer release that this code does not know does not. ' +
    'From the moment the process is told to stop (SIGTERM), it answers 503 `not_ready` (`Shutting down.`) for `SHUTDOWN_READY_DELAY_MS` (5 s by default) ' +
    'while it still serves every other request, so that a load balancer takes it out of rotation before it drains.',
  responses: {
    200: jsonResponse('Ready.', Status, { status: 'ready' }),
    // Answered by the probe itself, not the error handler: no `Content-Language`.
    503: {
      description: 'Not ready: send no traffic to this process. Codes:\n- `not_ready`: The database does not answer, its schema is behind the code, or the process is shutting down.',
      content: {
        'application/json': {
          schema: ErrorBody.extend({ code: z.enum(['not_ready']) }),
          examples: { not_ready: { summary: 'The database does not answer.', value: { message: 'Database unavailable.', code: 'not_ready' } } },
        },
      },
    },
  },
});

const READY_TIMEOUT_MS = 2_000;
const SCHEMA_CHECK_EVERY_MS = 5_000;
const UNDEFINED_FUNCTION = '42883';

/** The last schema comparison per pool: null when the schema is current, else why the process is not ready. */
const schemaChecks = new WeakMap<Sql, { at: number; behind: string | null }>();

/** Throws when the database does not answer; the comparison is reused for SCHEMA_CHECK_EVERY_MS. */
async function schemaBehind(sql: Sql): Promise<string | null> {
  const cached = schemaChecks.get(sql);
  if (cached && Date.now() - cached.at < SCHEMA_CHECK_EVERY_MS) {
    await sql`select 1`;
    return cached.behind;
  }
  let behind: string | null;
  try {
    const [row] = await sql<{ versions: string[] }[]>`select schema_migrations_applied() as versions`;
    const { pending } = compareSchema(await codeMigrations(), row!.versions);
    behind = pending.length ? behindMessage(pending) : null;
  } catch (error) {
    // A database older than the probe itself (or never migrated).
    if ((error as { code?: string }).code !== UNDEFINED_FUNCTION) throw error;
    behind = 'Database schema is behind the code: run npm run migrate';
  }
  schemaChecks.set(sql, { at: Date.now(), behind });
  return behind;
}

export const healthRoutes = newRouter({ usesDatabase: false })
  .openapi(healthz, (c) => c.json({ status: 'ok' }, 200))
  .openapi(readyz, async (c) => {
    // CONTRACT section 16: a 503 says when to ask again; the schema is compared again within that time.
    const notReady = (message: string) => c.json({ message, code: 'not_ready' as const }, 503, { 'Retry-After': String(SCHEMA_CHECK_EVERY_MS / 1000) });
    if (c.var.deps.lifecycle?.stopping) return notReady('Shutting down.');
    const unavailable = 'Database unavailable.';
    const probe = schemaBehind(c.var.deps.sql).catch(() => unavailable);
    const timeout = new Promise<string>((resolve) => setTimeout(resolve, READY_TIMEOUT_MS, unavailable));
    const behind = await Promise.race([probe, timeout]);
    return behind === null ? c.json({ status: 'ready' }, 200) : notReady(behind);
  });
