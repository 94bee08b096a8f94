import { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from './env.ts';
import { validationHook } from './validation.ts';

/** Every domain builds its routes on one of these, so validation answers the same everywhere. */
export function newRouter(): OpenAPIHono<AppEnv> {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
}
