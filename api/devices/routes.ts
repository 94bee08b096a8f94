import { randomInt } from 'node:crypto';
import { createRoute, z } from '@hono/zod-openapi';
import { errors } from '../errors.ts';
import { SINGLE_PAGE } from '../lib/pagination.ts';
import { randomToken, seal, sha256, unseal } from '../lib/secrets.ts';
import { authenticate, requireActiveSubscription, requireRole } from '../middleware/auth.ts';
import { limitPublicByAddress } from '../middleware/rate-limit.ts';
import { newRouter } from '../router.ts';
import { bearer, IdParam, jsonResponse, many, one, pickErrors, refusals, Text } from '../schemas.ts';
import { DEVICE } from './examples.ts';
import { claimPairing, createPairing, findDevice, listDevices, pollPairing, revokeDevice } from './queries.ts';
import { ClaimBody, CreatePairingBody, DeviceRecord, Pairing, PairingStatus } from './schemas.ts';

/** Letters and digits a person reads and types without confusion: no 0/O, no 1/I. */
const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const CODE_LENGTH = 8;

const newCode = () => Array.from({ length: CODE_LENGTH }, () => CODE_ALPHABET[randomInt(CODE_ALPHABET.length)]).join('');

const CodeParam = z.object({
  code: Text.min(1)
    .max(32)
    .transform((code) => code.trim().toUpperCase())
    .openapi({ param: { name: 'code', in: 'path' }, description: 'Case-insensitive.' }),
});

const tags = ['Devices'];

const PAIRING_NOT_FOUND = { pairing_not_found: 'No pairing request has this code: it is unknown, expired, or claimed already.' };

const create = createRoute({
  method: 'post',
  path: '/device-pairings',
  tags,
  operationId: 'createDevicePairing',
  summary: 'A device with no credentials starts a pairing (public)',
  description:
    'The first step of pairing a till: no token needed. Answers an 8-character code to show on screen to an owner or manager, valid 10 minutes, ' +
    'and the secret the device polls with (`GET /device-pairings/{code}`). The body is optional (a name and platform the manager will see). Rate-limited per address.',
  middleware: [limitPublicByAddress],
  request: { body: { content: { 'application/json': { schema: CreatePairingBody } }, required: false } },
  responses: { 201: jsonResponse('The pairing request.', one(Pairing)), ...pickErrors(400, 413, 429) },
});

const poll = createRoute({
  method: 'get',
  path: '/device-pairings/{code}',
  tags,
  operationId: 'getDevicePairing',
  summary: 'Polled by the device until the code is claimed (public)',
  description:
    'An unknown code is a 404 `pairing_not_found` ("No pairing request with this code."). Once claimed, the first poll sending `X-Pairing-Secret: <poll_secret>` ' +
    'also receives `device` with its token, once; later polls only see `claimed`. Rate-limited per address.',
  middleware: [limitPublicByAddress],
  request: {
    params: CodeParam,
    headers: z.object({
      'x-pairing-secret': Text.max(200)
        .optional()
        .openapi({ description: 'The `poll_secret` of the pairing: once the code is claimed, the first poll that sends it receives the device token.' }),
    }),
  },
  responses: { 200: jsonResponse('The pairing\'s status.', one(PairingStatus)), ...pickErrors(429), ...refusals(404, PAIRING_NOT_FOUND) },
});

const claim = createRoute({
  method: 'post',
  path: '/device-pairings/{code}/claim',
  tags,
  operationId: 'claimDevicePairing',
  summary: 'Attach the device showing this code to the shop (manager or owner)',
  description:
    'The manager types the code the till shows: the till becomes one of the shop\'s devices (optionally renamed by `name`) and receives its device token on its next poll. ' +
    'A code that is unknown, expired or already claimed is a 404 `pairing_not_found`. Cashiers get a 403.',
  security: bearer,
  middleware: [authenticate, requireRole('manager'), requireActiveSubscription],
  request: { params: CodeParam, body: { content: { 'application/json': { schema: ClaimBody } }, required: false } },
  responses: {
    201: jsonResponse('The new device.', one(DeviceRecord), { data: { ...DEVICE, last_seen_at: null, last_sync_at: null, updated_at: DEVICE.created_at } }),
    ...pickErrors(400, 401, 402, 403, 413),
    ...refusals(404, PAIRING_NOT_FOUND),
  },
});

const list = createRoute({
  method: 'get',
  path: '/devices',
  tags,
  operationId: 'listDevices',
  summary: 'The shop\'s paired devices (manager or owner)',
  description: 'Every live device of the shop, oldest first, in one page, with when each was last seen and last synced: a till that has not synced for days holds sales not yet sent. Revoked devices are not listed.',
  security: bearer,
  middleware: [authenticate, requireRole('manager')],
  responses: { 200: jsonResponse('Devices, oldest first (one page).', many(DeviceRecord)), ...pickErrors(401, 403) },
});

const remove = createRoute({
  method: 'delete',
  path: '/devices/{id}',
  tags,
  operationId: 'revokeDevice',
  summary: 'Revoke a device: its token stops working at once (manager or owner)',
  description: 'For a lost or stolen till: its device token is refused from now on (401) and a sale naming it as `device_id` is a 422. What it synced before is kept. Pair it again to use it.',
  security: bearer,
  middleware: [authenticate, requireRole('manager')],
  request: { params: IdParam },
  responses: { 204: { description: 'Revoked.' }, ...pickErrors(401, 403, 404) },
});

export const deviceRoutes = newRouter()
  .openapi(create, async (c) => {
    const body = (c.req.header('content-type') ?? '').includes('json') ? c.req.valid('json') : {};
    const pollSecret = randomToken(24);
    for (;;) {
      const code = newCode();
      const expiresAt = await createPairing(c.var.deps.sql, {
        code,
        pollSecretHash: sha256(pollSecret),
        name: body.name ?? null,
        platform: body.platform ?? null,
      });
      if (expiresAt) return c.json({ data: { code, poll_secret: pollSecret, expires_at: expiresAt.toISOString() } }, 201);
    }
  })
  .openapi(poll, async (c) => {
    const { code } = c.req.valid('param');
    const secret = c.req.header('x-pairing-secret');
    const pairing = await pollPairing(c.var.deps.sql, code, secret ? sha256(secret) : null);
    if (!pairing) throw errors.pairingNotFound();
    const device = pairing.device_id && pairing.sealed_token ? { id: pairing.device_id, token: unseal(c.var.deps.appKey, pairing.sealed_token) } : undefined;
    return c.json({ data: { code, status: pairing.status, ...(device ? { device } : {}) } }, 200);
  })
  .openapi(claim, async (c) => {
    const { code } = c.req.valid('param');
    const body = (c.req.header('content-type') ?? '').includes('json') ? c.req.valid('json') : {};
    const token = randomToken(32);
    const deviceId = await claimPairing(c.var.tx, code, { name: body.name ?? null, tokenHash: sha256(token), sealedToken: seal(c.var.deps.appKey, token) });
    if (!deviceId) throw errors.pairingNotFound();
    return c.json({ data: (await findDevice(c.var.tx, deviceId))! }, 201);
  })
  .openapi(list, async (c) => c.json({ data: await listDevices(c.var.tx), meta: SINGLE_PAGE }, 200))
  .openapi(remove, async (c) => {
    if (!(await revokeDevice(c.var.tx, c.req.valid('param').id))) throw errors.notFound();
    return c.body(null, 204);
  });
