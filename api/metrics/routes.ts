import { createRoute, z } from '@hono/zod-openapi';
import { errors } from '../errors.ts';
import { newRouter } from '../router.ts';
import { refusals } from '../schemas.ts';
import { carriesMetricsToken } from './token.ts';

const EXAMPLE = [
  '# HELP http_request_duration_seconds Time to answer a request, by method, route template (`unmatched` when no route matched) and status.',
  '# TYPE http_request_duration_seconds histogram',
  'http_request_duration_seconds_bucket{le="0.05",method="POST",route="/api/v1/sales",status="201"} 42',
  '',
].join('\n');

const metrics = createRoute({
  method: 'get',
  path: '/metrics',
  tags: ['Operations'],
  operationId: 'getMetrics',
  summary: 'Metrics in Prometheus text format, for the metrics token only',
  description:
    'Served only when the service has a `METRICS_TOKEN`: `Authorization: Bearer <METRICS_TOKEN>` (not a user\'s token). ' +
    'Requests (`http_request_duration_seconds` by method, route template and status; `http_requests_in_flight`), the database pool ' +
    '(`db_pool_connections_busy`, `db_pool_connections_waiting`), refusals (`http_admission_refusals_total` by reason, `http_rate_limited_total` by limit) ' +
    'and the process\'s own (CPU, memory, event-loop lag). The worker serves its job metrics (`jobs_...`) the same way on `WORKER_METRICS_PORT`. ' +
    'Each process counts its own requests: scrape every instance.',
  security: [{ metricsToken: [] }],
  responses: {
    200: { description: 'The metrics (Prometheus text exposition format 0.0.4).', content: { 'text/plain': { schema: z.string(), example: EXAMPLE } } },
    ...refusals(401, { unauthenticated: 'No token, or another token than `METRICS_TOKEN`.' }),
    ...refusals(404, { not_found: 'The service has no `METRICS_TOKEN`: no metrics are served, as on any unknown path.' }),
  },
});

export const metricsRoutes = newRouter({ usesDatabase: false }).openapi(metrics, async (c) => {
  const token = c.var.deps.config.METRICS_TOKEN;
  if (!token) throw errors.notFound();
  if (!carriesMetricsToken(c.req.header('authorization'), token)) throw errors.unauthenticated();
  const { registry } = c.var.metrics;
  return c.text(await registry.metrics(), 200, { 'Content-Type': registry.contentType });
});

metricsRoutes.openAPIRegistry.registerComponent('securitySchemes', 'metricsToken', {
  type: 'http',
  scheme: 'bearer',
  description: 'The service\'s `METRICS_TOKEN` (GET /metrics only); no user\'s token opens it.',
});
