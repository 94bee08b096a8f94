import t, { type Test } from 'tap';
import { createProduct, registerShop, staffedShop } from '../support/fixtures.ts';
import { expectConflict, expectInvalid } from '../support/replies.ts';
import { startService, type Reply } from '../support/service.ts';
import {
  addDays,
  cash,
  convert,
  convertQuote,
  createCustomer,
  createPromotion,
  createQuote,
  currentShift,
  deleteQuote,
  expectLedgerInvariants,
  freeLine,
  mark,
  markQuote,
  movements,
  onHand,
  openShift,
  postings,
  productWithVariants,
  putQuote,
  readCustomer,
  readQuote,
  readSale,
  receiptJobs,
  receiptNumbers,
  saleCount,
  saleJournal,
  sell,
  shopDay,
  vatOf,
} from './quote-fixtures.ts';

const api = await startService(t);

/** The priced figures of a line, which a quote and the sale it became must share. */
const figures = (line: any) => [
  line.product_id, line.variant_id, line.name, line.quantity, line.unit_price_xaf, line.discount_xaf, line.promotion_id, line.promotion_discount_xaf,
  line.vat_rate, line.vat_xaf, line.total_xaf,
];
const TOTALS = ['subtotal_xaf', 'discount_xaf', 'vat_xaf', 'total_xaf'] as const;

/** The sale carries the quote's lines and totals exactly. */
function expectQuotePrices(t: Test, sale: any, quote: any, what = ''): void {
  const label = what ? `${what}: ` : '';
  t.strictSame(sale.items.map(figures), quote.items.map(figures), `${label}the sale's lines are the quote's`);
  for (const key of TOTALS) t.equal(sale[key], quote[key], `${label}${key} as quoted`);
  t.strictSame(sale.vat_breakdown, quote.vat_breakdown, `${label}the VAT breakdown as quoted`);
}

/** A refused conversion: the quote reads exactly as before, and the shop has no more sales than before. */
async function expectUntouched(t: Test, token: string, quote: any, shopId: string, sales: number, what = ''): Promise<void> {
  const label = what ? `${what}: ` : '';
  t.strictSame(await readQuote(api, token, quote.id), quote, `${label}the quote is as it was`);
  t.equal(await saleCount(api, shopId), sales, `${label}no sale recorded`);
}

t.test('converting raises a real sale at the quote\'s figures: 201 {quote, sale}, the sale names its quote and the quote its sale', async (t) => {
  const { owner, manager, cashier } = await staffedShop(api);
  const soap = await createProduct(api, owner.token, { name: 'Savon', price_xaf: 1500, vat_rate: 19.25 }, 10);
  const promotion = await createPromotion(api, manager.token, { kind: 'percent', value: 10, product_ids: [soap.id] });
  const customer = await createCustomer(api, owner.token, { name: 'Hôtel du Wouri', email: 'reservations@hotel-wouri.cm' });
  const quote = await createQuote(api, cashier.token, {
    customer_id: customer.id,
    items: [{ product_id: soap.id, quantity: 2, discount_xaf: 100 }, freeLine(500, { name: 'Livraison', vat_rate: 19.25 })],
  });
  t.match(quote.items[0], { promotion_id: promotion.id, promotion_discount_xaf: 290 }, 'priced with the promotion');

  const reply = await convertQuote(api, cashier.token, quote.id, { payments: cash(10_000) });
  t.equal(reply.status, 201, JSON.stringify(reply.body));
  t.strictSame(Object.keys(reply.body), ['data']);
  t.strictSame(Object.keys(reply.body.data).sort(), ['quote', 'sale']);
  const { quote: converted, sale } = reply.body.data;
  t.match(sale, { quote_id: quote.id, status: 'completed', receipt_no: 1, customer_id: customer.id, cashier_id: cashier.user.id, paid_xaf: 10_000, credit_xaf: 0 });
  t.equal(sale.change_xaf, 10_000 - quote.total_xaf, 'change from cash');
  expectQuotePrices(t, sale, quote);
  t.match(converted, { id: quote.id, status: 'converted', sale_id: sale.id, quote_no: quote.quote_no });
  t.ok(typeof converted.converted_at === 'string' && converted.converted_at.endsWith('Z') && !Number.isNaN(Date.parse(converted.converted_at)), 'converted_at is ISO-8601 UTC');
  const { status, sale_id, converted_at, updated_at, ...rest } = converted;
  const { status: _s, sale_id: _i, converted_at: _c, updated_at: _u, ...before } = quote;
  t.strictSame(rest, before, 'the quote is otherwise as it was');
  t.strictSame(await readQuote(api, owner.token, quote.id), converted, 'GET /quotes/{id} answers the converted quote');
  t.strictSame(await readSale(api, owner.token, sale.id), sale, 'GET /sales/{id} answers the sale');
  t.equal((await receiptJobs(api, sale.id)).length, 1, 'the customer\'s e-mailed receipt is queued, as for any sale');
  const listed = await api.request('GET', '/sales', { token: owner.token });
  t.strictSame(listed.body.data.map((s: any) => [s.id, s.quote_id]), [[sale.id, quote.id]], 'GET /sales lists it with its quote_id');
  t.equal((await sell(api, owner.token, { items: [freeLine(100)], payments: cash(100) })).quote_id, null, 'a sale made without a quote has no quote_id');
});

