import { example } from '../lib/examples.ts';
import { CUSTOMER_ID, PRODUCT_IDS, SALE, SOAP_PROMOTION_ID } from '../sales/examples.ts';

/** The examples of the OpenAPI document for quotes: a proforma for a regular customer, then its conversion into a sale paid in cash. */

export const CREATE_QUOTE = example({
  customer_id: CUSTOMER_ID,
  note: 'Livraison à Akwa',
  valid_until: '2026-12-21',
  items: [
    { product_id: PRODUCT_IDS.rice, quantity: 2 },
    { product_id: PRODUCT_IDS.oil, quantity: 3 },
    { product_id: PRODUCT_IDS.soap, quantity: 4 },
  ],
});

export const UPDATE_QUOTE = example({ note: 'Livraison à Akwa, samedi matin', valid_until: '2026-12-31' });

export const QUOTE_STATUS = example({ status: 'sent' });

export const CONVERT_QUOTE = example({ payments: [{ method: 'cash', amount_xaf: 20_000 }] });

/** The quote as POST /quotes made it (201). */
export const QUOTE = example({
  id: 'a9a4a644-6ed5-4023-914c-ece8e25d867b',
  quote_no: 1,
  status: 'draft',
  customer_id: CUSTOMER_ID,
  customer_name: 'Jean-Pierre Mbarga',
  note: 'Livraison à Akwa',
  valid_until: '2026-12-21',
  subtotal_xaf: 14_050,
  discount_xaf: 250,
  vat_xaf: 2228,
  total_xaf: 13_800,
  items: [
    {
      id: 'a791fe27-babb-4f88-8259-922eb1288814',
      line_no: 1,
      product_id: PRODUCT_IDS.rice,
      variant_id: null,
      name: 'Riz parfumé 5 kg',
      quantity: 2,
      unit_price_xaf: 4500,
      discount_xaf: 0,
      promotion_id: null,
      promotion_discount_xaf: 0,
      vat_rate: 19.25,
      vat_xaf: 1453,
      total_xaf: 9000,
    },
    {
      id: 'f952fa0a-a75e-433e-9f9e-6a5d463af8f3',
      line_no: 2,
      product_id: PRODUCT_IDS.oil,
      variant_id: null,
      name: 'Huile Mayor 1 L',
      quantity: 3,
      unit_price_xaf: 1350,
      discount_xaf: 0,
      promotion_id: null,
      promotion_discount_xaf: 0,
      vat_rate: 19.25,
      vat_xaf: 654,
      total_xaf: 4050,
    },
    {
      id: 'a412ebc1-2331-4a31-84b1-7616c3a3661e',
      line_no: 3,
      product_id: PRODUCT_IDS.soap,
      variant_id: null,
      name: 'Savon Azur',
      quantity: 4,
      unit_price_xaf: 250,
      discount_xaf: 0,
      promotion_id: SOAP_PROMOTION_ID,
      promotion_discount_xaf: 250,
      vat_rate: 19.25,
      vat_xaf: 121,
      total_xaf: 750,
    },
  ],
  vat_breakdown: [{ rate: 19.25, base_xaf: 11_572, vat_xaf: 2228, total_xaf: 13_800 }],
  sale_id: null,
  created_by: SALE.cashier_id,
  created_by_name: 'Awa Ndiaye',
  converted_at: null,
  created_at: '2026-11-21T09:14:32.315Z',
  updated_at: '2026-11-21T09:14:32.315Z',
});

const CONVERTED_SALE_ID = 'd61127ba-6e83-4484-beaf-2122e4a0dbac';
const CONVERTED_AT = '2026-11-21T09:14:32.360Z';
const CONVERTED_ITEM_IDS = ['4490a44b-317a-4418-bf4a-e52feb84caf4', 'ce358dc1-f438-461b-a4b5-57eda7f8c537', 'd5c6f23f-5404-483a-8f3a-631eb56e5354'];

/** POST /quotes/{quote_id}/convert: the quote converted and the sale raised at its prices, paid 20 000 in cash. */
export const CONVERTED_QUOTE = example({
  quote: { ...QUOTE, status: 'converted', sale_id: CONVERTED_SALE_ID, converted_at: CONVERTED_AT, updated_at: CONVERTED_AT },
  sale: {
    ...SALE,
    id: CONVERTED_SALE_ID,
    receipt_no: 4,
    note: QUOTE.note,
    subtotal_xaf: QUOTE.subtotal_xaf,
    discount_xaf: QUOTE.discount_xaf,
    vat_xaf: QUOTE.vat_xaf,
    total_xaf: QUOTE.total_xaf,
    paid_xaf: 20_000,
    change_xaf: 6200,
    points_earned: 138,
    items: QUOTE.items.map((item, index) => ({ ...item, id: CONVERTED_ITEM_IDS[index]!, points_discount_xaf: 0, refunded_quantity: 0 })),
    payments: [
      { id: '6904dc56-7e20-43bc-bd6e-c7d39ab8c5b3', kind: 'payment', method: 'cash', amount_xaf: 20_000, reference: null, created_at: CONVERTED_AT },
      { id: '1478ba07-620a-443f-9671-3406d06a8f81', kind: 'change', method: 'cash', amount_xaf: -6200, reference: null, created_at: CONVERTED_AT },
    ],
    vat_breakdown: QUOTE.vat_breakdown,
    quote_id: QUOTE.id,
    created_at: CONVERTED_AT,
    recorded_at: CONVERTED_AT,
    updated_at: CONVERTED_AT,
  },
});

/** POST /quotes/{quote_id}/share: a short link on the service's public address. */
const SHARED_QUOTE = 'https://pos.example.cm/s/7hJ9Ab3dE5fG';

export const SHARED_QUOTE_LINKS = example({
  url: SHARED_QUOTE,
  pdf_url: `${SHARED_QUOTE}/pdf`,
  document_url: `${SHARED_QUOTE}/print`,
  expires_at: '2026-11-28T09:14:32.000Z',
});
