/**
 * The certification outbox's delivery (CONTRACT section 14), run by worker/tasks/fiscal__certify.ts:
 * a shop's pending records go to its authority one at a time in chain order, each with no database
 * transaction open while the authority is asked, each outcome written in its own statement.
 *
 * - certified: the elements are kept, and the next record goes;
 * - rejected: the record stays a sale in the books, rejected with the authority's reason; the owner is
 *   alerted (fiscal__alert); the next record goes;
 * - not sent (the authority is down): the record waits, with a growing pause, and nothing after it goes;
 * - unknown (the answer was lost): the record waits with `answer_lost`. The connector resolves it on the
 *   next try from what it journalled (e-MECeF confirms its pending uid again); where the authority has no
 *   look-up (FNE), it stays until the owner settles it (POST /fiscal/certifications/{chain_no}/settle):
 *   sending it again could certify it twice. The owner is alerted once it has waited ALERT_DELAY_MS.
 */
import type { Config } from '../config.ts';
import { unseal } from '../lib/secrets.ts';
import { fiscalProvider } from './providers/index.ts';
import type { CertificationLine, CertificationRequest, DeliveryOutcome, DeliveryState, FiscalProvider, FiscalProviderName, OriginalCertification } from './providers/types.ts';

/** A query on a connection with no transaction open: each statement commits on its own (graphile-worker's helpers.query). */
export type Query = <T extends Record<string, any> = any>(text: string, values?: unknown[]) => Promise<{ rows: T[] }>;

/** The pause before the next try of a record the authority did not take: 10 s, doubling, up to FISCAL_BACKOFF_MAX_MS. */
export const retryDelayMs = (attempts: number, maxMs: number) => Math.min(maxMs, 10_000 * 2 ** Math.max(0, Math.min(attempts - 1, 20)));

/** A run delivers this many records at most, then hands the worker to other shops (and queues itself again). */
const RECORDS_PER_RUN = 100;

interface OpenRecord {
  chain_no: string;
  kind: 'sale' | 'void' | 'refund';
  ref_id: string;
  provider: FiscalProviderName;
  state: DeliveryState;
  attempts: number;
  next_attempt_at: Date | null;
  error: string | null;
}

export interface DeliveryRun {
  /** When the shop's job should run again (a record waits for its next try), or null: nothing left that the worker can do. */
  nextRunAt: Date | null;
  delivered: number;
  /** The shop has new rejections or lost answers to tell its owner about. */
  alert: boolean;
}

/** Delivers the shop's pending records in chain order until one has to wait, or RECORDS_PER_RUN are done. */
export async function deliverPending(
  query: Query,
  config: Config,
  appKey: string,
  shopId: string,
  log: { warn: (o: object, m: string) => void; info: (o: object, m: string) => void },
  signal?: AbortSignal,
): Promise<DeliveryRun> {
  const run: DeliveryRun = { nextRunAt: null, delivered: 0, alert: false };
  for (let done = 0; done < RECORDS_PER_RUN && !signal?.aborted; done++) {
    const { rows } = await query<OpenRecord>(
      `select chain_no, kind, ref_id, provider, state, attempts, next_attempt_at, error
         from fiscal_certifications where shop_id = $1 and status = 'pending' order by chain_no limit 1`,
      [shopId],
    );
    const record = rows[0];
    if (!record) return run;
    if (record.next_attempt_at && record.next_attempt_at.getTime() > Date.now()) {
      run.nextRunAt = record.next_attempt_at;
      return run;
    }
    const provider = fiscalProvider(config, record.provider);
    const prepared = await prepareRequest(query, provider, appKey, shopId, record);
    let outcome: DeliveryOutcome;
    if ('refused' in prepared) {
      outcome = { outcome: 'rejected', reason: prepared.refused, detail: prepared.detail };
    } else {
      const journal = {
        note: async (state: DeliveryState) => {
          await query(`update fiscal_certifications set state = $3, updated_at = now() where shop_id = $1 and chain_no = $2`, [shopId, record.chain_no, JSON.stringify(state)]);
        },
      };
      outcome = await provider
        .deliver(prepared.request, record.state ?? {}, journal, signal)
        .catch((error: Error) => ({ outcome: 'unknown' as const, detail: `the connector failed: ${error.message}` }));
    }
    const where = [shopId, record.chain_no];
    switch (outcome.outcome) {
      case 'certified':
        await query(
          `update fiscal_certifications
              set status = 'certified', authority_no = $3, signature = $4, qr = $5, certified_at = $6, provider_ref = $7, line_refs = $8,
                  state = '{}', error = null, error_detail = null, next_attempt_at = null, attempts = attempts + 1, updated_at = now()
            where shop_id = $1 and chain_no = $2 and status = 'pending'`,
          [...where, outcome.authorityNo, outcome.signature, outcome.qr, outcome.certifiedAt, outcome.providerRef, outcome.lineRefs ? JSON.stringify(outcome.lineRefs) : null],
        );
        run.delivered++;
        continue;
      case 'rejected':
        log.info({ shop_id: shopId, chain_no: record.chain_no, reason: outcome.reason }, 'the tax authority rejected a record');
        await query(
          `update fiscal_certifications
              set status = 'rejected', error = $3, error_detail = $4, state = '{}', next_attempt_at = null, attempts = attempts + 1, updated_at = now()
            where shop_id = $1 and chain_no = $2 and status = 'pending'`,
          [...where, outcome.reason.slice(0, 80), outcome.detail.slice(0, 500)],
        );
        run.alert = true;
        continue;
      case 'not_sent':
      case 'unknown': {
        const lost = outcome.outcome === 'unknown';
        const next = new Date(Date.now() + retryDelayMs(record.attempts + 1, config.FISCAL_BACKOFF_MAX_MS));
        log.warn({ shop_id: shopId, chain_no: record.chain_no, outcome: outcome.outcome, detail: outcome.detail }, 'a record waits for the tax authority');
        await query(
          `update fiscal_certifications
              set error = $3, error_detail = $4, attempts = attempts + 1, next_attempt_at = $5, updated_at = now()
            where shop_id = $1 and chain_no = $2 and status = 'pending'`,
          [...where, lost ? 'answer_lost' : 'authority_unreachable', outcome.detail.slice(0, 500), next],
        );
        if (lost && record.error !== 'answer_lost') run.alert = true;
        run.nextRunAt = next;
        return run;
      }
    }
  }
  run.nextRunAt = new Date();
  return run;
}