t.test('the sale keeps the quote\'s price and VAT rate though the catalogue changed since', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  const oil = await createProduct(api, owner.token, { name: 'Huile 5 L', price_xaf: 6000, vat_rate: 19.25 }, 10);
  const quote = await createQuote(api, cashier.token, { items: [{ product_id: oil.id, quantity: 3 }] });
  const changed = await api.request('PUT', `/products/${oil.id}`, { token: owner.token, body: { price_xaf: 7500, vat_rate: 5 } });
  t.equal(changed.status, 200);
  const { sale } = await convert(api, cashier.token, quote.id, { payments: cash(18_000) });
  t.match(sale.items[0], { unit_price_xaf: 6000, vat_rate: 19.25, total_xaf: 18_000, vat_xaf: vatOf(18_000, 19.25) });
  expectQuotePrices(t, sale, quote);
  t.equal(sale.change_xaf, 0);
});

t.test('the sale keeps the quote\'s promotion though it ended since, and takes none that began since', async (t) => {
  const { owner, manager, cashier } = await staffedShop(api);
  const rice = await createProduct(api, owner.token, { price_xaf: 1000, vat_rate: 0 }, 20);
  const flour = await createProduct(api, owner.token, { price_xaf: 800, vat_rate: 0 }, 20);
  const ended = await createPromotion(api, manager.token, { kind: 'percent', value: 20, product_ids: [rice.id] });
  const quote = await createQuote(api, cashier.token, { items: [{ product_id: rice.id, quantity: 5 }, { product_id: flour.id, quantity: 5 }] });
  t.match(quote, { total_xaf: 4000 + 4000, discount_xaf: 1000 });
  t.equal((await api.request('DELETE', `/promotions/${ended.id}`, { token: manager.token })).status, 204, 'the promotion ends');
  await createPromotion(api, manager.token, { kind: 'percent', value: 50, product_ids: [flour.id] });
  const { sale } = await convert(api, cashier.token, quote.id, { payments: cash(8000) });
  t.match(sale.items, [{ promotion_id: ended.id, promotion_discount_xaf: 1000, total_xaf: 4000 }, { promotion_id: null, promotion_discount_xaf: 0, total_xaf: 4000 }]);
  expectQuotePrices(t, sale, quote);
});

