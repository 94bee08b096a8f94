import type { Config } from '../../config.ts';
import { authorityCall, type Failure, guardedDelivery, paymentIn, readJsonObject, taxGroupIn } from './http.ts';
import type { CertificationLine, CertificationRequest, Certified, DeliveryOutcome, DeliveryState, FiscalProvider, Journal } from './types.ts';

type EmecefConfig = Pick<Config, 'EMECEF_BASE_URL' | 'FISCAL_TIMEOUT_MS'>;

/**
 * Benin's e-MECeF (the DGI's e-MCF, "Module de contrôle dématérialisé"), as the DGI documents it:
 * "Spécification de l'API pour l'e-MCF" v1.0 of 15/01/2021 (a copy: docs/e-MECeF_API_v1.0.pdf of
 * github.com/codianselme/lara-sygmef), read with that repository's open-source client
 * (src/Services/EmecfService.php) where the document is unsure of itself: the finalisation is a
 * `PUT` (the document's table says POST, its example PUT) and its actions are `confirm` and `cancel`
 * (the table says "confirmer"/"annuler", the example `confirm`).
 * - Every call carries `Authorization: Bearer <the e-MCF's token>`; a wrong token is HTTP 401.
 * - `GET {base}/invoice`: StatusResponseDto, with the requests left pending (`pendingRequestsList`).
 * - `POST {base}/invoice` (InvoiceRequestDataDto): the totals e-MCF computed and the request's `uid`,
 *   or `errorCode`/`errorDesc` (the annex's list) and no uid. A request is only pending: e-MCF keeps it
 *   2 minutes at most, 10 at most at once, and certifies nothing until it is confirmed.
 * - `PUT {base}/invoice/{uid}/confirm`: SecurityElementsDto (`dateTime` "dd/mm/yyyy hh:mm:ss" in Benin's
 *   time, `qrCode`, `codeMECeFDGI`, `counters`, `nim`); error 20 when the uid is not pending (expired,
 *   cancelled, or confirmed already). `PUT .../cancel` drops a pending request.
 * e-MCF has no call that gives a confirmed invoice's elements again: a confirm whose answer is lost
 * cannot be read back. So the delivery journals each stage before the call it prepares, and keeps
 * the elements in the journal as soon as it has them. The token travels in a header only and never
 * reaches a `detail`.
 */

/** Our VAT rates (as text, "18" or "18.00") as e-MCF's tax groups: A exonéré, B taxable 18 %. Other rates have none. */
export const EMECEF_TAX_GROUPS: Readonly<Record<string, string>> = { '0': 'A', '18': 'B' };

/** Our payment methods as e-MCF's payment types; any other method is AUTRE. */
export const EMECEF_PAYMENT_TYPES: Readonly<Record<string, string>> = {
  cash: 'ESPECES',
  carrier1_momo: 'MOBILEMONEY',
  carrier2_money: 'MOBILEMONEY',
  card: 'CARTEBANCAIRE',
  bank: 'VIREMENT',
  credit: 'CREDIT',
};
export const EMECEF_OTHER_PAYMENT_TYPE = 'AUTRE';

/** e-MCF's errors (the document's annex) that say "not now" rather than "never": the record is sent again later. */
const EMECEF_RETRYABLE_ERRORS = new Set(['10', '99']);
const EMECEF_TOO_MANY_PENDING = '1';
const EMECEF_NOT_PENDING = '20';
/** The document gives no length for an item's name; a discounted line's composed name is kept to this. */
const ITEM_NAME_MAX = 120;
const TOKEN_REFUSED = 'e-MECeF refused the token (401)';

interface ItemDto {
  code?: string;
  name: string;
  price: number;
  quantity: number;
  taxGroup: string;
  originalPrice?: number;
  priceModification?: string;
}

