import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Hono } from 'hono';
import type { AppEnv } from '../env.ts';

/**
 * Shops are often offline: the reference page's assets come from node_modules, never a CDN, and its
 * validator badge is off (`validatorUrl: null`): by default Swagger UI sends the document's address
 * to validator.swagger.io whenever the service is reached under a real host name.
 */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const assetDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const cache = new Map<string, Uint8Array>();

function asset(name: string): Uint8Array {
  let body = cache.get(name);
  if (!body) {
    body = new Uint8Array(readFileSync(path.join(assetDir, name)));
    cache.set(name, body);
  }
  return body;
}

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Point of sale API</title>
  <link rel="icon" href="/api-docs/assets/favicon-32x32.png">
  <link rel="stylesheet" href="/api-docs/assets/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/api-docs/assets/swagger-ui-bundle.js"></script>
  <script src="/api-docs/assets/swagger-ui-standalone-preset.js"></script>
  <script>
    window.ui = SwaggerUIBundle({
      url: '/openapi.json',
      dom_id: '#swagger-ui',
      deepLinking: true,
      persistAuthorization: true,
      validatorUrl: null,
      presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
      layout: 'StandaloneLayout'
    });
  </script>
</body>
</html>`;

export const docsRoutes = new Hono<AppEnv>()
  .get('/api-docs', (c) => c.html(PAGE))
  .get('/api-docs/assets/:name', (c) => {
    const type = ASSETS[c.req.param('name')];
    if (!type) return c.notFound();
    return c.body(asset(c.req.param('name')) as Uint8Array<ArrayBuffer>, 200, { 'content-type': type, 'cache-control': 'public, max-age=86400' });
  });