t.test('a cashier converts a quote a manager priced away from the catalogue and beyond the cashier\'s discount cap (no 403)', async (t) => {
  const { owner, manager, cashier } = await staffedShop(api);
  const product = await createProduct(api, owner.token, { price_xaf: 1000, vat_rate: 19.25 }, 10);
  const quote = await createQuote(api, manager.token, { items: [{ product_id: product.id, quantity: 4, unit_price_xaf: 800, vat_rate: 0, discount_xaf: 1200 }] });
  t.equal(quote.total_xaf, 2000);
  const reply = await convertQuote(api, cashier.token, quote.id, { payments: cash(2000) });
  t.equal(reply.status, 201, JSON.stringify(reply.body));
  t.match(reply.body.data.sale.items[0], { unit_price_xaf: 800, vat_rate: 0, discount_xaf: 1200, total_xaf: 2000, vat_xaf: 0 });
  t.equal(reply.body.data.sale.cashier_id, cashier.user.id, 'the sale is the cashier\'s');
});

t.test('the sale takes its stock: sale movements, on-hand down, a variant\'s too; the ledger holds', async (t) => {
  const owner = await registerShop(api);
  const tracked = await createProduct(api, owner.token, { price_xaf: 500 }, 10);
  const untracked = await createProduct(api, owner.token, { price_xaf: 200, tracked: false });
  const { product: shirt, variants } = await productWithVariants(api, owner.token, { M: { price_xaf: 2000, on_hand: 4 }, L: { price_xaf: 2000, on_hand: 2 } });
  const quote = await createQuote(api, owner.token, {
    items: [{ product_id: tracked.id, quantity: 2.5 }, { product_id: untracked.id, quantity: 3 }, { product_id: shirt.id, variant_id: variants.M.id, quantity: 1 }],
  });
  t.equal(await onHand(api, tracked.id), 10, 'the quote took nothing');
  const { sale } = await convert(api, owner.token, quote.id, { payments: cash(100_000) });
  t.equal(await onHand(api, tracked.id), 7.5);
  t.match((await movements(api, tracked.id)).at(-1), { type: 'sale', quantity: -2.5, on_hand_after: 7.5, source_type: 'sale', source_id: sale.id });
  t.equal(await onHand(api, shirt.id, variants.M.id), 3);
  t.equal(await onHand(api, shirt.id, variants.L.id), 2, 'the other variant is untouched');
  t.strictSame(await movements(api, untracked.id), [], 'no movement for an untracked product');
  await expectLedgerInvariants(t, api, owner.shop.id);
});

t.test('the sale posts its journal entry and goes into the converter\'s open shift, as POST /sales does', async (t) => {
  const { owner, manager, cashier } = await staffedShop(api);
  const product = await createProduct(api, owner.token, { price_xaf: 1000, cost_xaf: 600, vat_rate: 19.25 }, 10);
  const quote = await createQuote(api, manager.token, { items: [{ product_id: product.id, quantity: 2 }] });
  const shift = await openShift(api, cashier.token);
  const { sale } = await convert(api, cashier.token, quote.id, { payments: cash(5000) });
  t.equal(sale.shift_id, shift.id, 'in the cashier\'s drawer');
  const lines = await saleJournal(api, sale.id);
  t.equal(new Set(lines.map((l) => l.entry_id)).size, 1, 'one entry');
  t.strictSame(postings(lines, 'sale'), { '31': [0, 1200], '4431': [0, 323], '571': [2000, 0], '6031': [1200, 0], '701': [0, 1677] }, 'cash net of change, VAT, goods at cost');
  t.equal((await currentShift(api, cashier.token)).totals.expected_cash_xaf, 2000, 'the drawer expects the cash kept');
  await expectLedgerInvariants(t, api, owner.shop.id);
});

t.test('receipt numbers are the sales\' own: a conversion takes the next one, without gap', async (t) => {
  const owner = await registerShop(api);
  t.equal((await sell(api, owner.token, { items: [freeLine(100)], payments: cash(100) })).receipt_no, 1);
  const quote = await createQuote(api, owner.token, { items: [freeLine(250)] });
  t.equal((await convert(api, owner.token, quote.id, { payments: cash(250) })).sale.receipt_no, 2);
  t.equal((await sell(api, owner.token, { items: [freeLine(100)], payments: cash(100) })).receipt_no, 3);
  t.strictSame(await receiptNumbers(api, owner.shop.id), [1, 2, 3]);
});

