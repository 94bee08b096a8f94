import { z } from '@hono/zod-openapi';
import { PaymentMethod } from '../credit/schemas.ts';
import { CREATE_PURCHASE, PAID_PURCHASE, PAY_PURCHASE, PAYABLE_LINE, PAYABLES, PURCHASE, PURCHASE_RETURN, RETURNED_PURCHASE } from './examples.ts';
import { businessDate, IsoDate, ListQuery, Money, optionalText, PositiveQuantity, Text, Timestamp, TO_NOT_BEFORE_FROM, toNotBeforeFrom, UnitMoney, Uuid, VatRate } from '../schemas.ts';

export const PurchaseStatus = z.enum(['unpaid', 'partially_paid', 'paid']);

const BatchNumber = Text.trim().min(1).max(80);

export const PurchaseItemInput = z
  .object({
    product_id: Uuid.nullable().optional().openapi({ description: 'The product received (its stock goes up, its cost_xaf becomes unit_cost_xaf).' }),
    variant_id: Uuid.nullable().optional().openapi({
      description: 'The variant received; enough on its own (its product is implied). Variants share their product\'s cost_xaf.',
    }),
    name: Text.trim().min(1).max(200).nullable().optional().openapi({
      description: 'Default: the catalogue\'s name. Required for a line with neither product nor variant: a cost that is not stock (transport).',
    }),
    quantity: PositiveQuantity.openapi({ description: 'More than 0, at most 3 decimals.' }),
    unit_cost_xaf: UnitMoney.openapi({ description: 'Unit cost on the supplier\'s invoice, excluding VAT.' }),
    batch_number: BatchNumber.nullable().optional().openapi({ description: 'With or without expiry_date: the goods go into that batch (made on first receipt).' }),
    expiry_date: businessDate('Calendar date in the shop\'s time zone.').nullable().optional(),
  })
  .openapi('PurchaseItemInput', { example: CREATE_PURCHASE.items[2] });

export const CreatePurchaseBody = z
  .object({
    supplier_id: Uuid.nullable().optional().openapi({ description: 'A supplier of this shop (422 otherwise); null: bought from no one on file.' }),
    reference: optionalText(120).openapi({ description: 'The supplier\'s invoice number.' }),
    note: optionalText(255),
    vat_rate: VatRate.nullable().optional().openapi({ description: 'VAT charged by the supplier on the subtotal, 0 to 100; default 0.' }),
    items: z.array(PurchaseItemInput).min(1).max(500),
  })
  .openapi('CreatePurchase', { example: CREATE_PURCHASE });

export const PayPurchaseBody = z
  .object({
    amount_xaf: Money.min(1).openapi({ description: 'At most what remains to pay (422 `overpayment`).' }),
    method: PaymentMethod.openapi({ description: 'Treasury account credited: cash 571, card and bank 521, mobile money 585.' }),
    reference: optionalText(120),
  })
  .openapi('PayPurchase', { example: PAY_PURCHASE });

export const PurchaseReturnBody = z
  .object({
    items: z
      .array(
        z.object({
          purchase_item_id: Uuid,
          quantity: PositiveQuantity.openapi({ description: 'At most what was received less already returned, and what is on hand.' }),
          reason: optionalText(255),
        }),
      )
      .min(1)
      .max(500),
  })
  .openapi('PurchaseReturn', { example: PURCHASE_RETURN });

export const PurchaseItemRecord = z
  .object({
    id: Uuid,
    line_no: z.number().int(),
    product_id: Uuid.nullable(),
    variant_id: Uuid.nullable(),
    name: z.string(),
    quantity: z.number(),
    unit_cost_xaf: z.number().int(),
    total_xaf: z.number().int().openapi({ description: 'round(quantity x unit_cost_xaf), excluding VAT.' }),
    batch_number: z.string().nullable(),
    expiry_date: IsoDate.nullable(),
    batch_id: Uuid.nullable(),
    returned_quantity: z.number(),
  })
  .openapi('PurchaseItem', { example: PURCHASE.items[2] });

export const PurchasePaymentRecord = z
  .object({
    id: Uuid,
    amount_xaf: z.number().int(),
    method: PaymentMethod,
    reference: z.string().nullable(),
    shift_id: Uuid.nullable().openapi({ description: 'The drawer it was paid from (cash during the caller\'s open shift).' }),
    user_id: Uuid.nullable(),
    created_at: Timestamp,
  })
  .openapi('PurchasePayment', { example: PAID_PURCHASE.payments[0] });

