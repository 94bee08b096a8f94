import { randomInt, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Test } from 'tap';
import { startSwitchableServer } from './switchable-server.ts';

/**
 * A fake of Benin's e-MCF as the DGI documents it ("Spécification de l'API pour l'e-MCF" v1.0; the
 * finalisation as `PUT .../{uid}/confirm|cancel`, as github.com/codianselme/lara-sygmef's client calls it),
 * under `<url>/api` like the DGI's hosts:
 * - every call needs `Authorization: Bearer <EMECEF_TOKEN>` (401 otherwise); a POST without a JSON body is 400.
 * - `GET /api/invoice`: StatusResponseDto with the pending requests.
 * - `POST /api/invoice`: validated as the annex's errors say (1 more than 10 pending, 3 type, 4/5 a credit
 *   note's reference missing or not 24 characters, 6 AIB, 7 payment type, 8 no items, 9 tax group, 11 the
 *   original not a confirmed invoice, 12 more credited than the original's total, 99 anything else off);
 *   else kept pending with the totals computed per group as the document's example does (an item is
 *   round(price x quantity); HT of B and D = round(total / 1.18)); no AIB is computed.
 * - A pending request expires 2 minutes after it arrived, on the fake's clock (`advance` moves it).
 * - `PUT /api/invoice/{uid}/confirm`: the security elements (a fresh code MECeF/DGI, counters "<of the
 *   type>/<all> <type>"); `.../cancel`: elements without code nor QR; both error 20 for a uid not pending.
 * - `GET /api/invoice/{uid}`: the pending request as sent (InvoiceDetailsDto), error 20 otherwise.
 * - `GET /api/info/status|taxGroups|invoiceTypes|paymentTypes`: the information API's examples.
 * `failNext(route, fault)` makes the next calls of a route misbehave: 'hang' (nothing done, never answered),
 * 'keep-and-hang' (done, never answered: the lost answer), 'reset' (nothing done, the socket destroyed), or
 * an HTTP status (nothing done). `setDown(true)` stops listening (connection refused) until `setDown(false)`.
 */
export const EMECEF_TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJuaW0iOiJUUzAxMDAwMDAxIn0.emecef-token-secret-0001';
export const EMECEF_IFU = '9999900000001';
export const EMECEF_NIM = 'TS01000001';
const EXPIRY_MS = 2 * 60_000;
const BENIN_OFFSET_MS = 60 * 60_000;

export type EmecefRoute = 'status' | 'post' | 'confirm' | 'cancel' | 'details' | 'info';
export type EmecefFault = 'hang' | 'keep-and-hang' | 'reset' | number;

export interface PendingRequest {
  uid: string;
  body: any;
  receivedAt: number;
  total: number;
}

export interface ConfirmedInvoice {
  uid: string;
  body: any;
  type: string;
  total: number;
  dateTime: string;
  qrCode: string;
  codeMECeFDGI: string;
  counters: string;
  nim: string;
}

export interface FakeEmecef {
  url: string;
  /** The settings that point the service at this fake. */
  env: Record<string, string>;
  /** Every invoice confirmed, in order: one per certification. */
  confirmed: ConfirmedInvoice[];
  /** The uids of the requests cancelled. */
  cancelled: string[];
  /** The requests pending now (the expired ones dropped). */
  pending(): PendingRequest[];
  calls(route: EmecefRoute): number;
  failNext(route: EmecefRoute, fault: EmecefFault, times?: number): void;
  /** Moves the fake's clock on (pending requests expire after 2 minutes of it). */
  advance(ms: number): void;
  /** e-MCF's limit of pending requests (10). */
  setMaxPending(max: number): void;
  /** Down: the port refuses connections; up again on the same port. */
  setDown(down: boolean): Promise<void>;
  close(): Promise<void>;
}