t.test('payments follow the sale\'s rules: change from cash only, methods and amounts validated, the quote untouched when refused', async (t) => {
  const owner = await registerShop(api);
  const quote = await createQuote(api, owner.token, { items: [freeLine(1000)] });
  expectInvalid(t, await convertQuote(api, owner.token, quote.id, { payments: [{ method: 'card', amount_xaf: 1500 }] }), 'payments', 'a card overpays', 'change_without_cash');
  expectInvalid(t, await convertQuote(api, owner.token, quote.id, { payments: [{ method: 'cheque', amount_xaf: 1000 }] }), 'payments.0.method', 'an unknown method');
  expectInvalid(t, await convertQuote(api, owner.token, quote.id, { payments: [{ method: 'cash', amount_xaf: -1 }] }), 'payments.0.amount_xaf', 'a negative amount');
  expectInvalid(t, await convertQuote(api, owner.token, quote.id, { payments: { method: 'cash', amount_xaf: 1000 } }), 'payments', 'not a list');
  await expectUntouched(t, owner.token, quote, owner.shop.id, 0);
  const { sale } = await convert(api, owner.token, quote.id, { payments: [{ method: 'card', amount_xaf: 600, reference: 'TPE-1' }, { method: 'cash', amount_xaf: 1000 }] });
  t.match(sale, { total_xaf: 1000, paid_xaf: 1600, change_xaf: 600 });
  t.equal(sale.payments.find((p: any) => p.method === 'card').reference, 'TPE-1');
});

t.test('without payments and without a customer: 422 payment_insufficient on payments, and the quote stays open', async (t) => {
  const owner = await registerShop(api);
  const quote = await createQuote(api, owner.token, { items: [freeLine(1000)] });
  expectInvalid(t, await convertQuote(api, owner.token, quote.id, {}), 'payments', 'no payments', 'payment_insufficient');
  expectInvalid(t, await convertQuote(api, owner.token, quote.id, { payments: [] }), 'payments', 'an empty list', 'payment_insufficient');
  expectInvalid(t, await convertQuote(api, owner.token, quote.id, { payments: cash(999) }), 'payments', '1 XAF short', 'payment_insufficient');
  expectInvalid(t, await api.request('POST', `/quotes/${quote.id}/convert`, { token: owner.token }), 'payments', 'no body at all', 'payment_insufficient');
  await expectUntouched(t, owner.token, quote, owner.shop.id, 0);
  t.strictSame(await receiptNumbers(api, owner.shop.id), [], 'no receipt number taken');
  t.equal((await convert(api, owner.token, quote.id, { payments: cash(1000) })).sale.receipt_no, 1, 'paid, it converts with the first number');
});

t.test('a shortfall goes on the quote\'s customer\'s account within its ceiling; beyond it 422 credit_limit_exceeded and the quote stays open', async (t) => {
  const owner = await registerShop(api);
  const customer = await createCustomer(api, owner.token, { credit_ceiling_xaf: 5000 });
  const first = await createQuote(api, owner.token, { customer_id: customer.id, items: [freeLine(3000)] });
  const { sale } = await convert(api, owner.token, first.id, { payments: cash(1000) });
  t.match(sale, { customer_id: customer.id, total_xaf: 3000, paid_xaf: 1000, credit_xaf: 2000, change_xaf: 0, points_earned: 10 });
  t.strictSame(sale.payments.map((p: any) => [p.kind, p.method, p.amount_xaf]).sort(), [['payment', 'cash', 1000], ['payment', 'credit', 2000]]);
  t.match(await readCustomer(api, owner.token, customer.id), { balance_xaf: 2000, points: 10 });
  t.strictSame(postings(await saleJournal(api, sale.id), 'sale'), { '411': [2000, 0], '571': [1000, 0], '701': [0, 3000] });

  const second = await createQuote(api, owner.token, { customer_id: customer.id, items: [freeLine(3001)] });
  expectInvalid(t, await convertQuote(api, owner.token, second.id, {}), 'customer_id', '1 XAF beyond the ceiling', 'credit_limit_exceeded');
  await expectUntouched(t, owner.token, second, owner.shop.id, 1);
  t.equal((await readCustomer(api, owner.token, customer.id)).balance_xaf, 2000, 'the balance is unchanged');
  const toCeiling = await convert(api, owner.token, second.id, { payments: cash(1) });
  t.equal(toCeiling.sale.credit_xaf, 3000, 'up to the ceiling exactly');
  t.equal((await readCustomer(api, owner.token, customer.id)).balance_xaf, 5000);
});

