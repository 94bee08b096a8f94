import { createApp } from '../app.ts';
import { loadConfig } from '../config.ts';
import { createSql } from '../db.ts';
import { createLogger } from '../logger.ts';

/**
 * The OpenAPI document as `GET /openapi.json` answers it, built without a database (no query runs:
 * the pool connects lazily and is never used). `npm run openapi` prints it; `npm run lint:openapi`
 * lints it with Redocly and Spectral (redocly.yaml, .spectral.yaml).
 */
export async function openApiDocument(): Promise<unknown> {
  const sql = createSql('postgres://nobody@127.0.0.1:1/none', { max: 1 });
  const app = createApp({
    config: loadConfig({ NODE_ENV: 'test', APP_KEY: 'x'.repeat(32) }),
    sql,
    appKey: 'x'.repeat(32),
    log: createLogger('silent'),
    clientAddress: () => undefined,
  });
  const answer = await app.request('/openapi.json');
  await sql.end({ timeout: 0 });
  return answer.json();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.stdout.write(`${JSON.stringify(await openApiDocument(), null, 2)}\n`);
}
