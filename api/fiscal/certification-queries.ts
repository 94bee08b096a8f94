/**
 * The certification settings and the outbox as the owner sees them (CONTRACT section 14): each query
 * runs in the request's transaction, as the app role, on the caller's shop (row-level security).
 */
import type { Config } from '../config.ts';
import type { Tx } from '../db.ts';
import { errors, invalidField } from '../errors.ts';
import { fiscalProvider } from './providers/index.ts';
import type { FiscalProvider } from './providers/types.ts';

/** The authorities by FISCAL_PROVIDER, as the owner knows them. */
export const AUTHORITY = { simulator: 'the simulator', emecef: 'e-MECeF (DGI Bénin)', fne: 'FNE (DGI Côte d\'Ivoire)' } as const;

export type CertificationStatus = 'pending' | 'certified' | 'rejected';

export interface SettingsRow {
  provider: string;
  enabled: boolean;
  taxpayer_no: string | null;
  api_token_set: boolean;
  point_of_sale: string | null;
  establishment: string | null;
  from_chain_no: number;
  enabled_at: string;
}

export async function findSettings(tx: Tx): Promise<SettingsRow | null> {
  const [row] = await tx<SettingsRow[]>`
    select provider, enabled, taxpayer_no, api_token_sealed is not null as api_token_set, point_of_sale, establishment,
           from_chain_no::int as from_chain_no, iso_time(enabled_at) as enabled_at
      from fiscal_certification_settings where shop_id = app_shop_id()`;
  return row ?? null;
}

/** The VAT rates the shop sells at: its default and every active product's and variant's, each with up to three products naming it. */
export async function shopVatRates(tx: Tx): Promise<{ rate: string; products: string[] }[]> {
  return tx<{ rate: string; products: string[] }[]>`
    select trim_scale(rate)::text as rate, coalesce((array_agg(name order by name) filter (where name is not null))[1:3], '{}') as products
      from (select default_vat_rate as rate, null::text as name from shops where id = app_shop_id()
            union all
            select vat_rate, name from products where active and vat_rate is not null) rates
     group by rate order by rate`;
}

/** Refuses, before anything is enabled, a rate the authority has no tax group for (422 `unmapped_vat_rate` on `vat_rate`). */
export function checkVatRates(provider: FiscalProvider, rates: { rate: string; products: string[] }[], authority: string): void {
  const unmapped = rates.filter(({ rate }) => provider.taxGroupFor(rate) === null);
  if (!unmapped.length) return;
  const named = unmapped.map(({ rate, products }) => (products.length ? `${rate} % (${products.join(', ')})` : `${rate} %`)).join('; ');
  throw invalidField('enabled', `These VAT rates have no tax group at ${authority}: ${named}. Change them before enabling certification.`, 'unmapped_vat_rate');
}

/**
 * While the shop certifies, a VAT rate its authority has no tax group for is refused where it is set (a
 * product's, the shop's default: 422 `unmapped_vat_rate` on `field`), as enabling refuses it: its sales
 * would be rejected by the authority. One read of the shop's settings row, only when a rate is sent.
 */
export async function assertCertifiableRate(tx: Tx, config: Config, rate: number | undefined, field: string): Promise<void> {
  if (rate === undefined || config.FISCAL_PROVIDER === 'none') return;
  const settings = await findSettings(tx);
  if (!settings?.enabled || settings.provider === 'simulator') return;
  const name = settings.provider as keyof typeof AUTHORITY;
  const text = String(rate);
  if (fiscalProvider(config, name).taxGroupFor(text) !== null) return;
  throw invalidField(field, `The VAT rate ${text} % has no tax group at ${AUTHORITY[name]}, with which this shop certifies its sales.`, 'unmapped_vat_rate');
}

export interface SettingsChange {
  provider: string;
  enabled: boolean;
  taxpayer_no?: string | null;
  api_token_sealed?: string;
  point_of_sale?: string | null;
  establishment?: string | null;
}

/**
 * Saves the settings. Turned on, certification starts with the next record of the chain: what was
 * made before is not sent. A setting left out keeps its value; the token is only ever replaced.
 */
export async function saveSettings(tx: Tx, change: SettingsChange): Promise<void> {
  const [counter] = await tx<{ next: string }[]>`select coalesce((select chain_no from receipt_counters where shop_id = app_shop_id()), 0) + 1 as next`;
  await tx`
    insert into fiscal_certification_settings (shop_id, provider, enabled, taxpayer_no, api_token_sealed, point_of_sale, establishment, from_chain_no)
    values (app_shop_id(), ${change.provider}, ${change.enabled}, ${change.taxpayer_no ?? null}, ${change.api_token_sealed ?? null},
            ${change.point_of_sale ?? null}, ${change.establishment ?? null}, ${counter!.next})
    on conflict (shop_id) do update set
      from_chain_no = case when fiscal_certification_settings.enabled and fiscal_certification_settings.provider = excluded.provider
                           then fiscal_certification_settings.from_chain_no else excluded.from_chain_no end,
      enabled_at = case when fiscal_certification_settings.enabled and fiscal_certification_settings.provider = excluded.provider
                        then fiscal_certification_settings.enabled_at else now() end,
      provider = excluded.provider,
      enabled = excluded.enabled,
      taxpayer_no = ${change.taxpayer_no === undefined ? tx`fiscal_certification_settings.taxpayer_no` : tx`excluded.taxpayer_no`},
      api_token_sealed = ${change.api_token_sealed === undefined ? tx`fiscal_certification_settings.api_token_sealed` : tx`excluded.api_token_sealed`},
      point_of_sale = ${change.point_of_sale === undefined ? tx`fiscal_certification_settings.point_of_sale` : tx`excluded.point_of_sale`},
      establishment = ${change.establishment === undefined ? tx`fiscal_certification_settings.establishment` : tx`excluded.establishment`},
      updated_at = now()`;
}

