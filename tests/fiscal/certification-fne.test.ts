import { randomBytes } from 'node:crypto';
import t from 'tap';
import { FNE_API_KEY, FNE_NCC, startFakeFne, type FneCreditNote, type FneInvoice } from '../support/fake-fne.ts';
import { addStaff, createProduct, waitFor, type ShopFixture } from '../support/fixtures.ts';
import { startMailbox } from '../support/mailbox.ts';
import { expectConflict, expectError, expectInvalid, FORBIDDEN } from '../support/replies.ts';
import { startService } from '../support/service.ts';
import {
  allCertified,
  certificationOf,
  certificationRecords,
  enableCertification,
  refundByCard,
  sell,
  sellByCard,
  shopSellingAt,
  startCertifyingWorker,
} from './certification-fixtures.ts';

/**
 * Certified invoicing with Cote d'Ivoire's FNE (CONTRACT section 14), end to end: the API, a real
 * graphile-worker and the fake of the DGI's FNE API (tests/support/fake-fne.ts). FNE has no look-up: a
 * request whose answer was lost is never sent again on its own, the records behind it wait, and the
 * owner settles it; everything else is certified once, in chain order.
 */
const fake = await startFakeFne(t);
const api = await startService(t, { ...fake.env, FISCAL_TIMEOUT_MS: '1000', FISCAL_BACKOFF_MAX_MS: '300', FISCAL_ALERT_DELAY_MS: '0' });
const mailbox = await startMailbox(t);

interface FneShop extends ShopFixture {
  /** Sent as `establishment`: tells this shop's invoices apart at the fake. */
  establishment: string;
}

/** A shop selling at 18 % with FNE on. */
async function fneShop(): Promise<FneShop> {
  const owner = await shopSellingAt(api, 18);
  const establishment = `Magasin ${randomBytes(4).toString('hex')}`;
  await enableCertification(api, owner.token, { taxpayer_no: FNE_NCC, api_token: FNE_API_KEY, point_of_sale: 'Caisse 2', establishment });
  return { ...owner, establishment };
}

/** The invoices FNE certified for this shop, in FNE's order. */
const invoicesOf = (shop: FneShop): FneInvoice[] => fake.invoices.filter((invoice) => invoice.body.establishment === shop.establishment);
/** The credit notes FNE certified for this shop, in FNE's order. */
const creditNotesOf = (shop: FneShop): FneCreditNote[] => {
  const ids = new Set(invoicesOf(shop).map((invoice) => invoice.id));
  return fake.creditNotes.filter((note) => ids.has(note.invoiceId));
};

const saleOf = async (owner: ShopFixture, saleId: string) => (await api.request('GET', `/sales/${saleId}`, { token: owner.token })).body.data;

/** A record of the shop, as GET /fiscal/certifications lists it, by its sale (and kind). */
const recordOf = async (owner: ShopFixture, saleId: string, kind = 'sale') =>
  (await certificationRecords(api, owner.token)).find((record) => record.sale_id === saleId && record.kind === kind);

/** Waits until the sale's record waits for the owner (its answer lost), tried `attempts` times at least. */
const waitingForOwner = (owner: ShopFixture, saleId: string, attempts = 1) =>
  waitFor(async () => {
    const record = await recordOf(owner, saleId);
    return record?.error === 'answer_lost' && record.attempts >= attempts && record;
  }, 'the record waiting for the owner');

