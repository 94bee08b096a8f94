import { z } from '@hono/zod-openapi';
import { ATTRIBUTE_LOYALTY, CREATE_SALE, REFUND, REFUND_SALE, SALE, VOID_SALE } from './examples.ts';
import { Certification } from '../fiscal/certification-schemas.ts';
import { IsoDate, ListQuery, nullableRef, Money, optionalText, PositiveQuantity, requiredText, Timestamp, TillCreatedAt, TO_NOT_BEFORE_FROM, toNotBeforeFrom, UnitMoney, Uuid, VatRate } from '../schemas.ts';

export const SaleStatus = z.enum(['completed', 'voided', 'partially_refunded', 'refunded']);
export const SaleMethod = z.enum(['cash', 'carrier1_momo', 'carrier2_money', 'card', 'bank', 'credit']);

export const SaleItemRecord = z
  .object({
    id: Uuid,
    line_no: z.number().int(),
    product_id: Uuid.nullable(),
    variant_id: Uuid.nullable(),
    name: z.string(),
    quantity: z.number(),
    unit_price_xaf: z.number().int(),
    discount_xaf: z.number().int().openapi({ description: 'The line\'s own discount.' }),
    promotion_id: Uuid.nullable(),
    promotion_discount_xaf: z.number().int(),
    points_discount_xaf: z.number().int().openapi({ description: 'The line\'s share of the redeemed points\' value.' }),
    vat_rate: z.number(),
    vat_xaf: z.number().int(),
    total_xaf: z.number().int().openapi({ description: 'round(quantity x unit price) - discounts; VAT included.' }),
    refunded_quantity: z.number(),
  })
  .openapi('SaleItem', { example: SALE.items[0] });

export const SalePaymentRecord = z
  .object({
    id: Uuid,
    kind: z.enum(['payment', 'change', 'refund', 'void']),
    method: SaleMethod,
    amount_xaf: z.number().int().openapi({ description: 'Signed as seen from the drawer: payments positive; change, refunds and void reversals negative.' }),
    reference: z.string().nullable(),
    created_at: Timestamp,
  })
  .openapi('SalePayment', { example: SALE.payments[0] });

export const RefundRecord = z
  .object({
    id: Uuid,
    credit_note_no: z.number().int().openapi({
      description:
        'The refund is a credit note (avoir): numbered 1, 2, 3... per shop with no gap, apart from receipt numbers. ' +
        'Its document: `GET /sales/{sale_id}/refunds/{refund_id}/credit-note`.',
    }),
    method: SaleMethod,
    reason: z.string().nullable(),
    total_xaf: z.number().int(),
    vat_xaf: z.number().int(),
    items: z.array(z.object({ sale_item_id: Uuid, quantity: z.number(), total_xaf: z.number().int(), vat_xaf: z.number().int() })),
    created_at: Timestamp,
    certification: nullableRef(Certification, 'The credit note\'s certification by the tax authority; null when the shop does not certify.'),
  })
  .openapi('Refund', { example: REFUND });

export const VatLine = z
  .object({
    rate: z.number(),
    base_xaf: z.number().int().openapi({ description: 'Total excluding VAT.' }),
    vat_xaf: z.number().int(),
    total_xaf: z.number().int(),
  })
  .openapi('VatLine', { example: SALE.vat_breakdown[0] });

export const SaleRecord = z
  .object({
    id: Uuid,
    receipt_no: z.number().int().openapi({ description: 'Gap-free per shop.' }),
    status: SaleStatus,
    customer_id: Uuid.nullable(),
    device_id: Uuid.nullable(),
    cashier_id: Uuid.nullable(),
    cashier_name: z.string().nullable(),
    shift_id: Uuid.nullable(),
    note: z.string().nullable(),
    subtotal_xaf: z.number().int().openapi({ description: 'Sum of the lines\' quantity x unit price.' }),
    discount_xaf: z.number().int().openapi({ description: 'Line discounts, promotions and redeemed points together.' }),
    vat_xaf: z.number().int(),
    total_xaf: z.number().int(),
    paid_xaf: z.number().int().openapi({ description: 'Payments taken (credit excluded).' }),
    change_xaf: z.number().int(),
    credit_xaf: z.number().int().openapi({ description: 'Charged to the customer\'s account.' }),
    points_earned: z.number().int(),
    points_redeemed: z.number().int(),
    offline: z.boolean(),
    items: z.array(SaleItemRecord),
    payments: z.array(SalePaymentRecord),
    refunds: z.array(RefundRecord),
    vat_breakdown: z.array(VatLine),
    certification: nullableRef(
      Certification,
      'The sale\'s certification by the tax authority (CONTRACT section 14); null when the shop does not certify (FISCAL_PROVIDER none, or made before it did).',
    ),
    void_certification: nullableRef(Certification, 'A voided sale\'s void, certified as a credit note for the whole sale; null otherwise.'),
    quote_id: Uuid.nullable().openapi({ description: 'The quote this sale was converted from (POST /quotes/{quote_id}/convert).' }),
    void_reason: z.string().nullable(),
    voided_at: Timestamp.nullable(),
    created_at: Timestamp.openapi({
      description: 'When the sale happened: an offline sale keeps its till\'s time, unless that clock was plainly wrong (then see `till_created_at`).',
    }),
    recorded_at: Timestamp,
    updated_at: Timestamp,
    till_created_at: TillCreatedAt,
  })
  .openapi('Sale', { example: SALE });
