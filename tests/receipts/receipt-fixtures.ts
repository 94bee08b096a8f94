import type { ReceiptInput, SaleRecord } from '../../api/sales/schemas.ts';
import type { Service } from '../support/service.ts';

/** Receipts are pure functions of a ReceiptInput: these build one by hand, no database needed (but settleOnAccount, at the end, for the tests through the API). */

export const SALE_ID = '0b7c6a52-5d1e-4c3b-9f43-2f1a8e6d9c10';
const AT = '2026-11-21T13:05:00.000Z';

type Item = SaleRecord['items'][number];
type Payment = SaleRecord['payments'][number];

let counter = 0;
const uuid = () => `00000000-0000-4000-8000-${String(++counter).padStart(12, '0')}`;

export function item(fields: Partial<Item> & Pick<Item, 'name' | 'quantity' | 'unit_price_xaf'>): Item {
  return {
    id: uuid(),
    line_no: 1,
    product_id: uuid(),
    variant_id: null,
    discount_xaf: 0,
    promotion_id: null,
    promotion_discount_xaf: 0,
    points_discount_xaf: 0,
    vat_rate: 19.25,
    vat_xaf: 0,
    total_xaf: 0,
    refunded_quantity: 0,
    ...fields,
  };
}

export function payment(method: Payment['method'], amount: number, fields: Partial<Payment> = {}): Payment {
  return { id: uuid(), kind: 'payment', method, amount_xaf: amount, reference: null, created_at: AT, ...fields };
}

/**
 * A sale of three lines, with its numbers worked out by the CONTRACT's rules:
 * - Café moulu 250 g: 2 x 2 500 = 5 000, line discount 500, total 4 500, VAT 19.25 % 726
 * - Riz parfumé 5 kg: 1 x 12 500, promotion 1 250, total 11 250, VAT 19.25 % 1 816
 * - Tomates: 1.5 x 1 000 = 1 500, VAT 0 %
 * Subtotal 19 000, discounts 1 750, total 17 250; paid 20 000 in cash, change 2 750.
 */
export function sampleSale(fields: Partial<SaleRecord> = {}): SaleRecord {
  return {
    id: SALE_ID,
    receipt_no: 1042,
    status: 'completed',
    customer_id: null,
    device_id: null,
    cashier_id: uuid(),
    cashier_name: 'Awa Ndiaye',
    shift_id: null,
    note: null,
    subtotal_xaf: 19000,
    discount_xaf: 1750,
    vat_xaf: 2542,
    total_xaf: 17250,
    paid_xaf: 20000,
    change_xaf: 2750,
    credit_xaf: 0,
    points_earned: 17,
    points_redeemed: 0,
    offline: false,
    items: [
      item({ line_no: 1, name: 'Café moulu 250 g', quantity: 2, unit_price_xaf: 2500, discount_xaf: 500, vat_xaf: 726, total_xaf: 4500 }),
      item({ line_no: 2, name: 'Riz parfumé 5 kg', quantity: 1, unit_price_xaf: 12500, promotion_id: uuid(), promotion_discount_xaf: 1250, vat_xaf: 1816, total_xaf: 11250 }),
      item({ line_no: 3, name: 'Tomates', quantity: 1.5, unit_price_xaf: 1000, vat_rate: 0, vat_xaf: 0, total_xaf: 1500 }),
    ],
    payments: [payment('cash', 20000), payment('cash', -2750, { kind: 'change' })],
    refunds: [],
    vat_breakdown: [
      { rate: 0, base_xaf: 1500, vat_xaf: 0, total_xaf: 1500 },
      { rate: 19.25, base_xaf: 13208, vat_xaf: 2542, total_xaf: 15750 },
    ],
    certification: null,
    void_certification: null,
    quote_id: null,
    void_reason: null,
    voided_at: null,
    created_at: AT,
    recorded_at: AT,
    updated_at: AT,
    till_created_at: null,
    ...fields,
  };
}

export function receiptInput(overrides: { sale?: Partial<SaleRecord>; shop?: Partial<ReceiptInput['shop']>; customer?: ReceiptInput['customer'] } = {}): ReceiptInput {
  return {
    sale: sampleSale(overrides.sale),
    shop: {
      name: 'Boutique Awa',
      phone: '+237 699 00 00 00',
      email: 'contact@boutique-awa.cm',
      address: 'Rue de la Joie',
      city: 'Douala',
      tax_id: 'M012345678901X',
      receipt_header: 'Ouvert 7j/7',
      receipt_footer: 'Merci de votre visite !',
      locale: 'fr',
      timezone: 'Africa/Douala',
      ...overrides.shop,
    },
    customer: overrides.customer === undefined ? null : overrides.customer,
  };
}

export const CUSTOMER = { id: '5f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f', name: 'Jean Mbarga', phone: '+237 677 11 22 33', email: 'jean@example.cm' };

