import { z } from '@hono/zod-openapi';
import {
  BARCODE_ASSIGNMENT,
  CREATE_PRODUCT,
  CREATE_VARIANT,
  GENERATE_BARCODES,
  GENERATE_VARIANTS,
  PRODUCT,
  PRODUCT_DETAIL,
  PRODUCT_LIST_ITEM,
  REPLACE_OPTIONS,
  SIZE_OPTION,
  UPDATE_PRODUCT,
  UPDATE_VARIANT,
  VARIANT,
} from './examples.ts';
import { ListQuery, NonNegativeQuantity, nullableRef, QueryBoolean, requiredText, Text, TEXT_PATTERNS, Timestamp, Uuid, UnitMoney, VatRate } from '../schemas.ts';

export const Unit = z.enum(['piece', 'kg', 'g', 'l', 'ml', 'm']);

/** A SKU or a barcode: free text as printed, unique in the shop across products and variants. */
const Code = requiredText(64);

const OptionText = requiredText(60);

export const VariantOptions = z
  .record(OptionText, OptionText)
  .refine((options) => Object.keys(options).length <= 4, 'At most 4 axes.')
  .openapi({
    description: 'Axis name to value, e.g. {"Taille": "M", "Couleur": "Rouge"}.',
    example: { Taille: 'M' },
    maxProperties: 4,
    // The generator writes no propertyNames for a record's keys (and its type does not list the keyword).
    ...({ propertyNames: { type: 'string', minLength: 1, maxLength: 60, pattern: TEXT_PATTERNS.filled } } as object),
  });

