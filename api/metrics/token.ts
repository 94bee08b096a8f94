import { timingSafeEqual } from 'node:crypto';
import { sha256 } from '../lib/secrets.ts';

const BEARER = /^Bearer\s+(\S+)$/i;

/**
 * Whether an `Authorization` header carries `Bearer <token>` (METRICS_TOKEN): web's GET /metrics and
 * the worker's. Compared as digests of equal length, so the time taken says nothing of the token, its
 * length included.
 */
export function carriesMetricsToken(authorization: string | undefined, token: string): boolean {
  const given = BEARER.exec(authorization ?? '')?.[1];
  return given !== undefined && timingSafeEqual(Buffer.from(sha256(given), 'hex'), Buffer.from(sha256(token), 'hex'));
}