t.test('stock short: 422 insufficient_stock, nothing recorded, no receipt number taken, the quote stays open and converts once restocked', async (t) => {
  const owner = await registerShop(api);
  const cement = await createProduct(api, owner.token, { price_xaf: 5000 }, 2);
  const quote = await createQuote(api, owner.token, { items: [freeLine(100), { product_id: cement.id, quantity: 5 }] });
  const before = await movements(api, cement.id);
  expectInvalid(t, await convertQuote(api, owner.token, quote.id, { payments: cash(100_000) }), 'items.1.quantity', 'five bags, two on hand', 'insufficient_stock');
  await expectUntouched(t, owner.token, quote, owner.shop.id, 0);
  t.equal(await onHand(api, cement.id), 2);
  t.strictSame(await movements(api, cement.id), before, 'no movement');
  t.strictSame(await receiptNumbers(api, owner.shop.id), []);
  const restocked = await api.request('POST', `/products/${cement.id}/adjust`, { token: owner.token, body: { new_quantity: 10, reason: 'Livraison' } });
  t.equal(restocked.status, 200);
  const { sale } = await convert(api, owner.token, quote.id, { payments: cash(25_100) });
  t.equal(sale.receipt_no, 1, 'the first receipt number, never used by the refusal');
  t.equal(await onHand(api, cement.id), 5);
  await expectLedgerInvariants(t, api, owner.shop.id);
});

t.test('a quote past its valid_until or marked expired is a 409 quote_expired, and stays as it was', async (t) => {
  const owner = await registerShop(api);
  const today = await shopDay(api, owner.shop.id);
  const lapsed = await createQuote(api, owner.token, { valid_until: addDays(today, -1), items: [freeLine(100)] });
  expectConflict(t, await convertQuote(api, owner.token, lapsed.id, { payments: cash(100) }), 'quote_expired', 'a draft past its date');
  await expectUntouched(t, owner.token, lapsed, owner.shop.id, 0, 'past its date');
  const sent = await createQuote(api, owner.token, { items: [freeLine(100)] });
  await mark(api, owner.token, sent.id, 'sent');
  await api.ownerSql`update quotes set valid_until = ${addDays(today, -1)}::date where id = ${sent.id}`;
  expectConflict(t, await convertQuote(api, owner.token, sent.id, { payments: cash(100) }), 'quote_expired', 'a sent quote past its date');
  const marked = await createQuote(api, owner.token, { items: [freeLine(100)] });
  const markedExpired = await mark(api, owner.token, marked.id, 'expired');
  expectConflict(t, await convertQuote(api, owner.token, marked.id, { payments: cash(100) }), 'quote_expired', 'marked expired, its date to come');
  await expectUntouched(t, owner.token, markedExpired, owner.shop.id, 0, 'marked expired');
  const lastDay = await createQuote(api, owner.token, { valid_until: today, items: [freeLine(100)] });
  t.equal((await convertQuote(api, owner.token, lastDay.id, { payments: cash(100) })).status, 201, 'valid until today: converted today');
  t.strictSame(await receiptNumbers(api, owner.shop.id), [1]);
});