export type SaleRecord = z.infer<typeof SaleRecord>;

/** Everything a receipt or an invoice shows: the sale, the shop's details and the customer. */
export interface ReceiptInput {
  sale: SaleRecord;
  shop: {
    name: string;
    phone: string | null;
    email: string | null;
    address: string | null;
    city: string | null;
    tax_id: string | null;
    trade_register_no?: string | null;
    /** The legal mentions (issue 31): absent or null, not printed. */
    legal_form?: string | null;
    share_capital_xaf?: number | null;
    tax_regime?: string | null;
    tax_centre?: string | null;
    bank_details?: string | null;
    momo_merchant_no?: string | null;
    payment_terms_days?: number | null;
    receipt_header: string | null;
    receipt_footer: string | null;
    locale: 'fr' | 'en';
    timezone: string;
    /** The names the shop gave its payment methods (only those it named; see api/lib/payment-labels.ts). */
    payment_method_labels?: Record<string, string>;
  };
  customer: { id: string; name: string; phone: string | null; email: string | null; tax_id?: string | null; trade_register_no?: string | null; address?: string | null } | null;
  /**
   * What a credit sale left on the customer's account, as it stands now: `charged_xaf` once refunds
   * and a void took their part back, `settled_xaf` of it paid since. Absent: the sale's `credit_xaf`,
   * nothing settled.
   */
  account?: { charged_xaf: number; settled_xaf: number } | null;
}


export const SaleItemInput = z.object({
  product_id: Uuid.nullable().optional(),
  variant_id: Uuid.nullable().optional(),
  name: optionalText(200).openapi({ description: 'Default: the product\'s name (with the variant\'s options). Required without product_id.' }),
  quantity: PositiveQuantity,
  unit_price_xaf: UnitMoney.nullable().optional().openapi({
    description: 'Default: the catalogue price (the variant\'s, else the product\'s). Required without product_id. A cashier may send only the catalogue price unless the shop\'s `cashier_price_override` is on (403 otherwise).',
  }),
  discount_xaf: Money.nullable().optional().openapi({
    description: 'The line\'s own discount, before promotions. A cashier\'s is at most the shop\'s `cashier_max_discount_percent` of round(quantity x unit price) on a line with a product (422 `discount_not_allowed`).',
  }),
  vat_rate: VatRate.nullable().optional().openapi({
    description: 'Default: the product\'s rate, else the shop\'s. A cashier may send only the product\'s rate unless the shop\'s `cashier_price_override` is on (403 otherwise).',
  }),
});

export const PaymentInput = z.object({
  method: SaleMethod.openapi({ description: 'credit: on the named customer\'s account.' }),
  amount_xaf: Money,
  reference: optionalText(120),
});

export const CreateSaleBody = z
  .object({
    id: Uuid.nullable().optional().openapi({ description: 'Client-supplied, unique in the shop: the same id with the same body answers the stored sale (200); with another body 409 idempotency_conflict.' }),
    customer_id: Uuid.nullable().optional(),
    device_id: Uuid.nullable().optional().openapi({
      description: 'The till the sale is made on: one of the shop\'s devices (`GET /devices`), else 422 on `device_id`; a revoked device is refused too. Null or omitted: none.',
    }),
    note: optionalText(255),
    redeem_points: z.number().int().min(0).max(1_000_000_000).nullable().optional(),
    items: z.array(SaleItemInput).min(1).max(500),
    payments: z.array(PaymentInput).max(20).optional(),
  })
  .openapi('CreateSale', { example: CREATE_SALE });
export type CreateSaleBody = z.infer<typeof CreateSaleBody>;

export const VoidBody = z.object({ reason: requiredText(255) }).openapi('VoidSale', { example: VOID_SALE });

export const RefundBody = z
  .object({
    method: SaleMethod,
    reason: optionalText(255),
    items: z.array(z.object({ sale_item_id: Uuid, quantity: PositiveQuantity })).min(1).max(500),
  })
  .openapi('RefundSale', { example: REFUND_SALE });

export const AttributeLoyaltyBody = z.object({ card_no: requiredText(60) }).openapi('AttributeLoyalty', { example: ATTRIBUTE_LOYALTY });

export const SaleListQuery = ListQuery.extend({
  from: IsoDate.optional().openapi({ param: { name: 'from', in: 'query' }, description: 'First day, shop time.' }),
  to: IsoDate.optional().openapi({ param: { name: 'to', in: 'query' }, description: 'Last day, shop time; on or after from.' }),
  customer_id: Uuid.optional().openapi({ param: { name: 'customer_id', in: 'query' } }),
  status: SaleStatus.optional().openapi({ param: { name: 'status', in: 'query' } }),
  shift_id: Uuid.optional().openapi({ param: { name: 'shift_id', in: 'query' } }),
  cashier: Uuid.optional().openapi({ param: { name: 'cashier', in: 'query' }, description: 'The cashier\'s user id.' }),
}).refine(toNotBeforeFrom, TO_NOT_BEFORE_FROM());
