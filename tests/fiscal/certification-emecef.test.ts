import t from 'tap';
import { TEST_APP_KEY } from '../support/env.ts';
import { EMECEF_IFU, EMECEF_NIM, EMECEF_TOKEN, startFakeEmecef, type ConfirmedInvoice } from '../support/fake-emecef.ts';
import { createProduct, waitFor, type ShopFixture } from '../support/fixtures.ts';
import { startMailbox } from '../support/mailbox.ts';
import { launch } from '../support/processes.ts';
import { expectInvalid } from '../support/replies.ts';
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
 * Certified invoicing with Benin's e-MECeF (CONTRACT section 14), end to end: the API, a real
 * graphile-worker and the fake of the DGI's e-MCF (tests/support/fake-emecef.ts). A sale never waits
 * for e-MCF, each record is certified once and in chain order, a worker killed mid-delivery certifies
 * nothing twice, and what e-MCF refuses is listed for the owner, who is e-mailed about it.
 */
const fake = await startFakeEmecef(t);
const settings = { FISCAL_TIMEOUT_MS: '1000', FISCAL_BACKOFF_MAX_MS: '300', FISCAL_ALERT_DELAY_MS: '0' };
const api = await startService(t, { ...fake.env, ...settings });
const mailbox = await startMailbox(t);

const credentials = { taxpayer_no: EMECEF_IFU, api_token: EMECEF_TOKEN };

/** A shop selling at 18 % with e-MECeF on. */
async function emecefShop(): Promise<ShopFixture> {
  const owner = await shopSellingAt(api, 18);
  await enableCertification(api, owner.token, credentials);
  return owner;
}

/** What e-MCF confirmed for this shop (its owner is the operator of every record), in e-MCF's order. */
const confirmedFor = (owner: ShopFixture): ConfirmedInvoice[] => fake.confirmed.filter((invoice) => invoice.body.operator.id === owner.user.id);

const saleOf = async (owner: ShopFixture, saleId: string) => (await api.request('GET', `/sales/${saleId}`, { token: owner.token })).body.data;

/** The outbox row of a record, as the worker journals it. */
const outboxRow = async (owner: ShopFixture, refId: string) =>
  (await api.ownerSql<{ chain_no: string; status: string; state: Record<string, any>; error: string | null; attempts: number }[]>`
    select chain_no, status, state, error, attempts from fiscal_certifications where shop_id = ${owner.shop.id} and ref_id = ${refId}`)[0];

