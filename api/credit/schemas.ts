import { z } from '@hono/zod-openapi';
import { OPEN_DEBT, RECEIVABLE_LINE, RECEIVABLES, SETTLEMENT, SETTLEMENT_INPUT, STATEMENT } from './examples.ts';
import { Money, optionalText, Timestamp, Uuid } from '../schemas.ts';

export const PaymentMethod = z.enum(['cash', 'carrier1_momo', 'carrier2_money', 'card', 'bank']);

export const SettlementBody = z
  .object({
    amount_xaf: Money.min(1),
    method: PaymentMethod,
    note: optionalText(255),
  })
  .openapi('CustomerSettlement', { example: SETTLEMENT_INPUT });

export const Allocation = z.object({ debt_id: Uuid, source_type: z.string(), source_id: Uuid.nullable(), amount_xaf: z.number().int() });

export const SettlementRecord = z
  .object({
    id: Uuid,
    customer_id: Uuid,
    amount_xaf: z.number().int(),
    method: PaymentMethod,
    note: z.string().nullable(),
    user_id: Uuid.nullable(),
    allocations: z.array(Allocation).openapi({ description: 'The debts it settled, oldest first.' }),
    created_at: Timestamp,
  })
  .openapi('CustomerPayment', { example: SETTLEMENT });
export type SettlementRecord = z.infer<typeof SettlementRecord>;

export const OpenDebt = z
  .object({
    id: Uuid,
    source_type: z.string().openapi({ description: 'sale for a credit sale.' }),
    source_id: Uuid.nullable(),
    occurred_at: Timestamp,
    amount_xaf: z.number().int(),
    settled_xaf: z.number().int(),
    remaining_xaf: z.number().int(),
  })
  .openapi('OpenDebt', { example: OPEN_DEBT });

export const Statement = z
  .object({
    customer_id: Uuid,
    name: z.string(),
    balance_xaf: z.number().int(),
    credit_ceiling_xaf: z.number().int(),
    available_credit_xaf: z.number().int(),
    unsettled: z.array(OpenDebt).openapi({ description: 'Oldest first, each with what remains.' }),
    settlements: z.array(SettlementRecord).openapi({ description: 'Newest first.' }),
  })
  .openapi('CustomerStatement', { example: STATEMENT });

export const ReceivableLine = z
  .object({
    customer_id: Uuid,
    name: z.string(),
    phone: z.string().nullable(),
    balance_xaf: z.number().int(),
    days_0_30_xaf: z.number().int(),
    days_31_60_xaf: z.number().int(),
    days_61_90_xaf: z.number().int(),
    days_over_90_xaf: z.number().int(),
    oldest_at: Timestamp,
  })
  .openapi('ReceivableLine', { example: RECEIVABLE_LINE });

export const Receivables = z
  .object({
    as_of: Timestamp,
    customers: z.array(ReceivableLine),
    totals: z.object({
      balance_xaf: z.number().int(),
      days_0_30_xaf: z.number().int(),
      days_31_60_xaf: z.number().int(),
      days_61_90_xaf: z.number().int(),
      days_over_90_xaf: z.number().int(),
    }),
  })
  .openapi('Receivables', { example: RECEIVABLES });