t.test('enabling FNE needs the NCC, the API key and the point of sale; 18, 9 and 0 % map to TVA, TVAB and TVAD, 19.25 % is refused', async (t) => {
  const owner = await shopSellingAt(api, 19.25);
  const put = (body: Record<string, unknown>) => api.request('PUT', '/fiscal/certification', { token: owner.token, body: { enabled: true, ...body } });
  const complete = { taxpayer_no: FNE_NCC, api_token: FNE_API_KEY, point_of_sale: 'Caisse 1' };

  expectInvalid(t, await put({ api_token: FNE_API_KEY, point_of_sale: 'Caisse 1' }), 'taxpayer_no', 'no NCC');
  expectInvalid(t, await put({ ...complete, taxpayer_no: '9606-123E' }), 'taxpayer_no', 'an NCC with a dash');
  expectInvalid(t, await put({ taxpayer_no: FNE_NCC, point_of_sale: 'Caisse 1' }), 'api_token', 'no API key');
  expectInvalid(t, await put({ taxpayer_no: FNE_NCC, api_token: FNE_API_KEY }), 'point_of_sale', 'no point of sale');
  const at1925 = await put(complete);
  expectInvalid(t, at1925, 'enabled', 'the shop sells at 19.25 %', 'unmapped_vat_rate');
  t.match(at1925.body.errors.enabled[0], /19\.25 %/);

  await api.request('PUT', '/shop', { token: owner.token, body: { default_vat_rate: 18 } });
  await createProduct(api, owner.token, { name: 'Attiéké', price_xaf: 1090, vat_rate: 9 });
  await createProduct(api, owner.token, { name: 'Riz local', price_xaf: 500, vat_rate: 0 });
  const on = await put(complete);
  t.equal(on.status, 200, JSON.stringify(on.body));
  t.match(on.body.data, { provider: 'fne', enabled: true, taxpayer_no: FNE_NCC, point_of_sale: 'Caisse 1', api_token_set: true });
  t.notOk(JSON.stringify(on.body).includes(FNE_API_KEY), 'the API key is never answered');
  t.same(
    [...on.body.data.tax_groups].sort((a, b) => Number(a.vat_rate) - Number(b.vat_rate)),
    [{ vat_rate: '0', tax_group: 'TVAD' }, { vat_rate: '9', tax_group: 'TVAB' }, { vat_rate: '18', tax_group: 'TVA' }],
  );

  const perfume = { name: 'Parfum importé', price_xaf: 11925, vat_rate: 19.25 };
  expectInvalid(t, await api.request('POST', '/products', { token: owner.token, body: perfume }), 'vat_rate', 'while it is on, a product at 19.25 % is refused', 'unmapped_vat_rate');
  t.equal((await api.request('PUT', '/fiscal/certification', { token: owner.token, body: { enabled: false } })).status, 200);
  await createProduct(api, owner.token, perfume);
  const again = await put({});
  expectInvalid(t, again, 'enabled', 'a product at 19.25 % refuses enabling again', 'unmapped_vat_rate');
  t.match(again.body.errors.enabled[0], /Parfum importé/);
});

t.test('a walk-in sale is certified as B2C, its reference the authority number and its verification URL the QR; a business customer\'s goes B2B with its NCC', async (t) => {
  await startCertifyingWorker(t, api, mailbox);
  const shop = await fneShop();
  const juice = await createProduct(api, shop.token, { name: 'Jus de gingembre', sku: 'GING-1', price_xaf: 1180, vat_rate: 18 }, 1000);
  const attieke = await createProduct(api, shop.token, { name: 'Attiéké', sku: 'ATT-1', price_xaf: 1090, vat_rate: 9 }, 1000);
  const rice = await createProduct(api, shop.token, { name: 'Riz local', price_xaf: 500, vat_rate: 0 }, 1000);

  const reply = await sell(api, shop.token, [{ product_id: juice.id, quantity: 2 }, { product_id: attieke.id, quantity: 1 }, { product_id: rice.id, quantity: 3 }]);
  t.equal(reply.status, 201);
  t.equal(reply.body.data.certification.status, 'pending', 'the sale is recorded without waiting for FNE');
  const sale = await waitFor(async () => {
    const data = await saleOf(shop, reply.body.data.id);
    return data.certification.status === 'certified' && data;
  }, 'the sale certified');
  t.equal(invoicesOf(shop).length, 1);
  const invoice = invoicesOf(shop)[0]!;
  t.match(sale.certification, { authority_no: invoice.reference, qr: invoice.token, signature: invoice.token.split('/').at(-1), error: null });
  t.match(invoice.reference, new RegExp(`^${FNE_NCC}\\d{11}$`));
  t.match(invoice.token, /\/fr\/verification\/[0-9a-f-]{36}$/);
  t.match(invoice.body, {
    invoiceType: 'sale',
    paymentMethod: 'cash',
    template: 'B2C',
    clientCompanyName: 'Client comptoir',
    pointOfSale: 'Caisse 2',
    establishment: shop.establishment,
    items: [
      { taxes: ['TVA'], reference: 'GING-1', description: 'Jus de gingembre', quantity: 2, amount: 1000, discount: 0 },
      { taxes: ['TVAB'], reference: 'ATT-1', description: 'Attiéké', quantity: 1, amount: 1000, discount: 0 },
      { taxes: ['TVAD'], description: 'Riz local', quantity: 3, amount: 500, discount: 0 },
    ],
  });
  t.notOk('clientNcc' in invoice.body, 'no NCC for a walk-in customer');
  t.equal(invoice.amount, sale.total_xaf, 'FNE\'s total is the sale\'s');
  t.equal(invoice.vatAmount, sale.vat_xaf);

  const customer = await api.request('POST', '/customers', {
    token: shop.token,
    body: { name: 'SARL Kouassi & Fils', tax_id: '1904567K', phone: '+2250701020304', email: 'compta@kouassi.ci' },
  });
  t.equal(customer.status, 201, JSON.stringify(customer.body));
  const business = (await sellByCard(api, shop.token, [{ product_id: juice.id, quantity: 5 }], { customer_id: customer.body.data.id })).body.data;
  const certified = await waitFor(async () => {
    const certification = await certificationOf(api, shop.token, business.id);
    return certification.status === 'certified' && certification;
  }, 'the B2B sale certified');
  t.equal(invoicesOf(shop).length, 2);
  const b2b = invoicesOf(shop)[1]!;
  t.match(b2b.body, {
    template: 'B2B',
    clientNcc: '1904567K',
    clientCompanyName: 'SARL Kouassi & Fils',
    clientPhone: '+2250701020304',
    clientEmail: 'compta@kouassi.ci',
    paymentMethod: 'card',
    items: [{ taxes: ['TVA'], quantity: 5, amount: 1000 }],
  });
  t.equal(certified.authority_no, b2b.reference);
  t.equal(b2b.amount, 5900);
});