export const PurchaseReturnRecord = z
  .object({
    id: Uuid,
    subtotal_xaf: z.number().int(),
    vat_xaf: z.number().int(),
    total_xaf: z.number().int(),
    user_id: Uuid.nullable(),
    created_at: Timestamp,
    items: z.array(z.object({ id: Uuid, purchase_item_id: Uuid, quantity: z.number(), total_xaf: z.number().int(), reason: z.string().nullable() })),
  })
  .openapi('PurchaseReturnRecord', { example: RETURNED_PURCHASE.returns[0] });

export const PurchaseRecord = z
  .object({
    id: Uuid,
    supplier_id: Uuid.nullable(),
    supplier_name: z.string().nullable(),
    reference: z.string().nullable(),
    note: z.string().nullable(),
    vat_rate: z.number(),
    subtotal_xaf: z.number().int().openapi({ description: 'Sum of the lines, excluding VAT.' }),
    vat_xaf: z.number().int().openapi({ description: 'round(subtotal_xaf x vat_rate / 100): deductible VAT (4452).' }),
    total_xaf: z.number().int(),
    paid_xaf: z.number().int(),
    returned_xaf: z.number().int().openapi({ description: 'What returns took off the invoice, VAT included.' }),
    balance_xaf: z.number().int().openapi({ description: 'total_xaf - returned_xaf - paid_xaf: what remains to pay (negative: the supplier owes it back).' }),
    status: PurchaseStatus,
    user_id: Uuid.nullable(),
    created_at: Timestamp.openapi({ description: 'When the goods were received: the invoice date of the payables\' ageing.' }),
    updated_at: Timestamp.openapi({ description: 'Last change of its figures (a payment, a return).' }),
    items: z.array(PurchaseItemRecord),
    payments: z.array(PurchasePaymentRecord).openapi({ description: 'Oldest first.' }),
    returns: z.array(PurchaseReturnRecord).openapi({ description: 'Oldest first.' }),
  })
  .openapi('Purchase', { example: PURCHASE });
export type PurchaseRecord = z.infer<typeof PurchaseRecord>;

export const PurchaseListQuery = ListQuery.extend({
  supplier_id: Uuid.optional().openapi({ param: { name: 'supplier_id', in: 'query' } }),
  status: PurchaseStatus.optional().openapi({ param: { name: 'status', in: 'query' } }),
  from: IsoDate.optional().openapi({ param: { name: 'from', in: 'query' }, description: 'First day received, shop time.' }),
  to: IsoDate.optional().openapi({ param: { name: 'to', in: 'query' }, description: 'Last day received, shop time; on or after from.' }),
}).refine(toNotBeforeFrom, TO_NOT_BEFORE_FROM());

export const PurchaseParam = z.object({ purchase_id: Uuid.openapi({ param: { name: 'purchase_id', in: 'path' } }) });

export const PayableLine = z
  .object({
    supplier_id: Uuid.nullable().openapi({ description: 'Null: the purchases recorded without a supplier, together.' }),
    name: z.string().nullable(),
    phone: z.string().nullable(),
    balance_xaf: z.number().int().openapi({ description: 'What the shop owes (the supplier\'s balance; negative: a credit the supplier owes the shop).' }),
    days_0_30_xaf: z.number().int(),
    days_31_60_xaf: z.number().int(),
    days_61_90_xaf: z.number().int(),
    days_over_90_xaf: z.number().int(),
    oldest_at: Timestamp.nullable().openapi({ description: 'Invoice date of the oldest purchase not fully paid.' }),
  })
  .openapi('PayableLine', { example: PAYABLE_LINE });

export const Payables = z
  .object({
    as_of: Timestamp,
    suppliers: z.array(PayableLine).openapi({ description: 'Largest balance first.' }),
    totals: z.object({
      balance_xaf: z.number().int(),
      days_0_30_xaf: z.number().int(),
      days_31_60_xaf: z.number().int(),
      days_61_90_xaf: z.number().int(),
      days_over_90_xaf: z.number().int(),
    }),
  })
  .openapi('Payables', { example: PAYABLES });
