import type { Config } from '../../config.ts';
import { authorityCall, guardedDelivery, paymentIn, readJsonObject, taxGroupIn } from './http.ts';
import type { CertificationLine, CertificationRequest, Certified, DeliveryOutcome, DeliveryState, FiscalProvider, Journal } from './types.ts';

type FneConfig = Pick<Config, 'FNE_BASE_URL' | 'FISCAL_TIMEOUT_MS'>;

/**
 * Cote d'Ivoire's FNE ("facture normalisée électronique"), as the DGI documents it: "Procédure
 * d'interfaçage des entreprises par API", May 2025 (a copy: FNE-procedure-api.pdf of
 * github.com/PRODESTIC/fne-sdk-php), read with that repository's open-source client
 * (src/Services/InvoiceService.php, RefundService.php, Utils/Constants.php, Http/HttpClient.php):
 * - Every call is a JSON POST with `Authorization: Bearer <the API key of the shop's FNE space>`; a
 *   refused key is HTTP 401, a POST without a body 400.
 * - `POST {base}/external/invoices/sign` (API #1): 200 `{ncc, reference, token, warning, balance_sticker,
 *   invoice: {id, date, items: [{id, ...}], ...}}`; `reference` is the invoice number, `token` the
 *   verification URL printed as the QR code. An item's `amount` is its unit price excluding VAT and its
 *   `discount` a percentage; `taxes` names its VAT (annex 1: TVA 18 %, TVAB 9 %, TVAC 0 % conventional
 *   exemption, TVAD 0 % legal exemption).
 * - `POST {base}/external/invoices/{invoice id}/refund` (API #2) with `{items: [{id, quantity}]}`, the ids
 *   being the original invoice's item ids from its sign answer: 201 `{ncc, reference, token, warning,
 *   balance_sticker}`.
 * - Errors `{message, error, statusCode}`: 400 "erreur dans la requête", 401 "erreur d'authentification",
 *   500 "endpoint non disponible" (annex 2).
 * FNE documents no idempotency key and no way to look an invoice up: a request whose answer is lost
 * cannot be read back, and sending it again could certify it twice. So the delivery journals
 * `{stage: 'sending'}` before each request, never sends a record whose journal says so (it stays
 * `unknown` until the owner settles it, which resets the journal), and journals `{}` again whenever
 * FNE certainly certified nothing. The API key travels in a header only and never reaches a `detail`.
 */

/**
 * Our VAT rates (as text, "18" or "18.00") as FNE's `taxes`. 0 % is TVAD, the legal exemption (exempt
 * goods and services by law, TEE and RME): TVAC, the conventional exemption, applies only under an
 * agreement with the State, which a shop's 0 % rate does not say; such a shop needs its own mapping.
 * Other rates have none.
 */
export const FNE_TAX_GROUPS: Readonly<Record<string, string>> = { '18': 'TVA', '9': 'TVAB', '0': 'TVAD' };

/** Our payment methods as FNE's `paymentMethod` (annex 1); any other method is cash. */
export const FNE_PAYMENT_METHODS: Readonly<Record<string, string>> = {
  cash: 'cash',
  carrier1_momo: 'mobile-money',
  carrier2_money: 'mobile-money',
  card: 'card',
  bank: 'transfer',
  credit: 'deferred',
};
export const FNE_OTHER_PAYMENT_METHOD = 'cash';

/** What a walk-in customer is called on the invoice: FNE requires `clientCompanyName`. */
export const FNE_WALK_IN_CUSTOMER = 'Client comptoir';
/** The point of sale of a shop that did not name one: FNE requires `pointOfSale` (its example: "23"). */
const DEFAULT_POINT_OF_SALE = '1';
const KEY_REFUSED = 'FNE refused the API key (401): nothing was certified; check the API key of the shop\'s FNE space';
const SENT_AND_LOST = 'a request was sent and its answer lost; FNE offers no look-up: settle it by hand';
const DETAIL_MAX = 300;

export interface FneItem {
  taxes: string[];
  reference: string;
  description: string;
  quantity: number;
  amount: number;
  discount: number;
}