/**
 * A service that certifies with the simulator certifies every shop with no set-up (CONTRACT section 14):
 * at the worker's start, each shop without settings is turned on from its next record (a new shop is
 * turned on at registration). A shop whose owner turned it off stays off.
 */
export async function enableSimulatorEverywhere(query: (text: string) => Promise<unknown>): Promise<void> {
  await query(
    `insert into fiscal_certification_settings (shop_id, provider, from_chain_no)
     select s.id, 'simulator', coalesce(rc.chain_no, 0) + 1 from shops s left join receipt_counters rc on rc.shop_id = s.id
     on conflict (shop_id) do nothing`,
  );
}

interface RecordRow {
  number: string;
  issued_at: Date;
  shop_name: string;
  shop_tax_id: string | null;
  taxpayer_no: string | null;
  api_token_sealed: string | null;
  point_of_sale: string | null;
  establishment: string | null;
  cashier_id: string | null;
  cashier_name: string | null;
  customer: CertificationRequest['customer'];
  sale_id: string;
  total_xaf: string;
  vat_xaf: string;
  lines: { lineNo: number; code: string | null; name: string; quantity: string; unitPriceXaf: string; totalXaf: string; vatXaf: string; vatRate: string }[];
  payments: { method: string; amount_xaf: string }[];
}

/** The record as the authority is sent it, or why it cannot be sent at all (a rejection of ours). */
async function prepareRequest(query: Query, provider: FiscalProvider, appKey: string, shopId: string, record: OpenRecord): Promise<{ request: CertificationRequest } | { refused: string; detail: string }> {
  const { rows } = await query<RecordRow>(RECORD_SQL, [shopId, record.ref_id, record.kind]);
  const row = rows[0];
  if (!row) return { refused: 'record_missing', detail: 'The record this certification is about no longer exists.' };

  const lines: CertificationLine[] = [];
  for (const line of row.lines) {
    const taxGroup = provider.taxGroupFor(line.vatRate);
    if (!taxGroup) return { refused: 'unmapped_vat_rate', detail: `The VAT rate ${line.vatRate} % of "${line.name}" has no tax group at this authority.` };
    lines.push({ ...line, unitPriceXaf: Number(line.unitPriceXaf), totalXaf: Number(line.totalXaf), vatXaf: Number(line.vatXaf), taxGroup });
  }
  const totalXaf = Number(row.total_xaf);

  let original: OriginalCertification | null = null;
  if (record.kind !== 'sale') {
    const { rows: originals } = await query<{ status: string; authority_no: string | null; provider_ref: string | null; line_refs: Record<string, string> | null }>(
      `select status, authority_no, provider_ref, line_refs from fiscal_certifications where shop_id = $1 and ref_id = $2 and kind = 'sale'`,
      [shopId, row.sale_id],
    );
    const sale = originals[0];
    if (!sale || sale.status !== 'certified' || !sale.authority_no) {
      return { refused: 'original_not_certified', detail: 'The sale this credit note corrects was not certified: the authority cannot take a credit note for it.' };
    }
    original = { authorityNo: sale.authority_no, providerRef: sale.provider_ref, lineRefs: sale.line_refs };
  }

  let token = '';
  if (row.api_token_sealed) {
    try {
      token = unseal(appKey, row.api_token_sealed);
    } catch {
      return { refused: 'credentials_unreadable', detail: 'The API token cannot be read (APP_KEY changed?): enter it again in the certification settings.' };
    }
  }

  // What was paid, net of change, by method; what no payment covers went on the customer's account.
  const paid = new Map<string, number>();
  for (const payment of row.payments) paid.set(payment.method, (paid.get(payment.method) ?? 0) + Number(payment.amount_xaf));
  const covered = [...paid.values()].filter((amount) => amount > 0).reduce((sum, amount) => sum + amount, 0);
  if (covered < totalXaf) paid.set('credit', (paid.get('credit') ?? 0) + totalXaf - covered);
  const payments = [...paid]
    .filter(([, amount]) => amount > 0)
    .map(([method, amount]) => ({ type: provider.paymentTypeFor(method), amountXaf: amount }));

  return {
    request: {
      recordId: `${shopId}:${record.chain_no}`,
      kind: record.kind === 'sale' ? 'sale' : 'credit_note',
      number: row.number,
      issuedAt: row.issued_at.toISOString(),
      shopName: row.shop_name,
      credentials: {
        taxpayerNo: row.taxpayer_no ?? row.shop_tax_id ?? '',
        apiToken: token,
        pointOfSale: row.point_of_sale,
        establishment: row.establishment,
      },
      operator: { id: row.cashier_id ?? '', name: row.cashier_name ?? row.shop_name },
      customer: row.customer,
      lines,
      payments,
      totalXaf,
      vatXaf: Number(row.vat_xaf),
      original,
    },
  };
}