export const VariantRecord = z
  .object({
    id: Uuid,
    product_id: Uuid,
    options: z.record(z.string(), z.string()),
    sku: z.string().nullable(),
    barcode: z.string().nullable(),
    price_xaf: z.number().int(),
    on_hand: z.number().openapi({ description: 'Read-only: only stock movements change it.' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .openapi('Variant', { example: VARIANT });
export type VariantRecord = z.infer<typeof VariantRecord>;

export const OptionRecord = z
  .object({
    id: Uuid,
    product_id: Uuid,
    name: z.string(),
    values: z.array(z.string()),
    position: z.number().int(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .openapi('ProductOption', { example: SIZE_OPTION });
export type OptionRecord = z.infer<typeof OptionRecord>;

export const ProductRecord = z
  .object({
    id: Uuid,
    name: z.string(),
    sku: z.string().nullable(),
    barcode: z.string().nullable(),
    category_id: Uuid.nullable(),
    price_xaf: z.number().int().openapi({ description: 'Selling price, VAT included.' }),
    cost_xaf: z.number().int().openapi({ description: 'Last cost; purchases refresh it.' }),
    vat_rate: z.number(),
    unit: Unit,
    tracked: z.boolean(),
    reorder_level: z.number(),
    on_hand: z.number().openapi({ description: 'Read-only: the sum of the stock movements (of its variants, when it has some).' }),
    active: z.boolean(),
    has_variants: z.boolean(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .openapi('Product', { example: PRODUCT });
export type ProductRecord = z.infer<typeof ProductRecord>;

export const ProductListItem = ProductRecord.extend({
  matched_variant: nullableRef(VariantRecord, 'The variant whose SKU or barcode equals `q` (a scan), else null.'),
}).openapi('ProductListItem', { example: PRODUCT_LIST_ITEM });

export const ProductDetail = ProductRecord.extend({
  options: z.array(OptionRecord),
  variants: z.array(VariantRecord),
}).openapi('ProductDetail', { example: PRODUCT_DETAIL });

const ProductFields = z.object({
  name: requiredText(200),
  sku: Code.nullable().optional(),
  barcode: Code.nullable().optional(),
  category_id: Uuid.nullable().optional().openapi({ description: 'A category of this shop.' }),
  price_xaf: UnitMoney.openapi({ description: 'VAT included.' }),
  cost_xaf: UnitMoney.optional().openapi({ description: 'Default 0.' }),
  vat_rate: VatRate.optional().openapi({ description: 'Default: the shop\'s `default_vat_rate`.' }),
  unit: Unit.optional().openapi({ description: 'Default piece.' }),
  tracked: z.boolean().optional().openapi({ description: 'Whether stock is kept. Default true.' }),
  reorder_level: NonNegativeQuantity.optional().openapi({ description: 'Low-stock threshold. Default 0.' }),
  active: z.boolean().optional().openapi({ description: 'Inactive products stay in history but are not sold. Default true.' }),
});

export const CreateProductBody = ProductFields.openapi('CreateProduct', { example: CREATE_PRODUCT });
export type CreateProductBody = z.infer<typeof CreateProductBody>;
export const UpdateProductBody = ProductFields.partial().openapi('UpdateProduct', { example: UPDATE_PRODUCT });
export type UpdateProductBody = z.infer<typeof UpdateProductBody>;

export const ProductListQuery = ListQuery.extend({
  q: Text.trim().max(200).optional().transform((q) => q || undefined).openapi({
    param: { name: 'q', in: 'query' },
    description: 'Case- and accent-insensitive match in the name ("cafe" finds "Café"), or exactly a SKU or barcode (a scan). Empty: no filter.',
  }),
  category_id: Uuid.optional().openapi({ param: { name: 'category_id', in: 'query' } }),
  active: QueryBoolean.optional().openapi({ param: { name: 'active', in: 'query' } }),
  tracked: QueryBoolean.optional().openapi({ param: { name: 'tracked', in: 'query' } }),
  low_stock: QueryBoolean.optional().openapi({ param: { name: 'low_stock', in: 'query' }, description: 'Tracked products at or below their reorder level.' }),
});

const OptionInput = z
  .object({
    name: requiredText(60),
    values: z.array(requiredText(60)).min(1).max(100).openapi({ uniqueItems: true }),
  })
  .superRefine((option, ctx) => {
    const seen = new Set<string>();
    option.values.forEach((value, index) => {
      if (seen.has(value)) ctx.addIssue({ code: 'custom', path: ['values', index], message: 'Values must be unique within an option.' });
      seen.add(value);
    });
  });

export const ReplaceOptionsBody = z
  .object({ options: z.array(OptionInput).min(1).max(4) })
  .superRefine((body, ctx) => {
    const seen = new Set<string>();
    body.options.forEach((option, index) => {
      if (seen.has(option.name)) ctx.addIssue({ code: 'custom', path: ['options', index, 'name'], message: 'Option names must be unique.' });
      seen.add(option.name);
    });
  })
  .openapi('ReplaceOptions', { example: REPLACE_OPTIONS });

export const GenerateVariantsBody = z
  .object({ default_price_xaf: UnitMoney.nullable().optional().openapi({ description: 'Price of the new variants; default the product\'s price.' }) })
  .openapi('GenerateVariants', { example: GENERATE_VARIANTS });

const VariantFields = z.object({
  options: VariantOptions,
  sku: Code.nullable().optional(),
  barcode: Code.nullable().optional(),
  price_xaf: UnitMoney.optional().openapi({ description: 'Default: the product\'s price.' }),
});

export const CreateVariantBody = VariantFields.openapi('CreateVariant', { example: CREATE_VARIANT });
export type CreateVariantBody = z.infer<typeof CreateVariantBody>;
export const UpdateVariantBody = VariantFields.partial().openapi('UpdateVariant', { example: UPDATE_VARIANT });
export type UpdateVariantBody = z.infer<typeof UpdateVariantBody>;

export const GenerateBarcodesBody = z
  .object({
    product_ids: z.array(Uuid).min(1).max(1000).optional(),
    category_id: Uuid.nullable().optional(),
    include_variants: z.boolean().nullable().optional(),
  })
  .openapi('GenerateBarcodes', { example: GENERATE_BARCODES });

export const BarcodeAssignment = z
  .object({ product_id: Uuid, variant_id: Uuid.nullable(), barcode: z.string().openapi({ example: '2012345678903' }) })
  .openapi('BarcodeAssignment', { example: BARCODE_ASSIGNMENT });