export interface InvoiceRequestDataDto {
  ifu: string;
  type: 'FV' | 'FA';
  items: ItemDto[];
  client?: { ifu?: string; name?: string; contact?: string; address?: string };
  operator: { id: string; name: string };
  payment?: { name: string; amount: number }[];
  reference?: string;
}

/** What e-MCF gave for a confirmed request, as journalled until the outbox has stored the outcome. */
interface SecurityElements {
  dateTime: string;
  qrCode: string;
  codeMECeFDGI: string;
  counters: string;
  nim: string;
}

/** "2", "1.250": the quantity in thousandths, exactly; null for text of another shape. */
function thousandths(quantity: string): bigint | null {
  const match = /^(\d+)(?:\.(\d{1,3}))?$/.exec(quantity.trim());
  return match ? BigInt(match[1]!) * 1000n + BigInt((match[2] ?? '').padEnd(3, '0')) : null;
}

const shownQuantity = (quantity: string) => (quantity.includes('.') ? quantity.trim().replace(/0+$/, '').replace(/\.$/, '') : quantity.trim());

/**
 * One of our lines as an e-MCF item. e-MCF computes a line as price x quantity, so a line that is not
 * exactly that (a discount, or a fractional quantity whose amount was rounded) goes as one unit at its
 * total, its gross amount in `originalPrice` when a discount made the difference: e-MCF's totals are ours.
 */
export function emecefItem(line: CertificationLine): ItemDto {
  const code = line.code ? { code: line.code } : {};
  const milli = Number.isSafeInteger(line.unitPriceXaf) && Number.isSafeInteger(line.totalXaf) ? thousandths(line.quantity) : null;
  if (milli !== null && milli * BigInt(line.unitPriceXaf) === BigInt(line.totalXaf) * 1000n) {
    return { ...code, name: line.name, price: line.unitPriceXaf, quantity: Number(line.quantity), taxGroup: line.taxGroup };
  }
  const gross = milli !== null ? Number((milli * BigInt(line.unitPriceXaf) + 500n) / 1000n) : Math.round(Number(line.quantity) * line.unitPriceXaf);
  const suffix = ` (${shownQuantity(line.quantity)} x ${line.unitPriceXaf})`;
  const room = Math.max(1, ITEM_NAME_MAX - suffix.length);
  const name = line.name.length > room ? `${line.name.slice(0, room - 1).trimEnd()}…` : line.name;
  return {
    ...code,
    name: `${name}${suffix}`,
    price: line.totalXaf,
    quantity: 1,
    taxGroup: line.taxGroup,
    ...(Number.isFinite(gross) && gross !== line.totalXaf ? { originalPrice: gross, priceModification: 'Remise' } : {}),
  };
}

/** The credit note's reference: the 24 characters of its sale's code MECeF/DGI. */
const originalReference = (request: CertificationRequest): string | null =>
  request.original?.providerRef ?? request.original?.authorityNo?.replace(/-/g, '') ?? null;

export function emecefInvoice(request: CertificationRequest): InvoiceRequestDataDto {
  const customer = request.customer;
  const contact = customer?.phone ?? customer?.email ?? null;
  const reference = request.kind === 'credit_note' ? originalReference(request) : null;
  return {
    ifu: request.credentials.taxpayerNo,
    type: request.kind === 'credit_note' ? 'FA' : 'FV',
    items: request.lines.map(emecefItem),
    ...(customer
      ? {
          client: {
            ...(customer.taxpayerNo ? { ifu: customer.taxpayerNo } : {}),
            ...(customer.name ? { name: customer.name } : {}),
            ...(contact ? { contact } : {}),
            ...(customer.address ? { address: customer.address } : {}),
          },
        }
      : {}),
    operator: { id: request.operator.id, name: request.operator.name },
    // Without `payment` e-MCF takes the whole as ESPECES: a record with no payment says nothing rather than that.
    ...(request.payments.length ? { payment: request.payments.map((payment) => ({ name: payment.type, amount: Math.round(payment.amountXaf) })) } : {}),
    ...(reference ? { reference } : {}),
  };
}

