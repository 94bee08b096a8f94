import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Test } from 'tap';
import { startSwitchableServer } from './switchable-server.ts';

/**
 * A fake of Cote d'Ivoire's FNE as the DGI documents it ("Procédure d'interfaçage des entreprises par API",
 * May 2025; FNE-procedure-api.pdf of github.com/PRODESTIC/fne-sdk-php), under `<url>/ws` like the test host:
 * - every call needs `Authorization: Bearer <FNE_API_KEY>`: 401 `{message: 'Invalid API Key', error:
 *   'unauthorized_exception', statusCode: 401}` otherwise; a POST without a JSON body is 400.
 * - `POST /ws/external/invoices/sign`: checked as the document's tables say (invoiceType, paymentMethod,
 *   template and taxes from annex 1; clientNcc for B2B; the required texts; "Point of sale is not valid"
 *   for an empty pointOfSale), else 400 `{message, error: 'bad_request', statusCode: 400}`. A certified
 *   invoice is numbered `<NCC><yy><9 digits>` (the document's "9606123E25000000019"), its items get UUIDs,
 *   its token is `<url>/fr/verification/<uuid>`; `amount` (VAT included) and `vatAmount` are computed from
 *   the items: unit price excluding VAT x quantity, less the item's and the invoice's discount (%), VAT by
 *   `taxes` (TVA 18, TVAB 9, TVAC and TVAD 0); custom taxes are not computed.
 * - `POST /ws/external/invoices/{id}/refund`: 404 for an invoice it does not have; 400 for an item not of
 *   that invoice or a quantity beyond what is left to refund; else 201, the credit note numbered
 *   `A<NCC><yy><8 digits>` (the document's "A9606123E2500000006").
 * `failNext(route, fault)` makes the next calls of a route misbehave: 'hang' (nothing done, never answered),
 * 'keep-and-hang' (certified, never answered: the lost answer), 'keep-and-garble' (certified, answered 200
 * with a page that is not FNE's JSON), 'reset' (nothing done, the socket destroyed), or an HTTP status
 * (nothing done, answered with FNE's error body). `setDown(true)` stops listening (connection refused)
 * until `setDown(false)` listens again on the same port.
 */
export const FNE_API_KEY = 'kAF01gEM40r1Uz5WLJn5lxAnGMwVjCME-fne-secret';
export const FNE_NCC = '9606123E';

export type FneRoute = 'sign' | 'refund';
export type FneFault = 'hang' | 'keep-and-hang' | 'keep-and-garble' | 'reset' | number;

const INVOICE_TYPES = ['sale', 'purchase'];
const PAYMENT_METHODS = ['cash', 'card', 'check', 'mobile-money', 'transfer', 'deferred'];
const TEMPLATES = ['B2C', 'B2B', 'B2G', 'B2F'];
const VAT_RATES: Record<string, number> = { TVA: 18, TVAB: 9, TVAC: 0, TVAD: 0 };
const CURRENCIES = ['XOF', 'USD', 'EUR', 'JPY', 'CAD', 'GBP', 'AUD', 'CNH', 'CHF', 'HKD', 'NZD'];
const STICKERS = 180;

export interface FneInvoiceItem {
  id: string;
  quantity: number;
  reference: string | null;
  description: string;
  amount: number;
  discount: number;
  taxes: string[];
}

export interface FneInvoice {
  id: string;
  reference: string;
  token: string;
  date: string;
  /** The request as received. */
  body: any;
  items: FneInvoiceItem[];
  /** VAT included, after discounts. */
  amount: number;
  vatAmount: number;
}

export interface FneCreditNote {
  reference: string;
  token: string;
  invoiceId: string;
  items: { id: string; quantity: number }[];
}

export interface FakeFne {
  url: string;
  /** The settings that point the service at this fake. */
  env: Record<string, string>;
  /** Every invoice certified, in order: one per certification. */
  invoices: FneInvoice[];
  creditNotes: FneCreditNote[];
  calls(route: FneRoute): number;
  failNext(route: FneRoute, fault: FneFault, times?: number): void;
  /** Down: the port refuses connections; up again on the same port. */
  setDown(down: boolean): Promise<void>;
  close(): Promise<void>;
}

