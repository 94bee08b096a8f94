import { z } from '@hono/zod-openapi';
import { COMMISSION_LINE, COMMISSION_PAYOUT, CREATE_PARTNER, PARTNER, PARTNER_DASHBOARD, PARTNER_PAYOUT, PAY_COMMISSIONS, REFERRAL, UPDATE_PARTNER } from './examples.ts';
import { decimal, Email, IsoDate, ListQuery, optionalText, Password, requiredText, Text, Timestamp, TO_NOT_BEFORE_FROM, toNotBeforeFrom, Uuid } from '../schemas.ts';

export const PartnerStatus = z.enum(['active', 'suspended']);
export const CommissionStatus = z.enum(['pending', 'payable', 'paid']);
export const SubscriptionState = z.enum(['trial', 'active', 'expired']);

/** The defaults of a partner created without its terms (recorded in POST /admin/partners). */
export const DEFAULT_COMMISSION_RATE = 20;
export const DEFAULT_COMMISSION_MONTHS = 12;

const CommissionRate = decimal(2).min(0).max(100).openapi({ description: 'Percent of each subscription payment, 0 to 100, at most 2 decimals.', example: 20 });
const CommissionMonths = z.number().int().min(1).max(120).openapi({ description: 'How many months after a shop\'s registration its payments earn a commission.', example: 12 });

const payoutFields = {
  payout_method: optionalText(40).openapi({ description: 'How the partner is paid (free text: `carrier1_momo`, `bank`...).' }),
  payout_phone: optionalText(40),
  payout_account: optionalText(80),
  payout_name: optionalText(160).openapi({ description: 'The name the payout account is held in.' }),
};

export const CreatePartnerBody = z
  .object({
    name: requiredText(160),
    email: Email.openapi({ description: 'The partner\'s login; unique across every account of the platform.' }),
    password: Password,
    phone: optionalText(40),
    code: requiredText(60).nullable().optional().openapi({
      description: 'What shops type as `referral_code` at registration, matched whatever the case; unique whatever the case. Omitted or null: generated (`P` and 7 characters).',
    }),
    commission_rate: CommissionRate.nullable().optional().openapi({ description: `Percent of each payment; default ${DEFAULT_COMMISSION_RATE}.` }),
    commission_months: CommissionMonths.nullable().optional().openapi({ description: `Months after each shop's registration; default ${DEFAULT_COMMISSION_MONTHS}.` }),
    ...payoutFields,
    notes: optionalText(2000),
  })
  .openapi('CreatePartner', { example: CREATE_PARTNER });
export type CreatePartnerBody = z.infer<typeof CreatePartnerBody>;

export const UpdatePartnerBody = z
  .object({
    name: requiredText(160).optional(),
    phone: optionalText(40),
    commission_rate: CommissionRate.optional().openapi({ description: 'Applies to commissions accrued from now on; lines already accrued keep their rate.' }),
    commission_months: CommissionMonths.optional(),
    status: PartnerStatus.optional().openapi({ description: 'A suspended partner accrues nothing new and refers no new shop; its lines stay as they are, and it still logs in.' }),
    ...payoutFields,
    notes: optionalText(2000),
  })
  .openapi('UpdatePartner', { example: UPDATE_PARTNER });
export type UpdatePartnerBody = z.infer<typeof UpdatePartnerBody>;

const CommissionTotals = {
  commission_pending_xaf: z.number().int().openapi({ description: 'Accrued, still in the 14-day refund window (or held by an administrator).' }),
  commission_payable_xaf: z.number().int().openapi({ description: 'Due to the partner, not yet paid.' }),
  commission_paid_xaf: z.number().int(),
};