/** e-MCF's "dd/mm/yyyy hh:mm:ss", Benin's time (UTC+1, no summer time), as ISO; null for another shape. */
export function emecefTime(dateTime: string): string | null {
  const match = /^(\d{2})\/(\d{2})\/(\d{4}) (\d{2}):(\d{2}):(\d{2})$/.exec(dateTime.trim());
  if (!match) return null;
  const [, day, month, year, hours, minutes, seconds] = match;
  const time = new Date(`${year}-${month}-${day}T${hours}:${minutes}:${seconds}+01:00`);
  return Number.isNaN(time.getTime()) ? null : time.toISOString();
}

const readElements = (body: Record<string, unknown> | null): SecurityElements | null => {
  if (typeof body?.codeMECeFDGI !== 'string' || !body.codeMECeFDGI.trim()) return null;
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  return { dateTime: text(body.dateTime), qrCode: text(body.qrCode), codeMECeFDGI: body.codeMECeFDGI.trim(), counters: text(body.counters), nim: text(body.nim) };
};

const certified = (elements: SecurityElements): Certified => ({
  outcome: 'certified',
  authorityNo: elements.codeMECeFDGI,
  signature: [elements.nim, elements.counters, elements.dateTime].filter(Boolean).join(' '),
  qr: elements.qrCode,
  // The elements are what counts: a time of another shape does not undo a certification.
  certifiedAt: emecefTime(elements.dateTime) ?? new Date().toISOString(),
  providerRef: elements.codeMECeFDGI.replace(/-/g, ''),
  lineRefs: null,
});

const errorOf = (body: Record<string, unknown> | null): { code: string; text: string } | null => {
  const code = body?.errorCode;
  if (code === undefined || code === null || code === '' || code === 0) return null;
  const text = typeof body?.errorDesc === 'string' && body.errorDesc.trim() ? body.errorDesc.trim().slice(0, 300) : `e-MECeF error ${String(code)}`;
  return { code: String(code).trim(), text };
};