t.test('enabling e-MECeF is refused while the shop sells at 19.25 %, needs a 13-digit IFU and a token, and never answers the token', async (t) => {
  const owner = await shopSellingAt(api, 19.25);
  const soap = await createProduct(api, owner.token, { name: 'Savon de Marseille', price_xaf: 1190 });
  const put = (body: Record<string, unknown>) => api.request('PUT', '/fiscal/certification', { token: owner.token, body: { enabled: true, ...body } });

  expectInvalid(t, await put({ api_token: EMECEF_TOKEN }), 'taxpayer_no', 'no IFU');
  expectInvalid(t, await put({ taxpayer_no: '12345', api_token: EMECEF_TOKEN }), 'taxpayer_no', 'an IFU of 5 digits');
  expectInvalid(t, await put({ taxpayer_no: '999990000000A', api_token: EMECEF_TOKEN }), 'taxpayer_no', 'an IFU with a letter');
  expectInvalid(t, await put({ taxpayer_no: EMECEF_IFU }), 'api_token', 'no token');

  const at1925 = await put(credentials);
  expectInvalid(t, at1925, 'enabled', 'the shop sells at 19.25 %', 'unmapped_vat_rate');
  t.match(at1925.body.errors.enabled[0], /19\.25 %/, 'names the rate');
  t.match(at1925.body.errors.enabled[0], /Savon de Marseille/, 'names the product sold at it');

  await api.request('PUT', '/shop', { token: owner.token, body: { default_vat_rate: 18 } });
  const productLeft = await put(credentials);
  expectInvalid(t, productLeft, 'enabled', 'the default is 18 % but a product is still at 19.25 %', 'unmapped_vat_rate');
  t.match(productLeft.body.errors.enabled[0], /Savon de Marseille/);
  const [off] = await api.ownerSql`select 1 from fiscal_certification_settings where shop_id = ${owner.shop.id}`;
  t.notOk(off, 'nothing saved while refused');

  t.equal((await api.request('PUT', `/products/${soap.id}`, { token: owner.token, body: { vat_rate: 0 } })).status, 200);
  await createProduct(api, owner.token, { name: 'Jus d\'orange', price_xaf: 1180, vat_rate: 18 });
  const on = await put(credentials);
  t.equal(on.status, 200, JSON.stringify(on.body));
  t.match(on.body.data, { provider: 'emecef', enabled: true, taxpayer_no: EMECEF_IFU, api_token_set: true });
  t.notOk(JSON.stringify(on.body).includes(EMECEF_TOKEN), 'the token is never answered');

  const read = await api.request('GET', '/fiscal/certification', { token: owner.token });
  t.equal(read.status, 200);
  t.same(
    [...read.body.data.tax_groups].sort((a, b) => Number(a.vat_rate) - Number(b.vat_rate)),
    [{ vat_rate: '0', tax_group: 'A' }, { vat_rate: '18', tax_group: 'B' }],
    '0 % is group A (exempt), 18 % group B',
  );
  t.notOk(JSON.stringify(read.body).includes(EMECEF_TOKEN), 'nor read back');
});

t.test('a sale is certified end to end: it answers pending, then carries the code MECeF/DGI, its QR and signature, e-MCF holding it once with our items', async (t) => {
  await startCertifyingWorker(t, api, mailbox);
  const owner = await emecefShop();
  const juice = await createProduct(api, owner.token, { name: 'Jus d\'orange', sku: 'JUS-1L', price_xaf: 1800, vat_rate: 18 }, 1000);
  const milk = await createProduct(api, owner.token, { name: 'Lait 1/1 EX', sku: 'LAIT-1', price_xaf: 450, vat_rate: 0 }, 1000);
  const reply = await sell(api, owner.token, [{ product_id: juice.id, quantity: 2 }, { product_id: milk.id, quantity: 3 }]);
  t.equal(reply.status, 201);
  t.equal(reply.body.data.certification.status, 'pending', 'the sale is recorded without waiting for e-MCF');

  const sale = await waitFor(async () => {
    const data = await saleOf(owner, reply.body.data.id);
    return data.certification.status === 'certified' && data;
  }, 'the sale certified');
  const invoices = confirmedFor(owner);
  t.equal(invoices.length, 1, 'e-MCF confirmed one invoice');
  const invoice = invoices[0]!;
  t.match(sale.certification, {
    status: 'certified',
    authority_no: invoice.codeMECeFDGI,
    qr: invoice.qrCode,
    signature: `${EMECEF_NIM} ${invoice.counters} ${invoice.dateTime}`,
    error: null,
    original_authority_no: null,
  });
  t.match(invoice.codeMECeFDGI, /^[A-Z0-9]{4}(-[A-Z0-9]{4}){5}$/);
  t.ok(Math.abs(Date.parse(sale.certification.certified_at) - Date.now()) < 60_000, 'certified now, e-MCF\'s Benin time read right');
  t.match(invoice.body, {
    ifu: EMECEF_IFU,
    type: 'FV',
    items: [
      { code: 'JUS-1L', name: 'Jus d\'orange', price: 1800, quantity: 2, taxGroup: 'B' },
      { code: 'LAIT-1', name: 'Lait 1/1 EX', price: 450, quantity: 3, taxGroup: 'A' },
    ],
    payment: [{ name: 'ESPECES', amount: 4950 }],
  });
  t.equal(invoice.body.items.length, 2);
  t.equal(invoice.total, 4950, 'e-MCF\'s total is the sale\'s');
  t.equal(sale.total_xaf, 4950);
  t.same(fake.pending(), [], 'nothing left pending at e-MCF');
});