export interface FneSaleRequest {
  invoiceType: 'sale';
  paymentMethod: string;
  template: 'B2C' | 'B2B';
  isRne: false;
  clientNcc?: string;
  clientCompanyName: string;
  clientPhone: string;
  clientEmail: string;
  clientSellerName: string;
  pointOfSale: string;
  establishment: string;
  foreignCurrency: '';
  foreignCurrencyRate: 0;
  items: FneItem[];
  discount: number;
}

export interface FneRefundRequest {
  items: { id: string; quantity: number }[];
}

/** The quantity as a number, or null when it is not a positive one (FNE would refuse it, or worse, read it). */
const quantityOf = (line: CertificationLine): number | null => {
  const quantity = Number(line.quantity);
  return Number.isFinite(quantity) && quantity > 0 ? quantity : null;
};

/**
 * One of our lines as an FNE item. FNE computes a line from its unit price excluding VAT times the
 * quantity, so the unit price sent is the line's after its discounts, excluding its VAT, to the cent:
 * FNE then finds the line's total within a franc or so of ours, and no discount is sent.
 */
export function fneItem(line: CertificationLine): FneItem {
  const quantity = quantityOf(line) ?? Number(line.quantity);
  return {
    taxes: [line.taxGroup],
    reference: line.code ?? String(line.lineNo),
    description: line.name,
    quantity,
    amount: Math.round(((line.totalXaf - line.vatXaf) / quantity) * 100) / 100,
    discount: 0,
  };
}

/** FNE takes one payment method per invoice: the one that paid most (summed by FNE method; the first on a tie), cash when none did. */
export function fnePaymentMethod(request: CertificationRequest): string {
  const byType = new Map<string, number>();
  for (const payment of request.payments) byType.set(payment.type, (byType.get(payment.type) ?? 0) + payment.amountXaf);
  let chosen: string | null = null;
  for (const [type, amount] of byType) if (chosen === null || amount > byType.get(chosen)!) chosen = type;
  return chosen ?? FNE_OTHER_PAYMENT_METHOD;
}

export function fneSale(request: CertificationRequest): FneSaleRequest {
  const customer = request.customer;
  const ncc = customer?.taxpayerNo?.trim() || null;
  return {
    invoiceType: 'sale',
    paymentMethod: fnePaymentMethod(request),
    template: ncc ? 'B2B' : 'B2C',
    isRne: false,
    ...(ncc ? { clientNcc: ncc } : {}),
    clientCompanyName: customer?.name?.trim() || FNE_WALK_IN_CUSTOMER,
    clientPhone: customer?.phone ?? '',
    clientEmail: customer?.email ?? '',
    clientSellerName: request.operator.name,
    pointOfSale: request.credentials.pointOfSale?.trim() || DEFAULT_POINT_OF_SALE,
    establishment: request.credentials.establishment?.trim() || request.shopName,
    foreignCurrency: '',
    foreignCurrencyRate: 0,
    items: request.lines.map(fneItem),
    discount: 0,
  };
}

/** The refund of a credit note's lines, by the original invoice's FNE item ids; or why there is none. */
export function fneRefund(request: CertificationRequest): { invoiceId: string; body: FneRefundRequest } | { refused: string } {
  const invoiceId = request.original?.providerRef;
  const lineRefs = request.original?.lineRefs;
  if (!invoiceId || !lineRefs) return { refused: "FNE needs the original invoice's id and line ids, which its certification did not keep" };
  const items: FneRefundRequest['items'] = [];
  for (const line of request.lines) {
    const id = Object.hasOwn(lineRefs, String(line.lineNo)) ? lineRefs[String(line.lineNo)] : undefined;
    if (!id) return { refused: `FNE needs the original invoice's line ids: line ${line.lineNo} of the sale has none` };
    items.push({ id, quantity: quantityOf(line) ?? Number(line.quantity) });
  }
  return { invoiceId, body: { items } };
}

