import { createRoute, z } from '@hono/zod-openapi';
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
  summary: 'Readiness: 200 only when the database answers',
  description: 'No token. Answers 200 when the database answers a query within 2 seconds, else 503 `not_ready`: send no traffic to this process until it is ready again.',
  responses: {
    200: jsonResponse('Ready.', Status, { status: 'ready' }),
    503: jsonResponse('The database does not answer (`not_ready`).', ErrorBody),
  },
});

const READY_TIMEOUT_MS = 2_000;

export const healthRoutes = newRouter({ usesDatabase: false })
  .openapi(healthz, (c) => c.json({ status: 'ok' }, 200))
  .openapi(readyz, async (c) => {
    const probe = c.var.deps.sql`select 1`.then(() => true, () => false);
    const timeout = new Promise<boolean>((resolve) => setTimeout(resolve, READY_TIMEOUT_MS, false));
    return (await Promise.race([probe, timeout]))
      ? c.json({ status: 'ready' }, 200)
      : c.json({ message: 'Database unavailable.', code: 'not_ready' }, 503);
  });