t.test('a refund is certified as a credit note (FA) naming the 24 characters of its sale\'s code MECeF/DGI', async (t) => {
  await startCertifyingWorker(t, api, mailbox);
  const owner = await emecefShop();
  const juice = await createProduct(api, owner.token, { name: 'Jus d\'ananas', price_xaf: 1500, vat_rate: 18 }, 1000);
  const sold = (await sellByCard(api, owner.token, [{ product_id: juice.id, quantity: 3 }])).body.data;
  const withRefund = await refundByCard(api, owner.token, sold, 0, 1);
  t.equal(withRefund.refunds[0].certification.status, 'pending');

  const sale = await waitFor(async () => {
    const data = await saleOf(owner, sold.id);
    return data.refunds[0]?.certification?.status === 'certified' && data;
  }, 'the refund certified');
  const [saleInvoice, creditNote] = confirmedFor(owner);
  t.equal(confirmedFor(owner).length, 2);
  t.equal(saleInvoice!.type, 'FV');
  t.equal(sale.certification.authority_no, saleInvoice!.codeMECeFDGI);
  t.equal(creditNote!.type, 'FA');
  t.equal(creditNote!.body.reference, saleInvoice!.codeMECeFDGI.replace(/-/g, ''), 'the FA names the sale\'s 24 characters');
  t.equal(creditNote!.body.reference.length, 24);
  t.match(creditNote!.body.items, [{ name: 'Jus d\'ananas', price: 1500, quantity: 1, taxGroup: 'B' }]);
  t.same(creditNote!.body.payment, [{ name: 'CARTEBANCAIRE', amount: 1500 }]);
  t.match(sale.refunds[0].certification, {
    status: 'certified',
    authority_no: creditNote!.codeMECeFDGI,
    qr: creditNote!.qrCode,
    original_authority_no: sale.certification.authority_no,
  });
});

t.test('a day of sales while e-MCF is down: each sale answers at once, the records wait in order, then each is certified once, in chain order', async (t) => {
  await startCertifyingWorker(t, api, mailbox);
  const owner = await emecefShop();
  const juice = await createProduct(api, owner.token, { name: 'Jus de bissap', price_xaf: 700, vat_rate: 18 }, 1000);
  const water = await createProduct(api, owner.token, { name: 'Eau minérale', price_xaf: 300, vat_rate: 0 }, 1000);
  const postsBefore = fake.calls('post');
  await fake.setDown(true);

  const sales: any[] = [];
  for (let i = 0; i < 12; i++) {
    const items = [{ product_id: juice.id, quantity: 1 + (i % 3) }, { product_id: water.id, quantity: 1 + (i % 2) }];
    const reply = i % 4 === 0 ? await sellByCard(api, owner.token, items) : await sell(api, owner.token, items);
    t.equal(reply.status, 201, `sale ${i + 1} recorded while e-MCF is down`);
    t.equal(reply.body.data.certification.status, 'pending');
    sales.push(reply.body.data);
  }
  await refundByCard(api, owner.token, sales[0], 0, 1);
  await refundByCard(api, owner.token, sales[4], 1, 1);
  t.equal((await api.request('POST', `/sales/${sales[8].id}/void`, { token: owner.token, body: { reason: 'Erreur de caisse' } })).status, 200);

  // e-MCF stays down for several tries: the first record waits, retried, and nothing after it goes.
  await waitFor(async () => (await certificationRecords(api, owner.token))[0]?.attempts >= 3, 'three tries of the first record', 20_000);
  const waiting = await certificationRecords(api, owner.token);
  t.equal(waiting.length, 15, '12 sales, 2 refunds, 1 void');
  t.ok(waiting.every((record) => record.status === 'pending'));
  t.match(waiting[0], { kind: 'sale', sale_id: sales[0].id, error: 'authority_unreachable' });
  t.ok(Date.parse(waiting[0].next_attempt_at) > Date.parse(waiting[0].created_at), 'its next try is planned');
  t.ok(waiting.slice(1).every((record) => record.attempts === 0 && record.error === null), 'the records behind it are not tried');
  t.equal(fake.calls('post'), postsBefore);

  await fake.setDown(false);
  const records = await allCertified(api, owner.token, 15);
  const invoices = confirmedFor(owner);
  t.equal(invoices.length, 15, 'each record certified once');
  t.same(invoices.map((invoice) => invoice.codeMECeFDGI), records.map((record) => record.authority_no), 'e-MCF confirmed them in chain order');
  t.same(invoices.map((invoice) => invoice.type), records.map((record) => (record.kind === 'sale' ? 'FV' : 'FA')));
  t.same(records.map((record) => record.kind).filter((kind) => kind !== 'sale'), ['refund', 'refund', 'void']);
  t.ok(records.slice(1).every((record) => record.attempts === 1), 'each record behind the first went once');
  t.same(invoices.map((invoice) => invoice.total), records.map((record) => record.total_xaf), 'e-MCF\'s totals are ours');
  const voided = records.find((record) => record.kind === 'void');
  const voidedSale = records.find((record) => record.kind === 'sale' && record.sale_id === voided.sale_id);
  t.equal(invoices[records.indexOf(voided)]!.body.reference, voidedSale.authority_no.replace(/-/g, ''), 'the void names its sale');
  t.same(fake.pending(), []);
});