t.test('a refund is certified through FNE\'s refund of the sale\'s invoice, naming FNE\'s ids of the lines given back', async (t) => {
  await startCertifyingWorker(t, api, mailbox);
  const shop = await fneShop();
  const juice = await createProduct(api, shop.token, { name: 'Jus de bissap', price_xaf: 1180, vat_rate: 18 }, 1000);
  const rice = await createProduct(api, shop.token, { name: 'Riz local', price_xaf: 500, vat_rate: 0 }, 1000);
  const sold = (await sellByCard(api, shop.token, [{ product_id: juice.id, quantity: 2 }, { product_id: rice.id, quantity: 4 }])).body.data;
  const refunded = await refundByCard(api, shop.token, sold, 1, 3);
  t.equal(refunded.refunds[0].certification.status, 'pending');

  const sale = await waitFor(async () => {
    const data = await saleOf(shop, sold.id);
    return data.refunds[0].certification.status === 'certified' && data;
  }, 'the refund certified');
  const [invoice] = invoicesOf(shop);
  t.equal(invoicesOf(shop).length, 1, 'the refund is no new invoice');
  t.equal(creditNotesOf(shop).length, 1);
  const note = creditNotesOf(shop)[0]!;
  t.equal(note.invoiceId, invoice!.id, 'refunds the sale\'s invoice');
  t.same(note.items, [{ id: invoice!.items[1]!.id, quantity: 3 }], 'by FNE\'s id of the rice line');
  t.match(sale.refunds[0].certification, {
    status: 'certified',
    authority_no: note.reference,
    qr: note.token,
    original_authority_no: invoice!.reference,
  });
  t.match(note.reference, new RegExp(`^A${FNE_NCC}\\d{10}$`));
});

