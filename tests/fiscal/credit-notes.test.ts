import { randomUUID } from 'node:crypto';
import t from 'tap';
import { formatDateTime } from '../../api/receipts/format.ts';
import { visibleText } from '../receipts/receipt-fixtures.ts';
import { createCustomer, openShift, refundSale, sell, setShop, staffedShop, upTo, type StaffedShop } from '../sales/sale-fixtures.ts';
import { expectError, NOT_FOUND } from '../support/replies.ts';
import { startService } from '../support/service.ts';

/**
 * CONTRACT section 13: a refund is also a credit note (avoir), numbered per shop with no gap, with a
 * document at GET /sales/{id}/refunds/{refund_id}/credit-note naming the invoice it corrects.
 */
const api = await startService(t);

/** A shop whose manager, who refunds, has an open shift to pay cash refunds out of. */
async function shopAtWork(): Promise<StaffedShop> {
  const shop = await staffedShop(api);
  await openShift(api, shop.manager.token);
  return shop;
}

const freeLine = (name: string, quantity: number, unitPrice: number, vatRate: number, discount = 0) => ({
  name,
  quantity,
  unit_price_xaf: unitPrice,
  vat_rate: vatRate,
  discount_xaf: discount,
});

/** A sale of one free line, paid in cash. */
const smallSale = (shop: StaffedShop) => sell(api, shop.manager.token, { items: [freeLine('Savon Azur', 2, 250, 19.25)], payments: [{ method: 'cash', amount_xaf: 500 }] });