t.test('a converted or declined quote is a 409 quote_closed', async (t) => {
  const owner = await registerShop(api);
  const product = await createProduct(api, owner.token, { price_xaf: 1000 }, 10);
  const quote = await createQuote(api, owner.token, { items: [{ product_id: product.id, quantity: 1 }] });
  const { quote: converted } = await convert(api, owner.token, quote.id, { payments: cash(1000) });
  expectConflict(t, await convertQuote(api, owner.token, quote.id, { payments: cash(1000) }), 'quote_closed', 'converted again');
  await expectUntouched(t, owner.token, converted, owner.shop.id, 1, 'converted');
  t.equal(await onHand(api, product.id), 9, 'the stock moved once');
  const declined = await mark(api, owner.token, (await createQuote(api, owner.token, { items: [freeLine(100)] })).id, 'declined');
  expectConflict(t, await convertQuote(api, owner.token, declined.id, { payments: cash(100) }), 'quote_closed', 'declined');
  await expectUntouched(t, owner.token, declined, owner.shop.id, 1, 'declined');
  const reopened = await mark(api, owner.token, declined.id, 'sent');
  t.equal(reopened.status, 'sent');
  t.equal((await convertQuote(api, owner.token, declined.id, { payments: cash(100) })).status, 201, 'a declined quote sent again converts');
});

t.test('two conversions of one quote at the same time: exactly one sale, the other a 409 quote_closed', async (t) => {
  const { owner, cashier } = await staffedShop(api);
  const product = await createProduct(api, owner.token, { price_xaf: 1000 }, 100);
  const rounds = 5;
  for (let round = 1; round <= rounds; round++) {
    const quote = await createQuote(api, owner.token, { items: [{ product_id: product.id, quantity: 2 }] });
    const replies: Reply[] = await Promise.all([
      convertQuote(api, owner.token, quote.id, { payments: cash(2000) }),
      convertQuote(api, cashier.token, quote.id, { payments: cash(2000) }),
    ]);
    const statuses = replies.map((reply) => reply.status).sort();
    t.strictSame(statuses, [201, 409], `round ${round}: one 201, one 409 (${JSON.stringify(replies.map((r) => r.body?.code ?? r.status))})`);
    const refused = replies.find((reply) => reply.status !== 201);
    if (refused?.status === 409) expectConflict(t, refused, 'quote_closed', `round ${round}`);
    const won = replies.find((reply) => reply.status === 201);
    t.equal((await readQuote(api, owner.token, quote.id)).sale_id, won?.body.data.sale.id, `round ${round}: the quote names the one sale`);
  }
  t.equal(await saleCount(api, owner.shop.id), rounds, 'one sale per quote');
  const listed = await api.request('GET', '/sales?limit=200', { token: owner.token });
  t.equal(listed.body.data.length, rounds, 'GET /sales agrees');
  t.equal(await onHand(api, product.id), 100 - 2 * rounds, 'the stock moved once per quote');
  t.strictSame(await receiptNumbers(api, owner.shop.id), [1, 2, 3, 4, 5], 'no receipt number lost');
  await expectLedgerInvariants(t, api, owner.shop.id);
});