/**
 * One record to certify, whatever its kind: $1 the shop, $2 the sale (sale, void) or the refund, $3 the kind.
 * A sale's lines as sold; a void's, the whole sale (a credit note for all of it); a refund's, what it gave back.
 */
const RECORD_SQL = `
  with rec as (
    select s.id as sale_id,
           case when $3 = 'refund' then r.credit_note_no::text else s.receipt_no::text end as number,
           case when $3 = 'refund' then r.created_at when $3 = 'void' then coalesce(s.voided_at, s.created_at) else s.created_at end as issued_at,
           case when $3 = 'refund' then r.total_xaf else s.total_xaf end as total_xaf,
           case when $3 = 'refund' then r.vat_xaf else s.vat_xaf end as vat_xaf,
           r.id as refund_id, r.method as refund_method, s.customer_id, s.cashier_id
      from sales s
      left join refunds r on $3 = 'refund' and r.id = $2 and r.shop_id = $1
     where s.shop_id = $1 and s.id = case when $3 = 'refund' then (select sale_id from refunds where id = $2 and shop_id = $1) else $2 end
  )
  select rec.sale_id, rec.number, rec.issued_at, rec.total_xaf, rec.vat_xaf,
         sh.name as shop_name, sh.tax_id as shop_tax_id,
         st.taxpayer_no, st.api_token_sealed, st.point_of_sale, st.establishment,
         u.id as cashier_id, u.name as cashier_name,
         case when c.id is null then null else json_build_object('name', c.name, 'taxpayerNo', c.tax_id, 'phone', c.phone, 'email', c.email, 'address', c.address) end as customer,
         case when $3 = 'refund' then (
           select coalesce(json_agg(json_build_object(
                    'lineNo', i.line_no, 'code', coalesce(v.barcode, v.sku, p.barcode, p.sku), 'name', i.name, 'quantity', trim_scale(ri.quantity)::text,
                    'unitPriceXaf', i.unit_price_xaf, 'totalXaf', ri.total_xaf, 'vatXaf', ri.vat_xaf, 'vatRate', trim_scale(i.vat_rate)::text) order by i.line_no), '[]')
             from refund_items ri join sale_items i on i.id = ri.sale_item_id
             left join products p on p.id = i.product_id left join variants v on v.id = i.variant_id
            where ri.refund_id = rec.refund_id)
         else (
           select coalesce(json_agg(json_build_object(
                    'lineNo', i.line_no, 'code', coalesce(v.barcode, v.sku, p.barcode, p.sku), 'name', i.name, 'quantity', trim_scale(i.quantity)::text,
                    'unitPriceXaf', i.unit_price_xaf, 'totalXaf', i.total_xaf, 'vatXaf', i.vat_xaf, 'vatRate', trim_scale(i.vat_rate)::text) order by i.line_no), '[]')
             from sale_items i left join products p on p.id = i.product_id left join variants v on v.id = i.variant_id
            where i.sale_id = rec.sale_id)
         end as lines,
         case when $3 = 'refund' then json_build_array(json_build_object('method', rec.refund_method, 'amount_xaf', rec.total_xaf))
         else (select coalesce(json_agg(json_build_object('method', sp.method, 'amount_xaf', sp.amount_xaf)), '[]')
                 from sale_payments sp where sp.sale_id = rec.sale_id and sp.kind in ('payment', 'change')) end as payments
    from rec
    join shops sh on sh.id = $1
    left join fiscal_certification_settings st on st.shop_id = $1
    left join users u on u.id = rec.cashier_id
    left join customers c on c.id = rec.customer_id`;
