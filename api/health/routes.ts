import { createRoute, z } from '@hono/zod-openapi';
import { newRouter } from '../router.ts';
import { ErrorBody, jsonResponse } from '../schemas.ts';

const Status = z.object({ status: z.string() });

const healthz = createRoute({
  method: 'get',
  path: '/healthz',
  tags: ['Operations'],
  summary: 'Liveness: 200 while the process lives',
  responses: { 200: jsonResponse('Alive.', Status) },
});

const readyz = createRoute({
  method: 'get',
  path: '/readyz',
  tags: ['Operations'],
  summary: 'Readiness: 200 only when the database answers',
  responses: {
    200: jsonResponse('Ready.', Status),
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