t.test('a worker killed mid-delivery certifies nothing twice: a confirm e-MCF kept waits for the owner, one it never got is confirmed once', async (t) => {
  const kept = await emecefShop();
  const dropped = await emecefShop();
  const keptProduct = await createProduct(api, kept.token, { name: 'Riz 5 kg', price_xaf: 4500, vat_rate: 18 }, 1000);
  const droppedProduct = await createProduct(api, dropped.token, { name: 'Huile 1 L', price_xaf: 1300, vat_rate: 18 }, 1000);
  const posts = fake.calls('post');
  const confirms = fake.calls('confirm');
  // The first confirm is done by e-MCF and its answer never comes; the second never reaches it.
  fake.failNext('confirm', 'keep-and-hang');
  fake.failNext('confirm', 'hang');

  // A worker process, killed outright (no graceful shutdown) while both confirms hang.
  const first = launch(t, 'worker/main.ts', {
    DATABASE_URL: api.runtime.ownerUrl,
    APP_KEY: TEST_APP_KEY,
    LOG_LEVEL: 'info',
    SMTP_URL: `smtp://127.0.0.1:${mailbox.port}`,
    ...fake.env,
    ...settings,
    FISCAL_TIMEOUT_MS: '60000',
  });
  await waitFor(() => first.output.stdout.includes('worker running'), 'the first worker', 60_000);

  const keptSale = (await sell(api, kept.token, [{ product_id: keptProduct.id, quantity: 1 }])).body.data;
  await waitFor(async () => fake.calls('confirm') === confirms + 1 && (await outboxRow(kept, keptSale.id))?.state.stage === 'confirming', 'the first confirm under way');
  const droppedSale = (await sell(api, dropped.token, [{ product_id: droppedProduct.id, quantity: 2 }])).body.data;
  const journalled = await waitFor(async () => {
    const row = await outboxRow(dropped, droppedSale.id);
    return fake.calls('confirm') === confirms + 2 && row?.state.stage === 'confirming' && row;
  }, 'the second confirm under way');
  t.equal(confirmedFor(kept).length, 1, 'e-MCF certified the first');
  t.equal(confirmedFor(dropped).length, 0, 'and not the second');
  first.child.kill('SIGKILL');
  await first.exited;

  // A second worker frees the dead one's jobs within a second of its last beat.
  await startCertifyingWorker(t, api, mailbox, { heartbeatMs: 200, staleAfterMs: 1000 });
  const droppedCertified = await waitFor(async () => {
    const certification = await certificationOf(api, dropped.token, droppedSale.id);
    return certification.status === 'certified' && certification;
  }, 'the confirm e-MCF never got, certified');
  t.equal(confirmedFor(dropped).length, 1, 'certified once');
  t.equal(droppedCertified.authority_no, confirmedFor(dropped)[0]!.codeMECeFDGI);
  t.equal(confirmedFor(dropped)[0]!.uid, journalled.state.uid, 'the request journalled before the kill, confirmed rather than submitted again');

  const lost = await waitFor(async () => {
    const row = await outboxRow(kept, keptSale.id);
    return row?.error === 'answer_lost' && row.attempts >= 2 && row;
  }, 'the kept confirm waiting for the owner');
  t.equal(lost.status, 'pending');
  t.equal(confirmedFor(kept).length, 1, 'confirmed once at e-MCF, whatever the tries since');
  t.equal(fake.calls('post'), posts + 2, 'neither record was submitted again after the kill');
  t.match(await certificationOf(api, kept.token, keptSale.id), { status: 'pending', error: 'answer_lost' });
  const mail = await mailbox.next(kept.email);
  t.match(mail.subject, /non certifié/);
  t.match(mail.text, new RegExp(`Ticket n° ${keptSale.receipt_no}`));

  // The owner finds it in the e-MCF's records and settles it with what e-MCF gave.
  const invoice = confirmedFor(kept)[0]!;
  const settled = await api.request('POST', `/fiscal/certifications/${lost.chain_no}/settle`, {
    token: kept.token,
    body: { found: true, authority_no: invoice.codeMECeFDGI, qr: invoice.qrCode },
  });
  t.equal(settled.status, 200, JSON.stringify(settled.body));
  t.match(await certificationOf(api, kept.token, keptSale.id), { status: 'certified', authority_no: invoice.codeMECeFDGI, qr: invoice.qrCode });
  t.equal(confirmedFor(kept).length, 1);
});