const ERRORS: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized_exception',
  404: 'not_found',
  500: 'internal_server_error',
  502: 'bad_gateway',
  503: 'service_unavailable',
  504: 'gateway_timeout',
};
const MESSAGES: Record<number, string> = { 500: 'Internal Server Error', 502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout' };

const text = (value: unknown) => typeof value === 'string' && value.trim() !== '';
const percentage = (value: unknown) => value === undefined || value === null || (typeof value === 'number' && value >= 0 && value <= 100);

/** The document's 400 message for a sign request of this shape, or null when FNE takes it. */
function refusalOf(body: any): string | null {
  if (!INVOICE_TYPES.includes(body.invoiceType)) return 'Invoice type is not valid';
  if (!PAYMENT_METHODS.includes(body.paymentMethod)) return 'Payment method is not valid';
  if (!TEMPLATES.includes(body.template)) return 'Template is not valid';
  if (typeof body.isRne !== 'boolean') return 'isRne must be a boolean';
  if (body.isRne && !text(body.rne)) return 'Rne is required';
  if (body.template === 'B2B' && !text(body.clientNcc)) return 'Client NCC is required for B2B';
  if (!text(body.clientCompanyName)) return 'Client company name is required';
  if (typeof body.clientPhone !== 'string' && typeof body.clientPhone !== 'number') return 'Client phone is required';
  if (typeof body.clientEmail !== 'string') return 'Client email is required';
  if (!text(body.pointOfSale)) return 'Point of sale is not valid';
  if (!text(body.establishment)) return 'Establishment is not valid';
  if (body.foreignCurrency) {
    if (!CURRENCIES.includes(body.foreignCurrency)) return 'Foreign currency is not valid';
    if (!(typeof body.foreignCurrencyRate === 'number' && body.foreignCurrencyRate > 0)) return 'Foreign currency rate is required';
  }
  if (!percentage(body.discount)) return 'Discount is not valid';
  if (!Array.isArray(body.items) || body.items.length === 0) return 'Items are required';
  for (const item of body.items) {
    if (body.invoiceType === 'sale') {
      if (!Array.isArray(item?.taxes) || item.taxes.length === 0 || !item.taxes.every((tax: unknown) => typeof tax === 'string' && tax in VAT_RATES)) return 'Taxes are not valid';
    }
    if (item.customTaxes !== undefined && !(Array.isArray(item.customTaxes) && item.customTaxes.every((tax: any) => text(tax?.name) && typeof tax.amount === 'number'))) return 'Custom taxes are not valid';
    if (!text(item.description)) return 'Description is required';
    if (!(typeof item.quantity === 'number' && item.quantity > 0)) return 'Quantity is not valid';
    if (!(typeof item.amount === 'number' && item.amount >= 0)) return 'Amount is not valid';
    if (!percentage(item.discount)) return 'Discount is not valid';
  }
  return null;
}

/** The invoice's totals: each item's price excluding VAT x quantity less its discount, the invoice's discount, then VAT. */
function totalsOf(body: any): { amount: number; vatAmount: number } {
  const off = 1 - (body.discount ?? 0) / 100;
  let ht = 0;
  let vat = 0;
  for (const item of body.items) {
    const line = item.amount * item.quantity * (1 - (item.discount ?? 0) / 100) * off;
    ht += line;
    vat += (line * (item.taxes ?? []).reduce((sum: number, tax: string) => sum + (VAT_RATES[tax] ?? 0), 0)) / 100;
  }
  return { amount: Math.round(ht + vat), vatAmount: Math.round(vat) };
}

export async function startFakeFne(t: Test): Promise<FakeFne> {
  const invoices: FneInvoice[] = [];
  const creditNotes: FneCreditNote[] = [];
  const faults: Record<FneRoute, FneFault[]> = { sign: [], refund: [] };
  const counts: Record<FneRoute, number> = { sign: 0, refund: 0 };
  const hung: ServerResponse[] = [];
  let url = '';

  // Every answer closes its connection: a kept-alive socket that `setDown` closes could otherwise be reused by
  // the client before it notices, and a refused connection would read as a connection lost mid-request.
  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', connection: 'close' });
    res.end(JSON.stringify(body));
  };
  const error = (res: ServerResponse, status: number, message?: string) =>
    json(res, status, { message: message ?? MESSAGES[status] ?? `HTTP ${status}`, error: ERRORS[status] ?? 'error', statusCode: status });

  const year = () => String(new Date().getUTCFullYear() % 100).padStart(2, '0');
  const stickersLeft = () => STICKERS - invoices.length - creditNotes.length;
  const verification = () => {
    const token = randomUUID();
    return { token, url: `${url}/fr/verification/${token}` };
  };

  const routeOf = (req: IncomingMessage): { route: FneRoute; id?: string } | null => {
    if (req.method !== 'POST') return null;
    const path = (req.url ?? '').split('?')[0]!.replace(/\/+$/, '');
    if (path === '/ws/external/invoices/sign') return { route: 'sign' };
    const refund = /^\/ws\/external\/invoices\/([^/]+)\/refund$/.exec(path);
    return refund ? { route: 'refund', id: decodeURIComponent(refund[1]!) } : null;
  };

  const handle = (req: IncomingMessage, res: ServerResponse, raw: string) => {
    const found = routeOf(req);
    if (!found) return error(res, 404, `Cannot ${req.method} ${req.url}`);
    const { route, id } = found;
    counts[route]++;
    const fault = faults[route].shift();
    if (fault === 'reset') return void req.socket.destroy();
    if (fault === 'hang') return void hung.push(res);
    if (typeof fault === 'number') return error(res, fault);
    const answer = (status: number, body: unknown) => {
      if (fault === 'keep-and-hang') return void hung.push(res);
      if (fault === 'keep-and-garble') {
        res.writeHead(200, { 'content-type': 'text/html', connection: 'close' });
        return void res.end('<html><body>Bienvenue</body></html>');
      }
      json(res, status, body);
    };

    if (req.headers.authorization !== `Bearer ${FNE_API_KEY}`) return error(res, 401, 'Invalid API Key');
    let body: any;
    try {
      body = JSON.parse(raw);
    } catch {
      return error(res, 400, 'Request body is required');
    }
    if (!body || typeof body !== 'object' || Array.isArray(body)) return error(res, 400, 'Request body is required');

    if (route === 'sign') {
      const refusal = refusalOf(body);
      if (refusal) return error(res, 400, refusal);
      const { token, url: tokenUrl } = verification();
      const id = randomUUID();
      const date = new Date().toISOString();
      const items: FneInvoiceItem[] = body.items.map((item: any) => ({
        id: randomUUID(),
        quantity: item.quantity,
        reference: item.reference ?? null,
        description: item.description,
        amount: item.amount,
        discount: item.discount ?? 0,
        taxes: item.taxes ?? [],
      }));
      const sequence = invoices.length + 1;
      const invoice: FneInvoice = { id, reference: `${FNE_NCC}${year()}${String(sequence).padStart(9, '0')}`, token: tokenUrl, date, body, items, ...totalsOf(body) };
      invoices.push(invoice);
      return answer(200, {
        ncc: FNE_NCC,
        reference: invoice.reference,
        token: tokenUrl,
        warning: false,
        balance_sticker: stickersLeft(),
        invoice: {
          id, parentId: null, parentReference: null, token, reference: invoice.reference, type: 'invoice', subtype: 'normal', date,
          paymentMethod: body.paymentMethod, amount: invoice.amount, vatAmount: invoice.vatAmount, fiscalStamp: 0, discount: body.discount ?? 0,
          clientNcc: body.clientNcc ?? '', clientCompanyName: body.clientCompanyName, clientPhone: String(body.clientPhone), clientEmail: body.clientEmail,
          clientSellerName: body.clientSellerName ?? null, clientEstablishment: body.establishment, clientPointOfSale: body.pointOfSale,
          status: 'paid', template: body.template, commercialMessage: body.commercialMessage ?? null, footer: body.footer ?? null,
          foreignCurrency: body.foreignCurrency ?? '', foreignCurrencyRate: body.foreignCurrencyRate ?? 0, isRne: body.isRne, rne: body.rne ?? null,
          source: 'api', createdAt: date, updatedAt: date,
          items: items.map((item) => ({
            id: item.id, quantity: item.quantity, reference: item.reference, description: item.description, amount: item.amount,
            discount: item.discount, measurementUnit: null, createdAt: date, updatedAt: date, invoiceId: id, parentId: null,
            taxes: item.taxes.map((tax) => ({ invoiceItemId: item.id, amount: VAT_RATES[tax], shortName: tax })), customTaxes: [],
          })),
          customTaxes: [],
        },
      });
    }

    const invoice = invoices.find((kept) => kept.id === id);
    if (!invoice) return error(res, 404, 'Invoice not found');
    if (!Array.isArray(body.items) || body.items.length === 0) return error(res, 400, 'Items are required');
    const asked = new Map<string, number>();
    for (const item of body.items) {
      const original = invoice.items.find((kept) => kept.id === item?.id);
      if (!original) return error(res, 400, `Item ${String(item?.id)} is not an item of this invoice`);
      if (!(typeof item.quantity === 'number' && item.quantity > 0)) return error(res, 400, 'Quantity is not valid');
      asked.set(original.id, (asked.get(original.id) ?? 0) + item.quantity);
    }
    for (const [itemId, quantity] of asked) {
      const refunded = creditNotes.filter((note) => note.invoiceId === id).flatMap((note) => note.items).filter((item) => item.id === itemId).reduce((sum, item) => sum + item.quantity, 0);
      const original = invoice.items.find((kept) => kept.id === itemId)!;
      if (refunded + quantity > original.quantity + 1e-9) return error(res, 400, `The quantity to refund exceeds the quantity left on item ${itemId}`);
    }
    const { url: tokenUrl } = verification();
    const note: FneCreditNote = {
      reference: `A${FNE_NCC}${year()}${String(creditNotes.length + 1).padStart(8, '0')}`,
      token: tokenUrl,
      invoiceId: id!,
      items: body.items.map((item: any) => ({ id: item.id, quantity: item.quantity })),
    };
    creditNotes.push(note);
    return answer(201, { ncc: FNE_NCC, reference: note.reference, token: tokenUrl, warning: false, balance_sticker: stickersLeft() });
  };

  const server = await startSwitchableServer(t, handle, hung);
  url = server.url;

  return {
    url,
    env: { FISCAL_PROVIDER: 'fne', FNE_BASE_URL: `${url}/ws` },
    invoices,
    creditNotes,
    calls: (route) => counts[route],
    failNext(route, fault, times = 1) {
      for (let i = 0; i < times; i++) faults[route].push(fault);
    },
    setDown: server.setDown,
    close: server.stop,
  };
}