t.test('while FNE is down or answers 503, the records wait behind the first, then are certified in chain order, each once', async (t) => {
  await startCertifyingWorker(t, api, mailbox);
  const shop = await fneShop();
  const juice = await createProduct(api, shop.token, { name: 'Jus de passion', price_xaf: 1180, vat_rate: 18 }, 1000);
  const signs = fake.calls('sign');
  const refunds = fake.calls('refund');
  await fake.setDown(true);

  const sales: any[] = [];
  for (let i = 0; i < 8; i++) {
    const reply = i % 3 === 0 ? await sellByCard(api, shop.token, [{ product_id: juice.id, quantity: 1 + i }]) : await sell(api, shop.token, [{ product_id: juice.id, quantity: 1 + i }]);
    t.equal(reply.status, 201, `sale ${i + 1} recorded while FNE is down`);
    t.equal(reply.body.data.certification.status, 'pending');
    sales.push(reply.body.data);
  }
  await refundByCard(api, shop.token, sales[0], 0, 1);
  t.equal((await api.request('POST', `/sales/${sales[3].id}/void`, { token: shop.token, body: { reason: 'Erreur de caisse' } })).status, 200);

  await waitFor(async () => (await certificationRecords(api, shop.token))[0]?.attempts >= 3, 'three tries of the first record', 20_000);
  const waiting = await certificationRecords(api, shop.token);
  t.equal(waiting.length, 10, '8 sales, a refund and a void');
  t.match(waiting[0], { sale_id: sales[0].id, status: 'pending', error: 'authority_unreachable' });
  t.ok(waiting[0].next_attempt_at, 'its next try is planned');
  t.ok(waiting.slice(1).every((record) => record.status === 'pending' && record.attempts === 0), 'the records behind it are not tried');

  // Up again, but its endpoint not available twice: FNE documents it as not processed.
  fake.failNext('sign', 503, 2);
  await fake.setDown(false);
  const records = await allCertified(api, shop.token, 10);
  t.equal(fake.calls('sign') - signs, 8 + 2, 'each sale signed once, besides the two 503s');
  t.equal(fake.calls('refund') - refunds, 2, 'the refund and the void once each');
  const sold = records.filter((record) => record.kind === 'sale');
  const credited = records.filter((record) => record.kind !== 'sale');
  t.same(invoicesOf(shop).map((invoice) => invoice.reference), sold.map((record) => record.authority_no), 'the sales signed in chain order');
  t.same(creditNotesOf(shop).map((note) => note.reference), credited.map((record) => record.authority_no), 'the credit notes in chain order');
  t.same(credited.map((record) => record.kind), ['refund', 'void']);
  t.ok(records.slice(1).every((record) => record.attempts === 1), 'each record behind the first went once');
  t.ok(records[0].attempts >= 6, `the first tried while FNE was down and answered 503 (${records[0].attempts} tries)`);
  const voidNote = creditNotesOf(shop)[1]!;
  t.equal(voidNote.invoiceId, invoicesOf(shop)[3]!.id, 'the void refunds its sale\'s invoice');
  t.same(voidNote.items, invoicesOf(shop)[3]!.items.map((item) => ({ id: item.id, quantity: item.quantity })), 'in full');
});

t.test('a lost answer waits for the owner, nothing behind it is sent, the owner is e-mailed, and settling it with what FNE kept lets the rest go, each once', async (t) => {
  await startCertifyingWorker(t, api, mailbox);
  const shop = await fneShop();
  const juice = await createProduct(api, shop.token, { name: 'Jus de tamarin', price_xaf: 1180, vat_rate: 18 }, 1000);
  const signs = fake.calls('sign');
  fake.failNext('sign', 'keep-and-hang');
  const lostSale = (await sell(api, shop.token, [{ product_id: juice.id, quantity: 1 }])).body.data;
  await waitingForOwner(shop, lostSale.id);
  const behind = [
    (await sell(api, shop.token, [{ product_id: juice.id, quantity: 2 }])).body.data,
    (await sell(api, shop.token, [{ product_id: juice.id, quantity: 3 }])).body.data,
  ];

  // Several tries later, FNE has still been asked once.
  const lost = await waitingForOwner(shop, lostSale.id, 4);
  t.match(lost, { status: 'pending', error: 'answer_lost', error_message: /settle it by hand/ });
  t.equal(fake.calls('sign') - signs, 1, 'sent once, never again on its own');
  t.equal(invoicesOf(shop).length, 1, 'FNE certified it');
  for (const sale of behind) t.match(await recordOf(shop, sale.id), { status: 'pending', attempts: 0 }, 'the records behind it wait unsent');
  t.match(await certificationOf(api, shop.token, lostSale.id), { status: 'pending', error: 'answer_lost' });
  t.match((await api.request('GET', '/fiscal/certification', { token: shop.token })).body.data.counts, { pending: 3, waiting_for_owner: 1 });

  const mail = await mailbox.next(shop.email);
  t.match(mail.subject, /non certifié/);
  t.match(mail.text, new RegExp(`Ticket n° ${lostSale.receipt_no} : Envoyé, mais la réponse de l'administration s'est perdue`));

  const kept = invoicesOf(shop)[0]!;
  const settle = (body: Record<string, unknown>) => api.request('POST', `/fiscal/certifications/${lost.chain_no}/settle`, { token: shop.token, body });
  expectInvalid(t, await settle({ found: true, authority_no: kept.reference }), 'qr', 'found needs the QR');
  expectInvalid(t, await settle({ found: true, qr: kept.token }), 'authority_no', 'and the number');
  const settled = await settle({ found: true, authority_no: kept.reference, qr: kept.token });
  t.equal(settled.status, 200);
  t.match(settled.body.data, { chain_no: lost.chain_no, status: 'certified', authority_no: kept.reference, qr: kept.token, error: null });
  t.match(await certificationOf(api, shop.token, lostSale.id), { status: 'certified', authority_no: kept.reference, qr: kept.token });

  const records = await allCertified(api, shop.token, 3);
  t.equal(fake.calls('sign') - signs, 3, 'the records behind it sent once each');
  t.same(invoicesOf(shop).map((invoice) => invoice.reference), records.map((record) => record.authority_no), 'one invoice per record, in chain order');
});

