import { z } from '@hono/zod-openapi';
import { PaymentInput, SaleItemInput, SaleRecord, VatLine } from '../sales/schemas.ts';
import { CONVERT_QUOTE, CONVERTED_QUOTE, CREATE_QUOTE, QUOTE, QUOTE_STATUS, UPDATE_QUOTE } from './examples.ts';
import { businessDate, IsoDate, ListQuery, optionalText, Timestamp, TO_NOT_BEFORE_FROM, toNotBeforeFrom, Uuid } from '../schemas.ts';

/** CONTRACT section 8. `expired` is also what a draft or sent quote shows once its `valid_until` has passed. */
export const QuoteStatus = z.enum(['draft', 'sent', 'declined', 'expired', 'converted']);
/** What POST /quotes/{id}/status may set: every state but `converted`, which only a conversion reaches. */
export const SettableQuoteStatus = z.enum(['draft', 'sent', 'declined', 'expired']);

/** Quote lines are sale lines (CONTRACT section 8): priced by the sale's own rules. */
export const QuoteItemInput = SaleItemInput.openapi('QuoteItemInput');

const ValidUntil = businessDate(
  'Last day the quote may be accepted, in the shop\'s calendar. Default on create: 30 days from today. A past date is accepted ' +
    '(a quote given on paper, recorded late) and the quote then shows as `expired`.',
);

export const CreateQuoteBody = z
  .object({
    customer_id: Uuid.nullable().optional().openapi({ description: 'A customer of this shop (422 otherwise). Needed to convert into a sale on credit.' }),
    note: optionalText(255),
    valid_until: ValidUntil.nullable().optional(),
    items: z.array(QuoteItemInput).min(1).max(500),
  })
  .openapi('CreateQuote', { example: CREATE_QUOTE });
export type CreateQuoteBody = z.infer<typeof CreateQuoteBody>;

export const UpdateQuoteBody = z
  .object({
    customer_id: Uuid.nullable().optional().openapi({ description: 'Omitted: unchanged; null: no customer.' }),
    note: optionalText(255).openapi({ description: 'Omitted: unchanged; null: none.' }),
    valid_until: ValidUntil.optional().openapi({ description: 'Omitted: unchanged. A later date revives a quote that showed as expired by its date.' }),
    items: z
      .array(QuoteItemInput)
      .min(1)
      .max(500)
      .optional()
      .openapi({ description: 'Omitted: the lines and their prices are kept. Given: they replace every line and are priced again, as on create.' }),
  })
  .openapi('UpdateQuote', { example: UPDATE_QUOTE });
export type UpdateQuoteBody = z.infer<typeof UpdateQuoteBody>;

export const QuoteStatusBody = z.object({ status: SettableQuoteStatus }).openapi('QuoteStatusChange', { example: QUOTE_STATUS });

export const ConvertQuoteBody = z
  .object({
    payments: z.array(PaymentInput).max(20).optional().openapi({
      description:
        'As a sale\'s: money taken, change from cash only, a shortfall on the quote\'s customer\'s account within its ceiling ' +
        '(none, or less than the total, without a customer: 422 `payment_insufficient`).',
    }),
  })
  .openapi('ConvertQuote', { example: CONVERT_QUOTE });
export type ConvertQuoteBody = z.infer<typeof ConvertQuoteBody>;

export const QuoteItemRecord = z
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
    promotion_discount_xaf: z.number().int().openapi({ description: 'The best promotion of the day the quote was priced: kept at conversion.' }),
    vat_rate: z.number(),
    vat_xaf: z.number().int(),
    total_xaf: z.number().int().openapi({ description: 'round(quantity x unit price) - discounts; VAT included.' }),
  })
  .openapi('QuoteItem', { example: QUOTE.items[0] });

export const QuoteRecord = z
  .object({
    id: Uuid,
    quote_no: z.number().int().openapi({ description: 'Sequential per shop, from 1.' }),
    status: QuoteStatus.openapi({
      description: 'As stored, except that a `draft` or `sent` quote past its `valid_until` (shop calendar) shows `expired`.',
    }),
    customer_id: Uuid.nullable(),
    customer_name: z.string().nullable(),
    note: z.string().nullable(),
    valid_until: z.string().openapi({ format: 'date', example: '2026-12-31' }),
    subtotal_xaf: z.number().int(),
    discount_xaf: z.number().int().openapi({ description: 'Line discounts and promotions together.' }),
    vat_xaf: z.number().int(),
    total_xaf: z.number().int(),
    items: z.array(QuoteItemRecord),
    vat_breakdown: z.array(VatLine),
    sale_id: Uuid.nullable().openapi({ description: 'The sale it was converted into.' }),
    created_by: Uuid.nullable(),
    created_by_name: z.string().nullable(),
    converted_at: Timestamp.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .openapi('Quote', { example: QUOTE });
export type QuoteRecord = z.infer<typeof QuoteRecord>;

export const ConvertedQuote = z.object({ quote: QuoteRecord, sale: SaleRecord }).openapi('ConvertedQuote', { example: CONVERTED_QUOTE });

export const QuoteListQuery = ListQuery.extend({
  status: QuoteStatus.optional().openapi({ param: { name: 'status', in: 'query' }, description: 'As shown: `expired` includes the quotes past their date.' }),
  customer_id: Uuid.optional().openapi({ param: { name: 'customer_id', in: 'query' } }),
  from: IsoDate.optional().openapi({ param: { name: 'from', in: 'query' }, description: 'First day of creation, shop time.' }),
  to: IsoDate.optional().openapi({ param: { name: 'to', in: 'query' }, description: 'Last day of creation, shop time; on or after from.' }),
}).refine(toNotBeforeFrom, TO_NOT_BEFORE_FROM());

export const QuoteParam = z.object({ quote_id: Uuid.openapi({ param: { name: 'quote_id', in: 'path' } }) });