/** A shop made while the service certifies with the simulator: on from its first record (CONTRACT section 14: no set-up). */
export async function enableSimulator(tx: Tx): Promise<void> {
  await tx`insert into fiscal_certification_settings (shop_id, provider) values (app_shop_id(), 'simulator') on conflict (shop_id) do nothing`;
}

export async function certificationCounts(tx: Tx): Promise<Record<CertificationStatus, number> & { waiting_for_owner: number }> {
  const [row] = await tx<(Record<CertificationStatus, number> & { waiting_for_owner: number })[]>`
    select count(*) filter (where status = 'pending')::int as pending,
           count(*) filter (where status = 'certified')::int as certified,
           count(*) filter (where status = 'rejected')::int as rejected,
           count(*) filter (where status = 'pending' and error = 'answer_lost')::int as waiting_for_owner
      from fiscal_certifications where shop_id = app_shop_id()`;
  return row!;
}

export interface CertificationRow {
  chain_no: number;
  kind: 'sale' | 'void' | 'refund';
  sale_id: string;
  refund_id: string | null;
  number: number;
  total_xaf: number;
  provider: string;
  status: CertificationStatus;
  authority_no: string | null;
  signature: string | null;
  qr: string | null;
  certified_at: string | null;
  error: string | null;
  error_message: string | null;
  attempts: number;
  next_attempt_at: string | null;
  created_at: string;
}

/** The shop's records to certify, in chain order from after `after`, of one status or all. */
export async function listCertifications(tx: Tx, status: CertificationStatus | undefined, after: number, limit: number): Promise<CertificationRow[]> {
  return tx<CertificationRow[]>`
    select c.chain_no::int as chain_no, c.kind, s.id as sale_id, r.id as refund_id,
           coalesce(r.credit_note_no, s.receipt_no)::int as number,
           (case when c.kind = 'refund' then r.total_xaf else s.total_xaf end)::int as total_xaf,
           c.provider, c.status, c.authority_no, c.signature, c.qr, iso_time(c.certified_at) as certified_at,
           c.error, c.error_detail as error_message, c.attempts, iso_time(c.next_attempt_at) as next_attempt_at, iso_time(c.created_at) as created_at
      from fiscal_certifications c
      left join refunds r on c.kind = 'refund' and r.id = c.ref_id
      join sales s on s.id = coalesce(r.sale_id, c.ref_id)
     where c.shop_id = app_shop_id() and c.chain_no > ${after}
       and (${status ?? null}::text is null or c.status = ${status ?? null})
     order by c.chain_no limit ${limit + 1}`;
}

export async function findCertification(tx: Tx, chainNo: number): Promise<CertificationRow | null> {
  const [row] = await listCertifications(tx, undefined, chainNo - 1, 1);
  return row && row.chain_no === chainNo ? row : null;
}

/** A rejected record sent again (the owner fixed its cause): pending, from scratch, and the shop's delivery woken now. */
export async function retryRejected(tx: Tx, chainNo: number): Promise<void> {
  const [row] = await tx<{ status: string }[]>`select status from fiscal_certifications where shop_id = app_shop_id() and chain_no = ${chainNo} for update`;
  if (!row) throw errors.notFound();
  if (row.status !== 'rejected') throw errors.conflict('not_rejected', 'Only a rejected record can be sent again.');
  await tx`
    update fiscal_certifications
       set status = 'pending', state = '{}', error = null, error_detail = null, attempts = 0, next_attempt_at = null, alerted_at = null, updated_at = now()
     where shop_id = app_shop_id() and chain_no = ${chainNo}`;
  await tx`select fiscal_certification_wake(true)`;
}

export type Settlement = { found: true; authority_no: string; qr: string; signature?: string | null } | { found: false };

/**
 * The owner's word on a record whose answer was lost where the authority has no look-up (FNE; an
 * e-MECeF confirmation whose elements are gone): found on the authority's portal, its elements are
 * kept as given; not found, it is sent again. Either way the records after it go on.
 */
export async function settleLost(tx: Tx, chainNo: number, settlement: Settlement): Promise<void> {
  const [row] = await tx<{ status: string; error: string | null }[]>`
    select status, error from fiscal_certifications where shop_id = app_shop_id() and chain_no = ${chainNo} for update`;
  if (!row) throw errors.notFound();
  if (row.status !== 'pending' || row.error !== 'answer_lost') {
    throw errors.conflict('not_waiting_for_owner', 'Only a record whose answer was lost waits for the owner\'s word.');
  }
  if (settlement.found) {
    await tx`
      update fiscal_certifications
         set status = 'certified', authority_no = ${settlement.authority_no}, qr = ${settlement.qr}, signature = ${settlement.signature ?? 'saisi par le propriétaire'},
             certified_at = now(), state = '{}', error = null, error_detail = null, next_attempt_at = null, updated_at = now()
       where shop_id = app_shop_id() and chain_no = ${chainNo}`;
  } else {
    await tx`
      update fiscal_certifications
         set state = '{}', error = null, error_detail = null, next_attempt_at = null, attempts = 0, alerted_at = null, updated_at = now()
       where shop_id = app_shop_id() and chain_no = ${chainNo}`;
  }
  await tx`select fiscal_certification_wake(true)`;
}
