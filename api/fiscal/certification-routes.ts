/**
 * Certified invoicing (CONTRACT section 14): the owner turns it on with the shop's credentials at its
 * tax authority, reads what was certified, rejected or waits, sends a rejected record again, and
 * settles a record whose answer was lost. The delivery itself is the worker's (api/fiscal/certification.ts).
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.ts';
import { errors, invalidField } from '../errors.ts';
import { decodeCursor, page } from '../lib/pagination.ts';
import { seal } from '../lib/secrets.ts';
import { authenticate, requireActiveSubscription, requireRole } from '../middleware/auth.ts';
import { newRouter } from '../router.ts';
import { bearer, jsonBody, jsonResponse, ListQuery, many, one, optionalText, pickErrors, refusals, Text } from '../schemas.ts';
import {
  AUTHORITY,
  certificationCounts,
  checkVatRates,
  findCertification,
  findSettings,
  listCertifications,
  retryRejected,
  saveSettings,
  settleLost,
  shopVatRates,
} from './certification-queries.ts';
import { fiscalProvider } from './providers/index.ts';

const tags = ['Certification'];
const readers = [authenticate, requireRole('manager')];
const owners: MiddlewareHandler<AppEnv>[] = [authenticate, requireRole('owner'), requireActiveSubscription];

const Status = z.enum(['pending', 'certified', 'rejected']);

const Settings = z
  .object({
    provider: z.enum(['none', 'simulator', 'emecef', 'fne']).openapi({ description: 'The service\'s authority (FISCAL_PROVIDER), the same for every shop of the service.' }),
    enabled: z.boolean().openapi({ description: 'Whether the shop\'s new sales, voids and refunds are sent to the authority.' }),
    taxpayer_no: z.string().nullable().openapi({ description: 'The shop\'s taxpayer number there (Benin: IFU; Cote d\'Ivoire: NCC); the simulator uses the shop\'s `tax_id` when unset.' }),
    api_token_set: z.boolean().openapi({ description: 'Whether an API token is stored. It is kept sealed and never answered.' }),
    point_of_sale: z.string().nullable(),
    establishment: z.string().nullable(),
    from_chain_no: z.number().int().nullable().openapi({ description: 'The first record of the fiscal chain certified: those made before certification was turned on are not sent.' }),
    enabled_at: z.string().nullable(),
    tax_groups: z
      .array(z.object({ vat_rate: z.string(), tax_group: z.string().nullable() }))
      .openapi({ description: 'The shop\'s VAT rates (its default and its active products\') and the authority\'s tax group for each; null: none, which refuses enabling.' }),
    counts: z.object({ pending: z.number().int(), certified: z.number().int(), rejected: z.number().int(), waiting_for_owner: z.number().int() }),
  })
  .openapi('CertificationSettings', {
    example: {
      provider: 'emecef',
      enabled: true,
      taxpayer_no: '3201234567890',
      api_token_set: true,
      point_of_sale: null,
      establishment: null,
      from_chain_no: 1,
      enabled_at: '2026-11-20T08:00:00.000Z',
      tax_groups: [
        { vat_rate: '0', tax_group: 'A' },
        { vat_rate: '18', tax_group: 'B' },
      ],
      counts: { pending: 2, certified: 1480, rejected: 1, waiting_for_owner: 0 },
    },
  });

const SettingsBody = z
  .object({
    enabled: z.boolean(),
    taxpayer_no: optionalText(60),
    api_token: Text.min(1).max(4096).optional().openapi({ description: 'The token the authority gave the shop (e-MECeF: the e-MCF\'s JWT; FNE: the API key of its FNE space). Sealed; never answered.' }),
    point_of_sale: optionalText(120),
    establishment: optionalText(160),
  })
  .strict()
  .openapi('CertificationSettingsBody', { example: { enabled: true, taxpayer_no: '3201234567890', api_token: 'eyJhbGciOiJIUzI1NiJ9.e30.c2lnbmF0dXJl' } });

const Record = z
  .object({
    chain_no: z.number().int().openapi({ description: 'The record\'s place in the fiscal chain: records are delivered in this order.' }),
    kind: z.enum(['sale', 'void', 'refund']),
    sale_id: z.uuid(),
    refund_id: z.uuid().nullable(),
    number: z.number().int().openapi({ description: 'The receipt number (a sale, a void) or the credit note number (a refund).' }),
    total_xaf: z.number().int(),
    provider: z.string(),
    status: Status,
    authority_no: z.string().nullable(),
    signature: z.string().nullable(),
    qr: z.string().nullable(),
    certified_at: z.string().nullable(),
    error: z.string().nullable(),
    error_message: z.string().nullable(),
    attempts: z.number().int(),
    next_attempt_at: z.string().nullable().openapi({ description: 'A pending record the authority did not take yet: when it is tried again.' }),
    created_at: z.string(),
  })
  .openapi('CertificationRecord', {
    example: {
      chain_no: 1523,
      kind: 'sale',
      sale_id: '5b0e8f3c-1c2a-4a57-9d1e-3f2b6c7d8e90',
      refund_id: null,
      number: 1042,
      total_xaf: 18_450,
      provider: 'emecef',
      status: 'rejected',
      authority_no: null,
      signature: null,
      qr: null,
      certified_at: null,
      error: 'emecef_9',
      error_message: 'La groupe de taxation au niveau des articles n\'est pas valide',
      attempts: 1,
      next_attempt_at: null,
      created_at: '2026-11-21T09:14:32.000Z',
    },
  });

const ListCertificationsQuery = ListQuery.extend({
  status: Status.optional().openapi({ param: { name: 'status', in: 'query' }, description: 'Only the records of this status; all when left out.' }),
});
const ChainNoParam = z.object({ chain_no: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).openapi({ param: { name: 'chain_no', in: 'path' } }) });
const ListKey = z.tuple([z.number().int().min(0)]);

const SettleBody = z
  .object({
    found: z.boolean().openapi({ description: 'true: the record is on the authority\'s portal, certified (give its number and QR). false: it is not there: it is sent again.' }),
    authority_no: optionalText(120),
    qr: optionalText(1000),
    signature: optionalText(500),
  })
  .strict()
  .openapi('SettleCertificationBody', { example: { found: true, authority_no: '9606123E25000000019', qr: 'http://54.247.95.108/fr/verification/019465c1-3f61-766c-9652-706e32dfb436' } });

const getSettings = createRoute({
  method: 'get',
  path: '/fiscal/certification',
  tags,
  operationId: 'getCertificationSettings',
  summary: 'The shop\'s certified invoicing: its authority, its settings, its counts (manager or owner)',
  description: [
    'The service\'s authority (`FISCAL_PROVIDER`), whether the shop certifies, its settings there (the token only as `api_token_set`), the tax group',
    'the authority gives each of the shop\'s VAT rates, and how many records are pending, certified, rejected or waiting for the owner.',
  ].join(' '),
  security: bearer,
  middleware: readers,
  responses: { 200: jsonResponse('The settings.', one(Settings)), ...pickErrors(401, 403) },
});

const putSettings = createRoute({
  method: 'put',
  path: '/fiscal/certification',
  tags,
  operationId: 'putCertificationSettings',
  summary: 'Turn certified invoicing on or off, with the shop\'s credentials at its authority (owner)',
  description: [
    'The authority is the service\'s (`FISCAL_PROVIDER`); each shop gives its own credentials there. e-MECeF (Benin) needs `taxpayer_no` (the IFU,',
    '13 digits) and `api_token` (the e-MCF\'s token); FNE (Cote d\'Ivoire) needs `taxpayer_no` (the NCC), `api_token` (the API key of its FNE space)',
    'and `point_of_sale`; the simulator needs nothing. A setting left out keeps its value; the token is stored sealed and never answered.',
    'Enabling is refused (422 `unmapped_vat_rate` on `enabled`) while the shop sells at a VAT rate the authority has no tax group for (its default',
    'rate, or an active product\'s): e-MECeF takes 0 % (group A, exempt) and 18 % (B); FNE 18 % (TVA), 9 % (TVAB) and 0 % (TVAD, legal exemption).',
    'Certification covers the records made from then on, in chain order; turning it off leaves what is already queued to be delivered.',
  ].join(' '),
  security: bearer,
  middleware: owners,
  request: { body: jsonBody(SettingsBody) },
  responses: {
    200: jsonResponse('The settings as saved.', one(Settings)),
    ...pickErrors(401, 402, 403),
    ...refusals(409, { certification_unavailable: 'The service certifies with no authority (FISCAL_PROVIDER is none).' }),
    ...refusals(422, { unmapped_vat_rate: { on: 'enabled', meaning: 'A VAT rate of the shop has no tax group at the authority.' } }),
  },
});

const listRoute = createRoute({
  method: 'get',
  path: '/fiscal/certifications',
  tags,
  operationId: 'listCertifications',
  summary: 'The records sent or to send to the tax authority, in chain order (manager or owner)',
  description: [
    '`status=rejected` lists what the authority refused, with its reason (`error`, `error_message`): each stays a sale in the books, and the owner',
    'is e-mailed about it. `status=pending` shows what waits: `authority_unreachable` (tried again with a growing pause, `next_attempt_at`) or',
    '`answer_lost` (sent, its answer lost where the authority offers no look-up: it waits for the owner, POST /fiscal/certifications/{chain_no}/settle,',
    'and the records after it wait behind it). Paginated with `limit` and `cursor`.',
  ].join(' '),
  security: bearer,
  middleware: readers,
  request: { query: ListCertificationsQuery },
  responses: { 200: jsonResponse('The records.', many(Record)), ...pickErrors(401, 403) },
});

const retryRoute = createRoute({
  method: 'post',
  path: '/fiscal/certifications/{chain_no}/retry',
  tags,
  operationId: 'retryCertification',
  summary: 'Send a rejected record to the authority again, once its cause is fixed (owner)',
  description: 'Back to `pending`, delivered at once (after any record still waiting before it). Only a rejected record: 409 `not_rejected` otherwise.',
  security: bearer,
  middleware: owners,
  request: { params: ChainNoParam },
  responses: {
    200: jsonResponse('The record, pending again.', one(Record)),
    ...pickErrors(401, 402, 403, 404),
    ...refusals(409, { not_rejected: 'The record is not rejected.' }),
  },
});

const settleRoute = createRoute({
  method: 'post',
  path: '/fiscal/certifications/{chain_no}/settle',
  tags,
  operationId: 'settleCertification',
  summary: 'Say whether a record whose answer was lost is at the authority (owner)',
  description: [
    'A record sent whose answer was lost, where the authority offers no way to look it up (FNE; an e-MECeF confirmation whose elements are gone),',
    'is never sent again on its own: that could certify it twice. The owner looks it up on the authority\'s portal: `found: true` with its',
    '`authority_no` and `qr` (as the portal shows them) records it certified; `found: false` sends it again. The records after it then go on.',
    'Only a pending record with `error` `answer_lost`: 409 `not_waiting_for_owner` otherwise. A sale settled by hand at FNE cannot take a credit',
    'note through the API later (FNE refunds name the invoice\'s own line ids, which its portal does not show): its refunds are rejected',
    '`original_not_refundable` and are made on FNE\'s portal.',
  ].join(' '),
  security: bearer,
  middleware: owners,
  request: { params: ChainNoParam, body: jsonBody(SettleBody) },
  responses: {
    200: jsonResponse('The record as settled.', one(Record)),
    ...pickErrors(401, 402, 403, 404),
    ...refusals(409, { not_waiting_for_owner: 'The record is not waiting for the owner.' }),
  },
});

async function settingsView(c: Context<AppEnv>): Promise<z.infer<typeof Settings>> {
  const { config } = c.var.deps;
  const tx = c.var.tx;
  const settings = await findSettings(tx);
  const provider = config.FISCAL_PROVIDER === 'none' ? null : fiscalProvider(config, config.FISCAL_PROVIDER);
  const rates = await shopVatRates(tx);
  return {
    provider: config.FISCAL_PROVIDER,
    enabled: Boolean(settings?.enabled) && config.FISCAL_PROVIDER !== 'none',
    taxpayer_no: settings?.taxpayer_no ?? null,
    api_token_set: settings?.api_token_set ?? false,
    point_of_sale: settings?.point_of_sale ?? null,
    establishment: settings?.establishment ?? null,
    from_chain_no: settings?.from_chain_no ?? null,
    enabled_at: settings?.enabled_at ?? null,
    tax_groups: rates.map(({ rate }) => ({ vat_rate: rate, tax_group: provider?.taxGroupFor(rate) ?? null })),
    counts: await certificationCounts(tx),
  };
}

const required = (field: string) => invalidField(field, `The ${field} field is required to enable certification with this authority.`);

export const certificationRoutes = newRouter()
  .openapi(getSettings, async (c) => c.json({ data: await settingsView(c) }, 200))
  .openapi(putSettings, async (c) => {
    const body = c.req.valid('json');
    const { config, appKey } = c.var.deps;
    if (config.FISCAL_PROVIDER === 'none') throw errors.conflict('certification_unavailable', 'This service certifies with no tax authority (FISCAL_PROVIDER is none).');
    const name = config.FISCAL_PROVIDER;
    const current = await findSettings(c.var.tx);
    if (body.enabled) {
      const taxpayer = body.taxpayer_no === undefined ? current?.taxpayer_no : body.taxpayer_no;
      const hasToken = body.api_token !== undefined || Boolean(current?.api_token_set && current.provider === name);
      if (name === 'emecef') {
        if (!taxpayer) throw required('taxpayer_no');
        if (!/^[0-9]{13}$/.test(taxpayer)) throw invalidField('taxpayer_no', 'An IFU is 13 digits.');
        if (!hasToken) throw required('api_token');
      }
      if (name === 'fne') {
        if (!taxpayer) throw required('taxpayer_no');
        if (!/^[0-9A-Za-z]{1,20}$/.test(taxpayer)) throw invalidField('taxpayer_no', 'An NCC is letters and digits, at most 20.');
        if (!hasToken) throw required('api_token');
        if (!(body.point_of_sale === undefined ? current?.point_of_sale : body.point_of_sale)) throw required('point_of_sale');
      }
      checkVatRates(fiscalProvider(config, name), await shopVatRates(c.var.tx), AUTHORITY[name]);
    }
    await saveSettings(c.var.tx, {
      provider: name,
      enabled: body.enabled,
      taxpayer_no: body.taxpayer_no,
      api_token_sealed: body.api_token === undefined ? undefined : seal(appKey, body.api_token),
      point_of_sale: body.point_of_sale,
      establishment: body.establishment,
    });
    return c.json({ data: await settingsView(c) }, 200);
  })
  .openapi(listRoute, async (c) => {
    const { limit, cursor, status } = c.req.valid('query');
    const after = decodeCursor(cursor, ListKey)?.[0] ?? 0;
    const { rows, nextCursor } = page(await listCertifications(c.var.tx, status, after, limit), limit, (row) => [row.chain_no]);
    return c.json({ data: rows, meta: { next_cursor: nextCursor } }, 200);
  })
  .openapi(retryRoute, async (c) => {
    const { chain_no: chainNo } = c.req.valid('param');
    await retryRejected(c.var.tx, chainNo);
    return c.json({ data: (await findCertification(c.var.tx, chainNo))! }, 200);
  })
  .openapi(settleRoute, async (c) => {
    const { chain_no: chainNo } = c.req.valid('param');
    const body = c.req.valid('json');
    if (body.found) {
      if (!body.authority_no) throw invalidField('authority_no', 'The authority_no field is required when the record was found.');
      if (!body.qr) throw invalidField('qr', 'The qr field is required when the record was found.');
      await settleLost(c.var.tx, chainNo, { found: true, authority_no: body.authority_no, qr: body.qr, signature: body.signature });
    } else {
      await settleLost(c.var.tx, chainNo, { found: false });
    }
    return c.json({ data: (await findCertification(c.var.tx, chainNo))! }, 200);
  });