const ERRORS: Record<string, string> = {
  '1': 'Le nombre maximum de factures en attente est dépassé',
  '3': "Type de facture n'est pas valide",
  '4': 'La référence de la facture originale est manquante',
  '5': 'La référence de la facture originale ne comporte pas 24 caractères',
  '6': "La valeur de l'AIB n'est pas valide",
  '7': "Le type de paiement n'est pas valide",
  '8': 'La facture doit contenu les articles',
  '9': "La groupe de taxation au niveau des articles n'est pas valide",
  '11': "La référence de la facture originale n'est pas valide (la facture originale est introuvable)",
  '12': "La référence de la facture originale n'est pas valide (le montant sur la facture d'avoir dépassé le montant de la facture originale)",
  '20': "La facture n'existe pas ou elle est déjà finalisée / annulée",
  '99': 'Erreur lors du traitement de la demande',
};
const TYPES = ['FV', 'EV', 'FA', 'EA'];
const GROUPS = ['A', 'B', 'C', 'D', 'E', 'F'] as const;
const PAYMENT_TYPES = ['ESPECES', 'VIREMENT', 'CARTEBANCAIRE', 'MOBILEMONEY', 'CHEQUES', 'CREDIT', 'AUTRE'];
const CODE_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

const pad = (n: number) => String(n).padStart(2, '0');
/** The fake clock's time in Benin (UTC+1), as its parts. */
const beninParts = (ms: number) => {
  const d = new Date(ms + BENIN_OFFSET_MS);
  return { y: d.getUTCFullYear(), mo: pad(d.getUTCMonth() + 1), d: pad(d.getUTCDate()), h: pad(d.getUTCHours()), mi: pad(d.getUTCMinutes()), s: pad(d.getUTCSeconds()) };
};
const beninIso = (ms: number) => {
  const p = beninParts(ms);
  return `${p.y}-${p.mo}-${p.d}T${p.h}:${p.mi}:${p.s}+01:00`;
};

/** Totals as the document's example computes them (InvoiceResponseDataDto). */
function totalsOf(body: any) {
  const amounts: Record<string, number> = { A: 0, B: 0, C: 0, D: 0, E: 0, F: 0 };
  let ts = 0;
  for (const item of body.items) {
    amounts[item.taxGroup] = amounts[item.taxGroup]! + Math.round(item.price * item.quantity);
    ts += Number.isInteger(item.taxSpecific) ? item.taxSpecific : 0;
  }
  const hab = Math.round(amounts.B! / 1.18);
  const had = Math.round(amounts.D! / 1.18);
  return {
    ta: 0, tb: 18, tc: 0, td: 18,
    taa: amounts.A!, tab: amounts.B!, tac: amounts.C!, tad: amounts.D!, tae: amounts.E!, taf: amounts.F!,
    hab, had, vab: amounts.B! - hab, vad: amounts.D! - had,
    aib: 0, ts,
    total: Object.values(amounts).reduce((sum, amount) => sum + amount, 0) + ts,
  };
}