/** A refund that must succeed (201): answers the refund as the sale carries it (the last one). */
async function refund(token: string, sale: any, parts: [item: any, quantity: number][], reason: string | null = null, method = 'cash'): Promise<any> {
  const reply = await refundSale(api, token, sale.id, { method, reason, items: parts.map(([item, quantity]) => ({ sale_item_id: item.id, quantity })) });
  if (reply.status !== 201) throw new Error(`refund failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data.refunds.at(-1);
}

async function creditNote(token: string, saleId: string, refundId: string, query = ''): Promise<string> {
  const reply = await api.request('GET', `/sales/${saleId}/refunds/${refundId}/credit-note${query}`, { token });
  if (reply.status !== 200) throw new Error(`credit note failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body as string;
}

async function creditNoteNumbers(shopId: string): Promise<number[]> {
  const rows = await api.ownerSql<{ credit_note_no: number }[]>`select credit_note_no from refunds where shop_id = ${shopId} order by credit_note_no`;
  return rows.map((row) => Number(row.credit_note_no));
}

t.test('credit notes are numbered 1, 2, 3... per shop with no gap and no duplicate, even when refunds come at once', async (t) => {
  const shop = await shopAtWork();
  const sales = await Promise.all(upTo(12).map(() => smallSale(shop)));
  const refunds = await Promise.all(sales.map((sale) => refund(shop.manager.token, sale, [[sale.items[0], 1]])));
  t.strictSame(refunds.map((r) => r.credit_note_no).sort((a, b) => a - b), upTo(12), 'the twelve answers carry 1 to 12, each once');
  t.strictSame(await creditNoteNumbers(shop.owner.shop.id), upTo(12), 'so do the stored refunds');

  const next = await refund(shop.manager.token, sales[0], [[sales[0].items[0], 1]]);
  t.equal(next.credit_note_no, 13, 'a later refund, of a sale refunded before, takes the next number');
});

t.test('a refused refund takes no credit note number', async (t) => {
  const shop = await shopAtWork();
  const sale = await smallSale(shop);
  const first = await refund(shop.manager.token, sale, [[sale.items[0], 1]]);
  const refused = await refundSale(api, shop.manager.token, sale.id, { method: 'cash', items: [{ sale_item_id: sale.items[0].id, quantity: 5 }] });
  t.equal(refused.status, 422, 'more than is left to refund');
  const second = await refund(shop.manager.token, sale, [[sale.items[0], 1]]);
  t.strictSame([first.credit_note_no, second.credit_note_no], [1, 2]);
});

t.test('numbering is per shop: another shop\'s first credit note is number 1', async (t) => {
  const [busy, other] = await Promise.all([shopAtWork(), shopAtWork()]);
  for (const sale of await Promise.all(upTo(3).map(() => smallSale(busy)))) await refund(busy.manager.token, sale, [[sale.items[0], 1]]);
  const sale = await smallSale(other);
  t.equal((await refund(other.manager.token, sale, [[sale.items[0], 1]])).credit_note_no, 1);
  t.strictSame(await creditNoteNumbers(busy.owner.shop.id), [1, 2, 3], 'the first shop\'s numbers are its own');
});

/**
 * The document's sale, with its numbers worked out by the CONTRACT's rules (VAT = round(total x rate /
 * (100 + rate)); a partial refund takes each line's share pro rata):
 * - Riz parfumé 5 kg: 3 x 4 500 = 13 500 at 19.25 %, VAT 2 179; 2 given back: 9 000, VAT 1 453
 * - Tomates: 2 x 1 000 less 100 = 1 900 at 0 %; 1 given back: 950 (50 of the discount goes with it)
 * - Huile Mayor 1 L: 1 x 1 350 at 19.25 %, not given back
 * Given back: 9 950 FCFA; VAT 0 %: base 950, VAT 0; VAT 19.25 %: base 7 547, VAT 1 453.
 */
const documentSale = async () => {
  const shop = await shopAtWork();
  await setShop(api, shop.owner, { tax_id: 'M051912345678K', trade_register_no: 'RC/DLA/2019/B/1234' });
  const customer = await createCustomer(api, shop.manager.token, { name: 'Jean-Pierre Mbarga', phone: '+237 677 11 22 33' });
  const sale = await sell(api, shop.manager.token, {
    customer_id: customer.id,
    items: [freeLine('Riz parfumé 5 kg', 3, 4500, 19.25), freeLine('Tomates', 2, 1000, 0, 100), freeLine('Huile Mayor 1 L', 1, 1350, 19.25)],
    payments: [{ method: 'cash', amount_xaf: 20_000 }],
  });
  // Two credit notes before this one, so that its number is not the sale's receipt number.
  for (const other of await Promise.all(upTo(2).map(() => smallSale(shop)))) await refund(shop.manager.token, other, [[other.items[0], 1]]);
  const given = await refund(shop.manager.token, sale, [[sale.items[0], 2], [sale.items[1], 1]], 'Sac déchiré');
  const read = (locale: 'fr' | 'en') => creditNote(shop.cashier.token, sale.id, given.id, `?locale=${locale}`).then(visibleText);
  return { shop, sale, refund: given, customer, fr: await read('fr'), en: await read('en') };
};
const printed = await documentSale();

t.test('a credit note\'s number counts the shop\'s refunds, apart from its receipt numbers', async (t) => {
  t.equal(printed.refund.credit_note_no, 3, 'the shop\'s third refund');
  t.equal(printed.sale.receipt_no, 1, 'of the shop\'s first sale');
  t.equal(printed.refund.total_xaf, 9950, 'what the refund gave back, by the CONTRACT\'s rules');
});

t.test('the credit note is titled by its number, in the shop\'s language unless asked otherwise', async (t) => {
  const { shop, sale, refund: given } = printed;
  const html = await creditNote(shop.cashier.token, sale.id, given.id);
  t.match(html, '<html lang="fr">', 'the shop\'s language, French');
  t.match(html, '<title>Avoir n° 3 - Boutique Awa</title>');
  t.match(printed.fr, 'Avoir n° 3');
  t.match(await creditNote(shop.cashier.token, sale.id, given.id, '?locale=en'), '<title>Credit note no. 3 - Boutique Awa</title>');
  t.match(printed.en, 'Credit note no. 3');
});

t.test('the credit note names the invoice it corrects: the sale\'s number and date, as the invoice calls itself', async (t) => {
  const { shop, sale } = printed;
  const soldAt = formatDateTime(sale.created_at, shop.owner.shop.timezone ?? 'Africa/Douala');
  t.match(printed.fr, `Facture d'origine : Facture n° ${sale.receipt_no} du ${soldAt}`);
  t.match(printed.en, `Original invoice: Invoice no. ${sale.receipt_no} of ${soldAt}`);
  const invoice = await api.request('GET', `/sales/${sale.id}/invoice`, { token: shop.cashier.token });
  t.match(invoice.body, `<title>Facture n° ${sale.receipt_no} - `, 'the name the invoice itself carries');
});

t.test('the credit note names the shop and the customer as the invoice prints them', async (t) => {
  const { shop, sale, refund: given } = printed;
  const html = await creditNote(shop.cashier.token, sale.id, given.id);
  t.match(html, '<div class="seller"><h1>Boutique Awa</h1>', 'the shop, as the seller');
  t.match(printed.fr, 'NIU : M051912345678K RCCM : RC/DLA/2019/B/1234');
  t.match(printed.en, 'NIU: M051912345678K RCCM: RC/DLA/2019/B/1234');
  t.match(printed.fr, 'Client : Jean-Pierre Mbarga Tél. : +237 677 11 22 33');
  t.match(printed.en, 'Customer: Jean-Pierre Mbarga Tel.: +237 677 11 22 33');
});

t.test('the credit note lists the lines given back with their quantities, unit prices and amounts, and no other line', async (t) => {
  t.match(printed.fr, '1 Riz parfumé 5 kg 2 4 500 FCFA 19,25 % 9 000 FCFA');
  t.match(printed.fr, '2 Tomates 1 1 000 FCFA -50 FCFA Exonéré 950 FCFA', 'the line\'s share of its discount');
  t.match(printed.en, '1 Riz parfumé 5 kg 2 4,500 FCFA 19.25% 9,000 FCFA');
  t.match(printed.en, '2 Tomates 1 1,000 FCFA -50 FCFA Exempt 950 FCFA');
  t.notMatch(printed.fr, 'Huile Mayor', 'a line not given back is not printed');
});

t.test('the credit note gives the VAT given back per rate, base and VAT, and the total given back', async (t) => {
  t.match(printed.fr, 'Détail de la TVA Taux TVA Base HT TVA Total TTC Exonéré 950 FCFA 0 FCFA 950 FCFA 19,25 % 7 547 FCFA 1 453 FCFA 9 000 FCFA');
  t.match(printed.fr, 'Total HT 8 497 FCFA Total TVA 1 453 FCFA Total TTC 9 950 FCFA');
  t.match(printed.en, 'VAT breakdown VAT rate Base excl. VAT VAT Total incl. VAT Exempt 950 FCFA 0 FCFA 950 FCFA 19.25% 7,547 FCFA 1,453 FCFA 9,000 FCFA');
  t.match(printed.en, 'Total excl. VAT 8,497 FCFA Total VAT 1,453 FCFA Total incl. VAT 9,950 FCFA');
});

t.test('the credit note says how the money went back and why', async (t) => {
  t.match(printed.fr, 'Remboursement Moyen de paiement Motif Montant Espèces Sac déchiré 9 950 FCFA');
  t.match(printed.en, 'Refund Payment method Reason Amount Cash Sac déchiré 9,950 FCFA');
});

t.test('the credit note closes with the amount given back in words, in French and in English', async (t) => {
  t.match(printed.fr, 'Arrêté le présent avoir à la somme de neuf mille neuf cent cinquante francs CFA.');
  t.match(printed.en, 'Amount of this credit note in words: nine thousand nine hundred fifty CFA francs.');
});

t.test('the credit note is one self-contained page, A4 or A3, as the invoice', async (t) => {
  const { shop, sale, refund: given } = printed;
  const reply = await api.request('GET', `/sales/${sale.id}/refunds/${given.id}/credit-note?format=a3`, { token: shop.cashier.token });
  t.equal(reply.status, 200, 'any shop user reads it');
  t.match(reply.headers.get('content-type'), 'text/html');
  t.equal(reply.headers.get('content-security-policy'), (await api.request('GET', `/sales/${sale.id}/invoice`, { token: shop.cashier.token })).headers.get('content-security-policy'));
  t.match(reply.body, /@page \{\s+size: A3 portrait;/);
});

t.test('a refund that is not of this sale, or not of this shop, has no credit note here: 404', async (t) => {
  const { shop, sale, refund: given } = printed;
  const other = await smallSale(shop);
  const otherRefund = await refund(shop.manager.token, other, [[other.items[0], 1]]);
  const get = (saleId: string, refundId: string, token = shop.cashier.token) => api.request('GET', `/sales/${saleId}/refunds/${refundId}/credit-note`, { token });
  expectError(t, await get(sale.id, otherRefund.id), 404, NOT_FOUND, 'another sale\'s refund');
  expectError(t, await get(other.id, given.id), 404, NOT_FOUND, 'this refund under another sale');
  expectError(t, await get(sale.id, randomUUID()), 404, NOT_FOUND, 'an unknown refund');
  const stranger = await staffedShop(api);
  expectError(t, await get(sale.id, given.id, stranger.owner.token), 404, NOT_FOUND, 'another shop\'s sale and refund');
});