t.test('a conversion racing a change, a status or a deletion of its quote never leaves a sale and a quote that disagree', async (t) => {
  const owner = await registerShop(api);
  const product = await createProduct(api, owner.token, { price_xaf: 1000, vat_rate: 0 }, 1000);
  const rounds = 3;
  let sales = 0;
  for (let round = 1; round <= rounds; round++) {
    // A change of lines: either it came first and the sale is at the new figures, or it is refused.
    const changed = await createQuote(api, owner.token, { items: [{ product_id: product.id, quantity: 1 }] });
    const [converted, put] = await Promise.all([
      convertQuote(api, owner.token, changed.id, { payments: cash(10_000) }),
      putQuote(api, owner.token, changed.id, { items: [{ product_id: product.id, quantity: 3 }] }),
    ]);
    t.equal(converted.status, 201, `round ${round}: the conversion went through (${JSON.stringify(converted.body?.code)})`);
    t.ok(put.status === 200 || (put.status === 409 && put.body.code === 'quote_closed'), `round ${round}: the change came first or was refused (${put.status} ${put.body?.code})`);
    const after = await readQuote(api, owner.token, changed.id);
    if (converted.status === 201) {
      sales++;
      t.equal(after.sale_id, converted.body.data.sale.id, `round ${round}: the quote names the sale`);
      expectQuotePrices(t, converted.body.data.sale, after, `round ${round}`);
    }

    // A status: either the conversion or the status wins, never both.
    const marked = await createQuote(api, owner.token, { items: [{ product_id: product.id, quantity: 1 }] });
    const [conversion, status] = await Promise.all([convertQuote(api, owner.token, marked.id, { payments: cash(1000) }), markQuote(api, owner.token, marked.id, 'declined')]);
    const outcome = `${conversion.status} ${conversion.body?.code ?? ''} / ${status.status} ${status.body?.code ?? ''}`;
    t.ok(
      (conversion.status === 201 && status.status === 409 && status.body.code === 'quote_closed') ||
        (conversion.status === 409 && conversion.body.code === 'quote_closed' && status.status === 200),
      `round ${round}: converted or declined, not both (${outcome})`,
    );
    if (conversion.status === 201) sales++;
    t.equal((await readQuote(api, owner.token, marked.id)).status, conversion.status === 201 ? 'converted' : 'declined', `round ${round}: the quote says which`);

    // A deletion: either the conversion or the deletion wins, never both.
    const deleted = await createQuote(api, owner.token, { items: [{ product_id: product.id, quantity: 1 }] });
    const [taken, removed] = await Promise.all([convertQuote(api, owner.token, deleted.id, { payments: cash(1000) }), deleteQuote(api, owner.token, deleted.id)]);
    const race = `${taken.status} ${taken.body?.code ?? ''} / ${removed.status} ${removed.body?.code ?? ''}`;
    t.ok(
      (taken.status === 201 && removed.status === 409 && removed.body.code === 'quote_closed') || (taken.status === 404 && removed.status === 204),
      `round ${round}: converted or deleted, not both (${race})`,
    );
    if (taken.status === 201) sales++;
    t.equal(await saleCount(api, owner.shop.id), sales, `round ${round}: one sale per conversion that succeeded`);
  }
  await expectLedgerInvariants(t, api, owner.shop.id);
});

t.test('a retry with the same Idempotency-Key answers the stored conversion and makes no second sale', async (t) => {
  const owner = await registerShop(api);
  const product = await createProduct(api, owner.token, { price_xaf: 1000 }, 10);
  const quote = await createQuote(api, owner.token, { items: [{ product_id: product.id, quantity: 3 }] });
  const body = { payments: cash(5000) };
  const headers = { 'idempotency-key': `devis-${crypto.randomUUID()}` };
  const first = await convertQuote(api, owner.token, quote.id, body, headers);
  t.equal(first.status, 201, JSON.stringify(first.body));
  const retry = await convertQuote(api, owner.token, quote.id, body, headers);
  t.equal(retry.status, 201, 'the stored status');
  t.equal(retry.headers.get('idempotent-replayed'), 'true');
  t.strictSame(retry.body, first.body, 'the stored answer');
  expectConflict(t, await convertQuote(api, owner.token, quote.id, { payments: cash(3000) }, headers), 'idempotency_conflict', 'the key with another body');
  expectConflict(t, await convertQuote(api, owner.token, quote.id, body, { 'idempotency-key': `devis-${crypto.randomUUID()}` }), 'quote_closed', 'another key');
  t.equal(await saleCount(api, owner.shop.id), 1, 'one sale');
  t.equal(await onHand(api, product.id), 7, 'the stock moved once');
  t.strictSame(await receiptNumbers(api, owner.shop.id), [1]);
});

t.test('two requests with one Idempotency-Key at the same time both answer the one conversion', async (t) => {
  const owner = await registerShop(api);
  const quote = await createQuote(api, owner.token, { items: [freeLine(700)] });
  const headers = { 'idempotency-key': `devis-${crypto.randomUUID()}` };
  const replies = await Promise.all([1, 2].map(() => convertQuote(api, owner.token, quote.id, { payments: cash(700) }, headers)));
  t.strictSame(replies.map((reply) => reply.status), [201, 201], JSON.stringify(replies.map((reply) => reply.body?.code ?? reply.status)));
  t.strictSame(replies[1]!.body, replies[0]!.body, 'the same answer');
  t.equal(await saleCount(api, owner.shop.id), 1);
});