export function emecef(config: EmecefConfig): FiscalProvider {
  const base = `${config.EMECEF_BASE_URL.replace(/\/+$/, '')}/invoice`;

  const call = (token: string, signal: AbortSignal | undefined, method: string, path: string, body?: unknown) =>
    authorityCall(`${base}${path}`, { method, token, body, timeoutMs: config.FISCAL_TIMEOUT_MS, signal });

  const describe = (what: string, answer: Response | Failure) => `e-MECeF ${what}: ${'failure' in answer ? answer.detail : `HTTP ${answer.status}`}`;

  async function delivery(request: CertificationRequest, state: DeliveryState, journal: Journal, signal?: AbortSignal): Promise<DeliveryOutcome> {
    const token = request.credentials.apiToken;
    const now = () => new Date().toISOString();
    const note = async (next: DeliveryState): Promise<boolean> => {
      try {
        await journal.note(next);
        return true;
      } catch {
        return false;
      }
    };
    const journalFailed = (before: string): DeliveryOutcome => ({ outcome: 'not_sent', detail: `the delivery could not be journalled before ${before}: nothing sent` });

    /**
     * Cancels what e-MCF holds pending. The e-MCF is the shop's own: a request pending there is one of
     * ours whose POST answer was lost (or whose delivery is gone), and cancelling a request never
     * certifies anything. Null when done; otherwise why the delivery stops (nothing posted).
     */
    const clearPending = async (): Promise<Extract<DeliveryOutcome, { outcome: 'not_sent' }> | null> => {
      const answer = await call(token, signal, 'GET', '');
      if ('failure' in answer) return { outcome: 'not_sent', detail: describe('status', answer) };
      if (answer.status === 401) return { outcome: 'not_sent', detail: TOKEN_REFUSED };
      if (answer.status !== 200) return { outcome: 'not_sent', detail: describe('status', answer) };
      const status = await readJsonObject(answer);
      if (!status) return { outcome: 'not_sent', detail: 'e-MECeF status: an answer of another shape' };
      if (status.status === false) return { outcome: 'not_sent', detail: 'e-MECeF status: the API says it is not operational' };
      const pending = Array.isArray(status.pendingRequestsList) ? status.pendingRequestsList : [];
      for (const entry of pending) {
        const uid = (entry as { uid?: unknown } | null)?.uid;
        if (typeof uid !== 'string' || !uid) continue;
        const cancelled = await call(token, signal, 'PUT', `/${encodeURIComponent(uid)}/cancel`);
        if ('failure' in cancelled) return { outcome: 'not_sent', detail: describe('cancel of a pending request', cancelled) };
        if (cancelled.status === 401) return { outcome: 'not_sent', detail: TOKEN_REFUSED };
        if (cancelled.status !== 200) return { outcome: 'not_sent', detail: describe('cancel of a pending request', cancelled) };
        const error = errorOf(await readJsonObject(cancelled));
        // 20: it expired meanwhile, which is as good.
        if (error && error.code !== EMECEF_NOT_PENDING) return { outcome: 'not_sent', detail: `e-MECeF cancel of a pending request: error ${error.code}: ${error.text}` };
      }
      return null;
    };

    /**
     * Confirms a pending request. `first`: this record's delivery never sent a confirm for it before
     * (the journal said `submitted`), so e-MCF's "not pending" (20) means it expired or was cancelled,
     * never that it was certified.
     */
    const confirm = async (uid: string, first: boolean): Promise<DeliveryOutcome> => {
      if (first && !(await note({ stage: 'confirming', uid, at: now() }))) return journalFailed('the confirm');
      const answer = await call(token, signal, 'PUT', `/${encodeURIComponent(uid)}/confirm`);
      const back = async (detail: string): Promise<DeliveryOutcome> => {
        // This confirm certainly did not reach e-MCF and none was sent before: the request is as it was.
        await note({ stage: 'submitted', uid, at: now() });
        return { outcome: 'not_sent', detail };
      };
      const lost = (detail: string): DeliveryOutcome => ({
        outcome: 'unknown',
        detail: `${detail}; the request ${uid} may be certified: it is confirmed again at the next delivery`,
      });
      if ('failure' in answer) return first && answer.failure === 'refused' ? back(describe('confirm', answer)) : lost(describe('confirm', answer));
      if (answer.status === 401) return first ? back(TOKEN_REFUSED) : lost(TOKEN_REFUSED);
      if (answer.status !== 200) return lost(describe('confirm', answer));
      const body = await readJsonObject(answer);
      const elements = readElements(body);
      if (elements) {
        // Kept before it is answered: if the outbox fails to store the outcome, the next delivery answers it from here.
        await note({ stage: 'certified', uid, elements, at: now() });
        return certified(elements);
      }
      const error = errorOf(body);
      if (error?.code === EMECEF_NOT_PENDING) {
        if (first) {
          await note({});
          return { outcome: 'not_sent', detail: `e-MECeF: the request ${uid} expired before it was confirmed (error 20): it is sent afresh` };
        }
        return {
          outcome: 'unknown',
          detail:
            `e-MECeF no longer holds the request ${uid} (error 20) after a confirm whose answer was lost: that confirm most likely ` +
            'certified it, and e-MECeF has no call that gives its code MECeF/DGI again; the owner must settle it from the e-MCF\'s own records',
        };
      }
      if (error) return lost(`e-MECeF confirm: error ${error.code}: ${error.text}`);
      return lost('e-MECeF confirm: an answer of another shape');
    };

    /**
     * A record never sent, or whose POST answer was lost. Every ending before the confirm is `not_sent`:
     * a POST that reached e-MCF made at most a pending request, which e-MCF never certifies without our
     * confirm, drops after 2 minutes, and which the next delivery's status check cancels.
     */
    const submit = async (): Promise<DeliveryOutcome> => {
      if (request.kind === 'credit_note' && !originalReference(request)) {
        return { outcome: 'rejected', reason: 'original_not_certified', detail: 'a credit note needs its sale\'s code MECeF/DGI: the sale is not certified' };
      }
      const cleared = await clearPending();
      if (cleared) return cleared;
      if (!(await note({ stage: 'submitting', at: now() }))) return journalFailed('the invoice request');
      const answer = await call(token, signal, 'POST', '', emecefInvoice(request));
      if ('failure' in answer) return { outcome: 'not_sent', detail: describe('invoice request', answer) };
      if (answer.status === 401) return { outcome: 'not_sent', detail: TOKEN_REFUSED };
      // The document's only 400: a POST without a body. Ours always has one; e-MCF read it as not a request at all.
      if (answer.status === 400) return { outcome: 'rejected', reason: 'emecef_http_400', detail: describe('invoice request', answer) };
      if (answer.status !== 200) return { outcome: 'not_sent', detail: describe('invoice request', answer) };
      const body = await readJsonObject(answer);
      const uid = typeof body?.uid === 'string' && body.uid ? body.uid : null;
      const error = errorOf(body);
      if (error) {
        if (uid) await call(token, signal, 'PUT', `/${encodeURIComponent(uid)}/cancel`);
        if (error.code === EMECEF_TOO_MANY_PENDING) {
          const cleared = await clearPending();
          return { outcome: 'not_sent', detail: `e-MECeF error 1: ${error.text}; ${cleared ? `the pending requests could not be cancelled (${cleared.detail})` : 'the pending requests were cancelled'}` };
        }
        if (EMECEF_RETRYABLE_ERRORS.has(error.code)) return { outcome: 'not_sent', detail: `e-MECeF error ${error.code}: ${error.text}` };
        return { outcome: 'rejected', reason: `emecef_${error.code}`, detail: error.text };
      }
      if (!uid || typeof body?.total !== 'number') return { outcome: 'not_sent', detail: 'e-MECeF invoice request: an answer of another shape' };
      // The document asks the SFE to check e-MCF's totals against its own before confirming; checked before
      // `submitted` is journalled, so that a later delivery never confirms a request whose totals are wrong.
      if (body.total !== request.totalXaf) {
        await call(token, signal, 'PUT', `/${encodeURIComponent(uid)}/cancel`);
        return { outcome: 'rejected', reason: 'totals_mismatch', detail: `e-MECeF computed a total of ${body.total} XAF where the record says ${request.totalXaf} XAF: the request was cancelled` };
      }
      if (!(await note({ stage: 'submitted', uid, at: now() }))) return journalFailed('the confirm');
      return confirm(uid, true);
    };

    const uid = typeof state.uid === 'string' && state.uid ? state.uid : null;
    switch (state.stage) {
      case 'certified': {
        const elements = readElements((state.elements ?? null) as Record<string, unknown> | null);
        return elements ? certified(elements) : { outcome: 'unknown', detail: 'the journal says certified but keeps no security elements' };
      }
      case 'confirming':
        return uid ? confirm(uid, false) : { outcome: 'unknown', detail: 'the journal says a confirm was sent but names no request' };
      case 'submitted':
        return uid ? confirm(uid, true) : submit();
      default:
        return submit();
    }
  }

  return {
    name: 'emecef',
    taxGroupFor: (vatRate) => taxGroupIn(EMECEF_TAX_GROUPS, vatRate),
    paymentTypeFor: (method) => paymentIn(EMECEF_PAYMENT_TYPES, EMECEF_OTHER_PAYMENT_TYPE, method),
    deliver: (request, state, journal, signal) => guardedDelivery('e-MECeF', request, '[token]', () => delivery(request, state, journal, signal)),
  };
}