t.test('what e-MCF refuses is rejected with its code and text, listed for the owner, who is e-mailed; the books keep the record', async (t) => {
  await startCertifyingWorker(t, api, mailbox);
  const owner = await emecefShop();
  const rice = await createProduct(api, owner.token, { name: 'Riz parfumé', price_xaf: 5000, vat_rate: 18 }, 1000);

  // A sale whose confirm answer is lost; the owner settles it, but mistypes the code MECeF/DGI.
  fake.failNext('confirm', 'keep-and-hang');
  const sold = (await sellByCard(api, owner.token, [{ product_id: rice.id, quantity: 2 }])).body.data;
  const lost = await waitFor(async () => {
    const row = await outboxRow(owner, sold.id);
    return row?.error === 'answer_lost' && row.attempts >= 2 && row;
  }, 'the lost confirm');
  const code = confirmedFor(owner)[0]!.codeMECeFDGI;
  const mistyped = `${code.slice(0, -1)}${code.endsWith('A') ? 'B' : 'A'}`;
  const settled = await api.request('POST', `/fiscal/certifications/${lost.chain_no}/settle`, {
    token: owner.token,
    body: { found: true, authority_no: mistyped, qr: confirmedFor(owner)[0]!.qrCode },
  });
  t.equal(settled.status, 200);

  // Its credit note names an invoice e-MCF does not have: error 11.
  const refunded = await refundByCard(api, owner.token, sold, 0, 1);
  const refund = refunded.refunds[0];
  const rejected = await waitFor(async () => {
    const data = await saleOf(owner, sold.id);
    return data.refunds[0].certification.status === 'rejected' && data.refunds[0].certification;
  }, 'the credit note rejected');
  t.match(rejected, { error: 'emecef_11', error_message: /facture originale est introuvable/, authority_no: null, original_authority_no: mistyped });

  // A sale e-MCF answers 400 to is rejected too, and what comes after it goes on.
  fake.failNext('post', 400);
  const refusedSale = (await sell(api, owner.token, [{ product_id: rice.id, quantity: 1 }])).body.data;
  const nextSale = (await sell(api, owner.token, [{ product_id: rice.id, quantity: 1 }])).body.data;
  await waitFor(async () => (await certificationOf(api, owner.token, nextSale.id)).status === 'certified', 'the sale after it certified');
  t.match(await certificationOf(api, owner.token, refusedSale.id), { status: 'rejected', error: 'emecef_http_400' });

  const list = await api.request('GET', '/fiscal/certifications?status=rejected', { token: owner.token });
  t.equal(list.status, 200);
  t.match(list.body.data, [
    { kind: 'refund', sale_id: sold.id, refund_id: refund.id, number: refund.credit_note_no, total_xaf: 5000, status: 'rejected', error: 'emecef_11', error_message: /introuvable/ },
    { kind: 'sale', sale_id: refusedSale.id, number: refusedSale.receipt_no, status: 'rejected', error: 'emecef_http_400' },
  ]);
  t.equal(list.body.data.length, 2);

  t.equal((await saleOf(owner, refusedSale.id)).status, 'completed', 'the rejected sale stays a sale');
  const afterRefund = await saleOf(owner, sold.id);
  t.equal(afterRefund.status, 'partially_refunded', 'the rejected refund stays a refund');
  t.equal(afterRefund.refunds.length, 1);

  const mail = await waitFor(
    () => mailbox.received.find((m) => m.to.includes(owner.email) && m.text.includes(`Avoir n° ${refund.credit_note_no}`)),
    'the owner\'s alert of the rejected credit note',
  );
  t.match(mail.subject, /non certifié/);
  t.match(mail.text, /Refusé par l'administration fiscale \(La référence de la facture originale n'est pas valide/);
  await waitFor(() => mailbox.received.some((m) => m.to.includes(owner.email) && m.text.includes(`Ticket n° ${refusedSale.receipt_no}`)), 'the alert of the rejected sale');
});