/** A product name of exactly 120 characters made of words, for wrapping. */
export const LONG_NAME = 'Savon de Marseille extra pur à l\'huile d\'olive vierge, parfum lavande de Provence, pain de 400 grammes, lot de 12 unités';

// ---------------------------------------------------------------------------------------------
// An ESC/POS reader: turns the bytes back into commands and text lines, and refuses anything else.

export type EscPosEvent =
  | { kind: 'init' }
  | { kind: 'codepage'; page: number }
  | { kind: 'align'; value: number }
  | { kind: 'bold'; on: boolean }
  | { kind: 'size'; value: number }
  | { kind: 'font'; value: number }
  | { kind: 'feed'; lines: number }
  | { kind: 'qr'; fn: number; params: number[] }
  | { kind: 'raster'; mode: number; widthBytes: number; height: number; data: number[] }
  | { kind: 'cut'; mode: number; feed: number }
  | { kind: 'text'; bytes: number[]; text: string; align: number; bold: boolean; size: number; font: number };

const cp1252 = new TextDecoder('windows-1252');

export function readEscPos(bytes: Uint8Array): EscPosEvent[] {
  const events: EscPosEvent[] = [];
  let align = 0;
  let bold = false;
  let size = 0;
  let font = 0;
  let line: number[] = [];
  let i = 0;
  const take = () => {
    if (i >= bytes.length) throw new Error('truncated command');
    return bytes[i++]!;
  };
  while (i < bytes.length) {
    const byte = take();
    if (byte === 0x0a) {
      events.push({ kind: 'text', bytes: line, text: cp1252.decode(Uint8Array.from(line)), align, bold, size, font });
      line = [];
    } else if (byte === 0x1b) {
      const command = take();
      if (command === 0x40) events.push({ kind: 'init' });
      else if (command === 0x74) events.push({ kind: 'codepage', page: take() });
      else if (command === 0x61) events.push({ kind: 'align', value: (align = take()) });
      else if (command === 0x45) events.push({ kind: 'bold', on: (bold = take() === 1) });
      else if (command === 0x64) events.push({ kind: 'feed', lines: take() });
      else if (command === 0x4d) events.push({ kind: 'font', value: (font = take()) });
      else throw new Error(`unknown ESC command 0x${command.toString(16)}`);
    } else if (byte === 0x1d) {
      const command = take();
      if (command === 0x21) events.push({ kind: 'size', value: (size = take()) });
      else if (command === 0x56) {
        const mode = take();
        events.push({ kind: 'cut', mode, feed: mode >= 65 ? take() : 0 });
      } else if (command === 0x76 && take() === 0x30) {
        // GS v 0 m xL xH yL yH d1...dk: a raster image, (xL + xH * 256) bytes by (yL + yH * 256) rows.
        const mode = take();
        const widthBytes = take() + take() * 256;
        const height = take() + take() * 256;
        events.push({ kind: 'raster', mode, widthBytes, height, data: Array.from({ length: widthBytes * height }, take) });
      } else if (command === 0x28 && take() === 0x6b) {
        const length = take() + take() * 256;
        const body = Array.from({ length }, take);
        if (body[0] !== 0x31) throw new Error('GS ( k for a symbol other than QR');
        events.push({ kind: 'qr', fn: body[1]!, params: body.slice(2) });
      } else throw new Error(`unknown GS command 0x${command.toString(16)}`);
    } else if (byte < 0x20 || byte === 0x7f) {
      throw new Error(`control byte 0x${byte.toString(16)} inside text`);
    } else {
      line.push(byte);
    }
  }
  if (line.length > 0) throw new Error('text left unterminated');
  return events;
}

export const textLines = (events: EscPosEvent[]) => events.filter((e): e is Extract<EscPosEvent, { kind: 'text' }> => e.kind === 'text');

/** The QR code's stored data (function 80: GS ( k pL pH 49 80 48 d1...dk). */
export function qrData(events: EscPosEvent[]): string | undefined {
  const store = events.find((e): e is Extract<EscPosEvent, { kind: 'qr' }> => e.kind === 'qr' && e.fn === 0x50);
  return store ? cp1252.decode(Uint8Array.from(store.params.slice(1))) : undefined;
}

/** Text content of the page: tags dropped, entities decoded, spaces collapsed. */
export const visibleText = (html: string) =>
  html
    .replace(/<style>[\s\S]*?<\/style>/, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&mdash;/g, '—')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');

/** A customer pays `amount` in cash on their account (POST /customers/{id}/payments: the oldest debts first). */
export async function settleOnAccount(api: Service, token: string, customerId: string, amount: number): Promise<void> {
  const reply = await api.request('POST', `/customers/${customerId}/payments`, { token, body: { amount_xaf: amount, method: 'cash' } });
  if (reply.status !== 201) throw new Error(`settlement failed: ${reply.status} ${JSON.stringify(reply.body)}`);
}
