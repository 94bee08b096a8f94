import { z } from '@hono/zod-openapi';
import { BILLING, CHARGE, MONTHLY_PLAN, SUBSCRIBE } from './examples.ts';
import { requiredText, Text, Timestamp, Uuid } from '../schemas.ts';

const PlanFields = {
  id: Uuid,
  name: z.string(),
  price_xaf: z.number().int(),
  period_days: z.number().int(),
};
export const Plan = z.object(PlanFields).openapi('Plan', { example: MONTHLY_PLAN });
export type Plan = z.infer<typeof Plan>;

export const ChargeStatus = z.enum(['pending', 'succeeded', 'failed', 'expired']);
export const ChargeMethod = z.enum(['carrier1_momo', 'carrier2_money']);

export const Charge = z
  .object({
    reference: z.string().openapi({ description: 'Names the charge here and at the provider.' }),
    status: ChargeStatus,
    plan_id: Uuid,
    amount_xaf: z.number().int(),
    method: ChargeMethod,
    phone: z.string(),
    failure_reason: z.string().nullable().openapi({
      description:
        'Why a failed charge failed, as the provider said: `payer_declined`, `payer_not_found`, `not_enough_funds`, `payer_limit_reached`, ' +
        '`approval_rejected`, `expired`, `transaction_canceled` or `provider_rejected`. Never set by a timeout or an unreachable provider: such a charge stays pending.',
    }),
    failure_message: z.string().nullable().openapi({ description: 'What `failure_reason` (or an expired charge) means, in the caller\'s language.' }),
    created_at: Timestamp,
    settled_at: Timestamp.nullable().openapi({ description: 'When it stopped being pending.' }),
    subscription_ends_at: Timestamp.nullable().openapi({ description: 'A succeeded charge: the end of the subscription it brought.' }),
  })
  .openapi('SubscriptionCharge', { example: CHARGE });
export type Charge = z.infer<typeof Charge>;

export const Billing = z
  .object({
    status: z.enum(['trial', 'active', 'expired']),
    trial_ends_at: Timestamp,
    subscription_ends_at: Timestamp.nullable(),
    plan: z.object(PlanFields).nullable().openapi({ description: 'The plan of the last charge that succeeded; null before any.' }),
    charges: z.array(Charge).openapi({ description: 'The 20 newest charges, newest first.' }),
  })
  .openapi('Billing', { example: BILLING });

export const SubscribeBody = z
  .object({
    plan_id: Uuid.openapi({ description: 'A plan of GET /billing/plans.' }),
    method: ChargeMethod,
    phone: requiredText(40).openapi({ description: 'The payer\'s mobile-money number.', example: '+237 670 00 00 00' }),
  })
  .openapi('Subscribe', { example: SUBSCRIBE });

export const ReferenceParam = z.object({
  reference: Text.min(1).max(64).openapi({ param: { name: 'reference', in: 'path' }, example: CHARGE.reference }),
});

const CallbackProvider = z.enum(['mtn_momo', 'pawapay']).openapi({ param: { name: 'provider', in: 'path' }, example: 'mtn_momo' });

export const CallbackProviderParam = z.object({ provider: CallbackProvider });

export const CallbackParams = z.object({
  provider: CallbackProvider,
  reference: Text.min(1).max(200).openapi({ param: { name: 'reference', in: 'path' }, example: CHARGE.reference }),
});