/** The verification id: the token URL's last path segment (the token itself when it is no URL). */
const verificationId = (token: string): string => token.split(/[?#]/)[0]!.split('/').filter(Boolean).at(-1) ?? token;

const isoOr = (value: unknown, fallback: string): string => {
  if (typeof value !== 'string') return fallback;
  const time = Date.parse(value);
  return Number.isNaN(time) ? fallback : new Date(time).toISOString();
};

/** A certified answer read, or null when it lacks the elements that make it one (`reference`, `token`). */
function readCertified(body: Record<string, unknown> | null, request: CertificationRequest): Certified | null {
  const reference = typeof body?.reference === 'string' ? body.reference.trim() : '';
  const token = typeof body?.token === 'string' ? body.token.trim() : '';
  if (!reference || !token) return null;
  const invoice = (body!.invoice && typeof body!.invoice === 'object' ? body!.invoice : null) as Record<string, unknown> | null;
  let providerRef: string | null = null;
  let lineRefs: Record<string, string> | null = null;
  if (request.kind === 'sale') {
    providerRef = typeof invoice?.id === 'string' && invoice.id ? invoice.id : null;
    // FNE gives its items in the order sent; a count that differs means they cannot be matched, and a
    // credit note of this sale will be refused rather than refund the wrong lines.
    const items = Array.isArray(invoice?.items) ? (invoice.items as unknown[]) : null;
    const ids = items?.map((item) => (item as { id?: unknown } | null)?.id);
    if (ids && ids.length === request.lines.length && ids.every((id): id is string => typeof id === 'string' && id !== '')) {
      lineRefs = Object.fromEntries(request.lines.map((line, index) => [String(line.lineNo), ids[index]!]));
    }
  }
  return {
    outcome: 'certified',
    authorityNo: reference,
    signature: verificationId(token),
    qr: token,
    certifiedAt: isoOr(invoice?.date, new Date().toISOString()),
    providerRef,
    lineRefs,
  };
}

/** A journalled certification, read back; null when the journal keeps none of that shape. */
function journalled(state: DeliveryState): Certified | null {
  const kept = state.certified as Partial<Certified> | undefined;
  if (!kept || typeof kept !== 'object' || typeof kept.authorityNo !== 'string' || !kept.authorityNo || typeof kept.qr !== 'string') return null;
  return {
    outcome: 'certified',
    authorityNo: kept.authorityNo,
    signature: typeof kept.signature === 'string' ? kept.signature : '',
    qr: kept.qr,
    certifiedAt: typeof kept.certifiedAt === 'string' ? kept.certifiedAt : new Date().toISOString(),
    providerRef: typeof kept.providerRef === 'string' ? kept.providerRef : null,
    lineRefs: kept.lineRefs && typeof kept.lineRefs === 'object' ? (kept.lineRefs as Record<string, string>) : null,
  };
}

/** FNE's error text: `message` (a text, or a list of them), with `errors` when it gives details. */
const fneMessage = (body: Record<string, unknown> | null): string | null => {
  const texts = (value: unknown): string[] =>
    typeof value === 'string' ? [value.trim()] : Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string').map((v) => v.trim()) : [];
  const parts = [...texts(body?.message), ...texts(body?.errors)].filter(Boolean);
  return parts.length ? parts.join('; ').slice(0, DETAIL_MAX) : null;
};

export function fne(config: FneConfig): FiscalProvider {
  const base = config.FNE_BASE_URL.replace(/\/+$/, '');

  const call = (apiKey: string, signal: AbortSignal | undefined, path: string, body: unknown) =>
    authorityCall(`${base}${path}`, { method: 'POST', token: apiKey, body, timeoutMs: config.FISCAL_TIMEOUT_MS, signal });

  async function delivery(request: CertificationRequest, state: DeliveryState, journal: Journal, signal?: AbortSignal): Promise<DeliveryOutcome> {
    const now = () => new Date().toISOString();
    const note = async (next: DeliveryState): Promise<boolean> => {
      try {
        await journal.note(next);
        return true;
      } catch {
        return false;
      }
    };

    if (state.stage === 'sending') return { outcome: 'unknown', detail: SENT_AND_LOST };
    if (state.stage === 'certified') return journalled(state) ?? { outcome: 'unknown', detail: 'the journal says certified but keeps no elements of it' };
    if (state.stage !== undefined) return { outcome: 'unknown', detail: `the journal says "${String(state.stage).slice(0, 40)}", which this connector does not know: settle it by hand` };

    let what: string;
    let path: string;
    let body: FneSaleRequest | FneRefundRequest;
    if (request.kind === 'credit_note') {
      const refund = fneRefund(request);
      if ('refused' in refund) return { outcome: 'rejected', reason: 'original_not_refundable', detail: refund.refused };
      what = 'refund';
      path = `/external/invoices/${encodeURIComponent(refund.invoiceId)}/refund`;
      body = refund.body;
    } else {
      what = 'sign';
      path = '/external/invoices/sign';
      body = fneSale(request);
    }
    const odd = request.lines.find((line) => quantityOf(line) === null);
    if (odd) return { outcome: 'rejected', reason: 'invalid_quantity', detail: `line ${odd.lineNo} has a quantity FNE cannot take ("${odd.quantity}")` };

    if (!(await note({ stage: 'sending', at: now() }))) return { outcome: 'not_sent', detail: `the delivery could not be journalled before the ${what} request: nothing sent` };
    const answer = await call(request.credentials.apiToken, signal, path, body);

    /** FNE certainly certified nothing: the journal starts over so that the next delivery sends again. */
    const nothing = async (outcome: Exclude<DeliveryOutcome, Certified>): Promise<DeliveryOutcome> => {
      if (await note({})) return outcome;
      return { ...outcome, detail: `${outcome.detail} (the journal could not be reset: the next delivery will ask for the record to be settled by hand)` };
    };
    const lost = (detail: string): DeliveryOutcome => ({ outcome: 'unknown', detail: `FNE ${what}: ${detail}; FNE may have certified it: ${SENT_AND_LOST}` });

    if ('failure' in answer) return answer.failure === 'refused' ? nothing({ outcome: 'not_sent', detail: `FNE ${what}: ${answer.detail}` }) : lost(answer.detail);
    const status = answer.status;
    if (status === 200 || status === 201) {
      const certified = readCertified(await readJsonObject(answer), request);
      if (!certified) return lost(`HTTP ${status} without a reference and a token`);
      // Kept before it is answered: if the outbox fails to store the outcome, the next delivery answers it from here.
      await note({ stage: 'certified', certified: { ...certified }, at: now() });
      return certified;
    }
    switch (status) {
      case 400:
      case 422: {
        const message = fneMessage(await readJsonObject(answer));
        return nothing({ outcome: 'rejected', reason: 'fne_bad_request', detail: message ?? `FNE ${what}: HTTP ${status}` });
      }
      case 401:
      case 403:
        return nothing({ outcome: 'not_sent', detail: status === 401 ? KEY_REFUSED : `FNE ${what}: HTTP 403 (the API key may not do this): nothing was certified` });
      case 404: {
        if (what === 'sign') return nothing({ outcome: 'not_sent', detail: 'FNE sign: HTTP 404: no such endpoint (check FNE_BASE_URL): nothing was certified' });
        const message = fneMessage(await readJsonObject(answer));
        return nothing({ outcome: 'rejected', reason: 'original_not_found', detail: `FNE does not know the original invoice${message ? `: ${message}` : ' (HTTP 404)'}` });
      }
      case 429:
        return nothing({ outcome: 'not_sent', detail: `FNE ${what}: HTTP 429 (too many requests): nothing was certified` });
      case 500:
      case 503:
        // Annex 2: "endpoint non disponible"; the request was not processed.
        return nothing({ outcome: 'not_sent', detail: `FNE ${what}: HTTP ${status} (endpoint not available)` });
      default:
        return lost(`HTTP ${status}`);
    }
  }

  return {
    name: 'fne',
    taxGroupFor: (vatRate) => taxGroupIn(FNE_TAX_GROUPS, vatRate),
    paymentTypeFor: (method) => paymentIn(FNE_PAYMENT_METHODS, FNE_OTHER_PAYMENT_METHOD, method),
    deliver: (request, state, journal, signal) => guardedDelivery('FNE', request, '[api key]', () => delivery(request, state ?? {}, journal, signal)),
  };
}