export async function startFakeEmecef(t: Test): Promise<FakeEmecef> {
  const pendings = new Map<string, PendingRequest>();
  const confirmed: ConfirmedInvoice[] = [];
  const cancelled: string[] = [];
  const faults: Record<EmecefRoute, EmecefFault[]> = { status: [], post: [], confirm: [], cancel: [], details: [], info: [] };
  const counts: Record<EmecefRoute, number> = { status: 0, post: 0, confirm: 0, cancel: 0, details: 0, info: 0 };
  const hung: ServerResponse[] = [];
  let offset = 0;
  let maxPending = 10;
  let recorded = 0;
  const now = () => Date.now() + offset;

  // Every answer closes its connection: a kept-alive socket that `setDown` closes could otherwise be reused by
  // the client and fail as a cut answer ("lost") rather than a refused connection.
  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', connection: 'close' });
    res.end(JSON.stringify(body));
  };
  const error = (code: string, extra: Record<string, unknown> = {}) => ({ ...extra, errorCode: code, errorDesc: ERRORS[code] });

  const purge = () => {
    for (const [uid, kept] of pendings) if (now() - kept.receivedAt >= EXPIRY_MS) pendings.delete(uid);
  };

  const routeOf = (req: IncomingMessage): { route: EmecefRoute; uid?: string; info?: string } | null => {
    const path = (req.url ?? '').split('?')[0]!.replace(/\/+$/, '');
    if (path === '/api/invoice') return req.method === 'GET' ? { route: 'status' } : req.method === 'POST' ? { route: 'post' } : null;
    const finalise = /^\/api\/invoice\/([^/]+)\/(confirm|cancel)$/.exec(path);
    if (finalise && req.method === 'PUT') return { route: finalise[2] as 'confirm' | 'cancel', uid: decodeURIComponent(finalise[1]!) };
    const details = /^\/api\/invoice\/([^/]+)$/.exec(path);
    if (details && req.method === 'GET') return { route: 'details', uid: decodeURIComponent(details[1]!) };
    const info = /^\/api\/info\/(status|taxGroups|invoiceTypes|paymentTypes)$/.exec(path);
    if (info && req.method === 'GET') return { route: 'info', info: info[1]! };
    return null;
  };

  /** The annex's error for a request of this shape, or null when e-MCF takes it. */
  const refusalOf = (body: any, total: number): string | null => {
    if (!TYPES.includes(body.type)) return '3';
    if (body.aib !== undefined && body.aib !== null && body.aib !== 'A' && body.aib !== 'B') return '6';
    if (!Array.isArray(body.items) || body.items.length === 0) return '8';
    for (const item of body.items) {
      if (!GROUPS.includes(item?.taxGroup)) return '9';
      if (typeof item.name !== 'string' || !item.name || !Number.isInteger(item.price) || typeof item.quantity !== 'number' || !(item.quantity > 0)) return '99';
    }
    if (body.payment !== undefined) {
      if (!Array.isArray(body.payment)) return '99';
      for (const payment of body.payment) {
        if (!PAYMENT_TYPES.includes(payment?.name)) return '7';
        if (!Number.isInteger(payment.amount)) return '99';
      }
    }
    if (typeof body.ifu !== 'string' || typeof body.operator?.name !== 'string') return '99';
    if (body.type === 'FA' || body.type === 'EA') {
      if (typeof body.reference !== 'string' || !body.reference) return '4';
      if (body.reference.length !== 24) return '5';
      const original = confirmed.find((invoice) => invoice.codeMECeFDGI.replace(/-/g, '') === body.reference && (invoice.type === 'FV' || invoice.type === 'EV'));
      if (!original) return '11';
      const credited = confirmed.filter((invoice) => invoice.body.reference === body.reference).reduce((sum, invoice) => sum + invoice.total, 0);
      if (credited + total > original.total) return '12';
    }
    return null;
  };

  const counters = (type: string) => `${confirmed.filter((invoice) => invoice.type === type).length}/${recorded} ${type}`;

  const handle = (req: IncomingMessage, res: ServerResponse, raw: string) => {
    const found = routeOf(req);
    if (!found) return json(res, 404, { message: 'Not Found' });
    const { route, uid } = found;
    counts[route]++;
    const fault = faults[route].shift();
    if (fault === 'reset') return void req.socket.destroy();
    if (fault === 'hang') return void hung.push(res);
    if (typeof fault === 'number') return json(res, fault, { message: `HTTP ${fault}` });
    const answer = (status: number, body: unknown) => (fault === 'keep-and-hang' ? void hung.push(res) : json(res, status, body));

    if (req.headers.authorization !== `Bearer ${EMECEF_TOKEN}`) return json(res, 401, { message: 'Unauthorized' });
    purge();
    const stamp = now();

    switch (route) {
      case 'status':
        return answer(200, {
          status: true, version: '1.0', ifu: EMECEF_IFU, nim: EMECEF_NIM,
          tokenValid: beninIso(stamp + 30 * 86_400_000), serverDateTime: beninIso(stamp),
          pendingRequestsCount: pendings.size,
          pendingRequestsList: [...pendings.values()].map((kept) => ({ date: beninIso(kept.receivedAt), uid: kept.uid })),
        });
      case 'post': {
        let body: any;
        try {
          body = JSON.parse(raw);
        } catch {
          return json(res, 400, { message: 'Bad Request' });
        }
        if (!body || typeof body !== 'object' || Array.isArray(body)) return json(res, 400, { message: 'Bad Request' });
        if (pendings.size >= maxPending) return answer(200, error('1', { uid: null }));
        const totals = Array.isArray(body.items) && body.items.every((item: any) => GROUPS.includes(item?.taxGroup)) ? totalsOf(body) : null;
        const refusal = refusalOf(body, totals?.total ?? 0);
        if (refusal || !totals) return answer(200, error(refusal ?? '99', { uid: null }));
        const kept = { uid: randomUUID(), body, receivedAt: stamp, total: totals.total };
        pendings.set(kept.uid, kept);
        return answer(200, { uid: kept.uid, ...totals });
      }
      case 'confirm':
      case 'cancel': {
        const kept = pendings.get(uid!);
        if (!kept) return answer(200, error('20'));
        pendings.delete(kept.uid);
        recorded++;
        const p = beninParts(stamp);
        const dateTime = `${p.d}/${p.mo}/${p.y} ${p.h}:${p.mi}:${p.s}`;
        if (route === 'cancel') {
          cancelled.push(kept.uid);
          return answer(200, { dateTime, qrCode: '', codeMECeFDGI: '', counters: counters(kept.body.type), nim: EMECEF_NIM });
        }
        const code = Array.from({ length: 24 }, () => CODE_ALPHABET[randomInt(CODE_ALPHABET.length)]).join('');
        const codeMECeFDGI = code.match(/.{4}/g)!.join('-');
        const qrCode = `F;${EMECEF_NIM};${code};${EMECEF_IFU};${p.y}${p.mo}${p.d}${p.h}${p.mi}${p.s}`;
        const invoice: ConfirmedInvoice = { uid: kept.uid, body: kept.body, type: kept.body.type, total: kept.total, dateTime, qrCode, codeMECeFDGI, counters: '', nim: EMECEF_NIM };
        confirmed.push(invoice);
        invoice.counters = counters(invoice.type);
        return answer(200, { dateTime, qrCode, codeMECeFDGI, counters: invoice.counters, nim: EMECEF_NIM });
      }
      case 'details': {
        const kept = pendings.get(uid!);
        if (!kept) return answer(200, error('20'));
        const { ifu, aib, type, items, client, operator, payment, reference } = kept.body;
        return answer(200, { ifu, aib, type, items, client, operator, payment, reference });
      }
      case 'info':
        switch (found.info) {
          case 'status':
            return answer(200, {
              status: true, version: '1.0', ifu: EMECEF_IFU, nim: EMECEF_NIM, tokenValid: beninIso(stamp + 30 * 86_400_000), serverDateTime: beninIso(stamp),
              emcfList: [{ nim: EMECEF_NIM, status: 'Actif', shopName: 'TEST', address1: 'Boulevard 23', address2: null, address3: 'Cotonou', contact1: '12345678', contact2: null, contact3: null }],
            });
          case 'taxGroups':
            return answer(200, { a: 0, b: 18, c: 0, d: 18, e: 0, f: 0, aibA: 1, aibB: 5 });
          case 'invoiceTypes':
            return answer(200, [
              { type: 'FV', description: 'Facture de vente' },
              { type: 'FA', description: "Facture d'avoir" },
              { type: 'EV', description: "Facture de vente à l'exportation" },
              { type: 'EA', description: "Facture d'avoir à l'exportation" },
            ]);
          default:
            return answer(200, PAYMENT_TYPES.map((type) => ({ type, description: type })));
        }
    }
  };

  const server = await startSwitchableServer(t, handle, hung);
  const url = server.url;

  return {
    url,
    env: { FISCAL_PROVIDER: 'emecef', EMECEF_BASE_URL: `${url}/api` },
    confirmed,
    cancelled,
    pending: () => {
      purge();
      return [...pendings.values()];
    },
    calls: (route) => counts[route],
    failNext(route, fault, times = 1) {
      for (let i = 0; i < times; i++) faults[route].push(fault);
    },
    advance(ms) {
      offset += ms;
    },
    setMaxPending(max) {
      maxPending = max;
    },
    setDown: server.setDown,
    close: server.stop,
  };
}
