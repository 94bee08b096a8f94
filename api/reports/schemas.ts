import { z } from '@hono/zod-openapi';
import { SaleStatus } from '../sales/schemas.ts';
import { PRICE_OVERRIDES } from './examples.ts';
import { businessDate, ListQuery, Timestamp, TO_NOT_BEFORE_FROM, toNotBeforeFrom, Uuid } from '../schemas.ts';

/** A period of the shop's calendar (CONTRACT section 9): both days included, `to` on or after `from`; every report's. */
export const period = {
  from: businessDate('First day, in the shop\'s time zone (`YYYY-MM-DD`).').openapi({ param: { name: 'from', in: 'query' } }),
  to: businessDate('Last day, included, in the shop\'s time zone; on or after `from`.').openapi({ param: { name: 'to', in: 'query' } }),
};

export const PriceOverrideQuery = ListQuery.extend(period).refine(toNotBeforeFrom, TO_NOT_BEFORE_FROM());

export const OverrideKind = z.enum(['price', 'vat', 'discount']);

export const PriceOverrideLine = z
  .object({
    sale_id: Uuid,
    receipt_no: z.number().int(),
    sale_status: SaleStatus.openapi({ description: 'The sale\'s status now: an override stays listed after a void or a refund.' }),
    sale_item_id: Uuid,
    line_no: z.number().int(),
    product_id: Uuid.nullable().openapi({ description: 'Null on an offline line whose product or variant was gone when the sale was pushed.' }),
    variant_id: Uuid.nullable(),
    name: z.string().openapi({ description: 'The item\'s name on the sale.' }),
    quantity: z.number(),
    catalogue_price_xaf: z.number().int().openapi({ description: 'The catalogue\'s unit price (the variant\'s, else the product\'s) when the line was recorded.' }),
    catalogue_vat_rate: z.number().openapi({ description: 'The product\'s VAT rate when the line was recorded.' }),
    unit_price_xaf: z.number().int().openapi({ description: 'The unit price charged.' }),
    vat_rate: z.number().openapi({ description: 'The VAT rate charged.' }),
    discount_xaf: z.number().int().openapi({ description: 'The line\'s own discount (promotions and redeemed points excluded).' }),
    catalogue_gross_xaf: z.number().int().openapi({ description: 'round(quantity x catalogue price): what the line would have come to at the catalogue\'s price.' }),
    charged_xaf: z.number().int().openapi({ description: 'round(quantity x unit price) - discount: what the line came to before promotions and redeemed points.' }),
    overrides: z.array(OverrideKind).openapi({ description: 'What departed from the catalogue: `price`, `vat` (rate), `discount` (a line discount was given).' }),
    cashier_id: Uuid.nullable().openapi({ description: 'Who made the sale (on an offline sale, the user the till named, else none).' }),
    cashier_name: z.string().nullable(),
    device_id: Uuid.nullable().openapi({ description: 'The till the sale was made on, when known.' }),
    device_name: z.string().nullable(),
    offline: z.boolean().openapi({ description: 'Made on a till without connection and pushed later: never refused for an override.' }),
    sold_at: Timestamp.openapi({ description: 'When the sale happened (an offline sale keeps the till\'s time).' }),
    recorded_at: Timestamp.openapi({ description: 'When the sale reached the server.' }),
  })
  .openapi('PriceOverrideLine', { example: PRICE_OVERRIDES[0] });
export type PriceOverrideLine = z.infer<typeof PriceOverrideLine>;