t.test('while the shop certifies, a product or a default VAT rate e-MECeF has no group for is refused where it is set', async (t) => {
  const owner = await shopSellingAt(api, 18);
  await enableCertification(api, owner.token, credentials);
  const refused = await api.request('POST', '/products', { token: owner.token, body: { name: 'Savon', price_xaf: 500, cost_xaf: 300, vat_rate: 19.25 } });
  expectInvalid(t, refused, 'vat_rate', 'a new product at 19.25 %', 'unmapped_vat_rate');
  t.match(refused.body.errors.vat_rate[0], /19,25 %.*e-MECeF/);
  const taken = await createProduct(api, owner.token, { name: 'Jus', price_xaf: 1180, vat_rate: 18 });
  expectInvalid(t, await api.request('PUT', `/products/${taken.id}`, { token: owner.token, body: { vat_rate: 5.5 } }), 'vat_rate', 'a product changed to 5.5 %', 'unmapped_vat_rate');
  t.equal((await api.request('PUT', `/products/${taken.id}`, { token: owner.token, body: { vat_rate: 0 } })).status, 200, 'exempt (group A) is taken');
  expectInvalid(t, await api.request('PUT', '/shop', { token: owner.token, body: { default_vat_rate: 19.25 } }), 'default_vat_rate', 'the shop\'s default', 'unmapped_vat_rate');
  t.equal((await api.request('PUT', '/fiscal/certification', { token: owner.token, body: { enabled: false } })).status, 200);
  t.equal((await api.request('PUT', '/shop', { token: owner.token, body: { default_vat_rate: 19.25 } })).status, 200, 'taken once certification is off');
});