export const PartnerRecord = z
  .object({
    id: Uuid.openapi({ description: 'The partner\'s user id (its login).' }),
    name: z.string(),
    email: z.string(),
    phone: z.string().nullable(),
    code: z.string(),
    commission_rate: z.number(),
    commission_months: z.number().int(),
    status: PartnerStatus,
    payout_method: z.string().nullable(),
    payout_phone: z.string().nullable(),
    payout_account: z.string().nullable(),
    payout_name: z.string().nullable(),
    notes: z.string().nullable(),
    referred_shops: z.number().int().openapi({ description: 'Shops registered with its code.' }),
    active_shops: z.number().int().openapi({ description: 'Referred shops whose paid subscription runs now.' }),
    ...CommissionTotals,
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .openapi('Partner', { example: PARTNER });
export type PartnerRecord = z.infer<typeof PartnerRecord>;

export const PartnerListQuery = ListQuery.extend({
  status: PartnerStatus.optional().openapi({ param: { name: 'status', in: 'query' } }),
  q: Text.max(160).optional().openapi({ param: { name: 'q', in: 'query' }, description: 'Part of the name, e-mail or code, whatever the case.' }),
});

export const CommissionLine = z
  .object({
    id: Uuid,
    partner_id: Uuid,
    partner_name: z.string(),
    shop_id: Uuid,
    shop_name: z.string(),
    charge_reference: z.string().openapi({ description: 'The subscription charge it was earned on; one line per charge at most.' }),
    base_amount_xaf: z.number().int().openapi({ description: 'What the shop paid.' }),
    commission_rate: z.number().openapi({ description: 'The partner\'s rate when the line was accrued.' }),
    amount_xaf: z.number().int().openapi({ description: 'round(base_amount_xaf * commission_rate / 100), half away from zero.' }),
    status: CommissionStatus,
    payable_after: Timestamp.nullable().openapi({
      description: 'When a pending line becomes payable (14 days after the payment; the daily task moves it); null when an administrator put it back to pending.',
    }),
    payout_id: Uuid.nullable().openapi({ description: 'The payout that paid it (GET /admin/partner-payouts, GET /partner/payouts); null until it is paid.' }),
    payout_reference: z.string().nullable().openapi({ description: 'Its payout\'s reference; null until it is paid, or when the payout had none.' }),
    paid_at: Timestamp.nullable().openapi({ description: 'When its payout was recorded; null until it is paid. A paid line is final: these three never change again.' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .openapi('PartnerCommission', { example: COMMISSION_LINE });
export type CommissionLine = z.infer<typeof CommissionLine>;

const periodFields = {
  status: CommissionStatus.optional().openapi({ param: { name: 'status', in: 'query' } }),
  payout_id: Uuid.optional().openapi({ param: { name: 'payout_id', in: 'query' }, description: 'The lines one payout paid.' }),
  from: IsoDate.optional().openapi({ param: { name: 'from', in: 'query' }, description: 'First day accrued (UTC).' }),
  to: IsoDate.optional().openapi({ param: { name: 'to', in: 'query' }, description: 'Last day accrued (UTC); on or after from.' }),
};

export const AdminCommissionQuery = ListQuery.extend({
  partner_id: Uuid.optional().openapi({ param: { name: 'partner_id', in: 'query' } }),
  partner: Uuid.optional().openapi({ param: { name: 'partner', in: 'query' }, description: 'The same as partner_id.' }),
  ...periodFields,
})
  .refine((q) => !q.partner || !q.partner_id || q.partner.toLowerCase() === q.partner_id.toLowerCase(), {
    path: ['partner'],
    message: 'Must equal partner_id when both are given.',
  })
  .refine(toNotBeforeFrom, TO_NOT_BEFORE_FROM());

export const PartnerCommissionQuery = ListQuery.extend({
  shop_id: Uuid.optional().openapi({ param: { name: 'shop_id', in: 'query' }, description: 'One referred shop\'s lines.' }),
  ...periodFields,
}).refine(toNotBeforeFrom, TO_NOT_BEFORE_FROM());

export const PayBody = z
  .object({
    ids: z.array(Uuid).min(1).max(1000).optional().openapi({ description: 'The lines to change (at most 1,000). Without it, partner_id\'s lines as described above.' }),
    partner_id: Uuid.optional().openapi({ description: 'An existing partner; required when ids is absent. With ids, every id must be this partner\'s line.' }),
    status: CommissionStatus.nullable().optional().openapi({ description: 'The status the lines take; default `paid`.' }),
    payout_reference: optionalText(120).openapi({
      description: 'The payout\'s own reference (the mobile-money transaction, the transfer), recorded on its payout and on each line it pays. With status `paid` only.',
    }),
  })
  .refine((body) => body.ids !== undefined || body.partner_id !== undefined, { path: ['partner_id'], message: 'Required when ids is absent.' })
  .openapi('PayCommissions', { example: PAY_COMMISSIONS });
export type PayBody = z.infer<typeof PayBody>;

export const PartnerPayout = z
  .object({
    id: Uuid,
    partner_id: Uuid,
    partner_name: z.string(),
    payout_reference: z.string().nullable().openapi({ description: 'The reference given with the payment; null when none was.' }),
    paid_by: Uuid.nullable().openapi({ description: 'The administrator who recorded it; null for payouts recorded before payouts named theirs.' }),
    line_count: z.number().int().openapi({ description: 'The lines it paid (GET the commission lines with `payout_id`).' }),
    amount_xaf: z.number().int().openapi({ description: 'Their total.' }),
    created_at: Timestamp.openapi({ description: 'When it was recorded: the `paid_at` of each of its lines.' }),
  })
  .openapi('PartnerPayout', { example: PARTNER_PAYOUT });
export type PartnerPayout = z.infer<typeof PartnerPayout>;

export const PayResult = z
  .object({
    status: CommissionStatus,
    payout_reference: z.string().nullable().openapi({ description: 'The reference given: the one each line in `lines` and each payout carries. Null when none was given.' }),
    count: z.number().int().openapi({ description: 'The lines this request changed (those in `lines`); never a line left alone.' }),
    amount_xaf: z.number().int().openapi({ description: 'Their total.' }),
    lines: z.array(CommissionLine).openapi({ description: 'The lines this request changed, as they are now.' }),
    unchanged: z.array(Uuid).openapi({ description: 'The ids of the lines named that it left alone: lines paid already (a paid line is final), lines already in the status.' }),
    payouts: z.array(PartnerPayout).openapi({ description: 'With status `paid`: the payout recorded for each partner whose lines it paid; empty when it paid none.' }),
  })
  .openapi('CommissionPayout', { example: COMMISSION_PAYOUT });

export const AdminPayoutQuery = ListQuery.extend({
  partner_id: Uuid.optional().openapi({ param: { name: 'partner_id', in: 'query' }, description: 'One partner\'s payouts.' }),
});

export const PartnerDashboard = z
  .object({
    partner: z.object({
      id: Uuid,
      name: z.string(),
      code: z.string(),
      commission_rate: z.number(),
      commission_months: z.number().int(),
      status: PartnerStatus,
    }),
    referred_shops: z.number().int(),
    trial_shops: z.number().int().openapi({ description: 'Referred shops in their trial.' }),
    active_shops: z.number().int().openapi({ description: 'Referred shops whose paid subscription runs now.' }),
    expired_shops: z.number().int(),
    ...CommissionTotals,
    commission_total_xaf: z.number().int().openapi({ description: 'Everything accrued, whatever its status.' }),
  })
  .openapi('PartnerDashboard', { example: PARTNER_DASHBOARD });

export const Referral = z
  .object({
    shop_id: Uuid,
    name: z.string(),
    signed_up_at: Timestamp,
    subscription_status: SubscriptionState,
    trial_ends_at: Timestamp,
    subscription_ends_at: Timestamp.nullable(),
    commission_until: Timestamp.openapi({ description: 'Payments asked for before this time earn a commission (registration plus the partner\'s commission months).' }),
    commission_total_xaf: z.number().int().openapi({ description: 'Earned on this shop, whatever the status.' }),
    ...CommissionTotals,
  })
  .openapi('Referral', { example: REFERRAL });

export const PartnerParam = z.object({ id: Uuid.openapi({ param: { name: 'id', in: 'path' } }) });