t.test('an owner\'s "not found" sends a lost record again: certified once when FNE never had it', async (t) => {
  await startCertifyingWorker(t, api, mailbox);
  const shop = await fneShop();
  const juice = await createProduct(api, shop.token, { name: 'Jus de baobab', price_xaf: 1180, vat_rate: 18 }, 1000);
  const signs = fake.calls('sign');
  // The request never reaches FNE's processing and no answer comes: from here, a lost answer like any other.
  fake.failNext('sign', 'hang');
  const sale = (await sell(api, shop.token, [{ product_id: juice.id, quantity: 4 }])).body.data;
  const lost = await waitingForOwner(shop, sale.id, 2);
  t.equal(invoicesOf(shop).length, 0, 'FNE has nothing');
  t.equal(fake.calls('sign') - signs, 1);

  const settled = await api.request('POST', `/fiscal/certifications/${lost.chain_no}/settle`, { token: shop.token, body: { found: false } });
  t.equal(settled.status, 200);
  t.match(settled.body.data, { status: 'pending', error: null });
  const certification = await waitFor(async () => {
    const current = await certificationOf(api, shop.token, sale.id);
    return current.status === 'certified' && current;
  }, 'the record sent again and certified');
  t.equal(fake.calls('sign') - signs, 2, 'sent once more');
  t.equal(invoicesOf(shop).length, 1, 'FNE holds one invoice for it');
  t.equal(certification.authority_no, invoicesOf(shop)[0]!.reference);
});

t.test('only a record waiting for the owner can be settled (409 not_waiting_for_owner), and only by an owner', async (t) => {
  await startCertifyingWorker(t, api, mailbox);
  const shop = await fneShop();
  const cashier = await addStaff(api, shop, 'cashier');
  const manager = await addStaff(api, shop, 'manager');
  const juice = await createProduct(api, shop.token, { name: 'Jus de corossol', price_xaf: 1180, vat_rate: 18 }, 1000);
  const settle = (chainNo: number, token: string, body: Record<string, unknown> = { found: false }) =>
    api.request('POST', `/fiscal/certifications/${chainNo}/settle`, { token, body });

  await fake.setDown(true);
  const sale = (await sell(api, shop.token, [{ product_id: juice.id, quantity: 1 }])).body.data;
  const unreachable = await waitFor(async () => {
    const record = await recordOf(shop, sale.id);
    return record?.error === 'authority_unreachable' && record;
  }, 'the record waiting for FNE');
  expectConflict(t, await settle(unreachable.chain_no, shop.token), 'not_waiting_for_owner', 'a record FNE did not take');
  expectConflict(t, await settle(unreachable.chain_no, shop.token, { found: true, authority_no: 'X', qr: 'Y' }), 'not_waiting_for_owner', 'nor marked found');
  await fake.setDown(false);

  await waitFor(async () => (await certificationOf(api, shop.token, sale.id)).status === 'certified', 'the sale certified');
  expectConflict(t, await settle(unreachable.chain_no, shop.token), 'not_waiting_for_owner', 'a certified record');
  t.match(await certificationOf(api, shop.token, sale.id), { status: 'certified', authority_no: invoicesOf(shop)[0]!.reference }, 'left as it was');

  expectError(t, await settle(unreachable.chain_no, cashier.token), 403, FORBIDDEN, 'a cashier');
  expectError(t, await settle(unreachable.chain_no, manager.token), 403, FORBIDDEN, 'a manager');
});
