import t from 'tap';
import { addStaff, createProduct, registerShop, waitFor } from '../support/fixtures.ts';
import { startMailbox, startMailWorker } from '../support/mailbox.ts';
import { expectInvalid } from '../support/replies.ts';
import { startService } from '../support/service.ts';
import { sell, certificationOf } from './certification-fixtures.ts';

/**
 * Certified invoicing with the simulator (CONTRACT section 14), through the API and a real
 * graphile-worker: every shop is certified with no set-up, a sale never waits for the authority, each
 * record is certified once, in chain order, and a rejected one stays a sale, listed for its owner, who
 * is e-mailed about it.
 */
const api = await startService(t, { FISCAL_PROVIDER: 'simulator', FISCAL_ALERT_DELAY_MS: '0' });
const mailbox = await startMailbox(t);
await startMailWorker(t, api, mailbox);

const certified = (token: string, saleId: string) =>
  waitFor(async () => {
    const sale = (await api.request('GET', `/sales/${saleId}`, { token })).body.data;
    return sale.certification?.status === 'certified' && sale;
  }, 'the sale certified');

t.test('with the simulator a new shop needs no set-up: its sale answers pending at once, then is certified by the worker', async (t) => {
  const owner = await registerShop(api, { tax_id: 'M012345678901A' });
  const product = await createProduct(api, owner.token, { price_xaf: 2500 }, 1000);
  const reply = await sell(api, owner.token, [{ product_id: product.id, quantity: 2 }]);
  t.equal(reply.status, 201);
  t.equal(reply.body.data.certification.status, 'pending', 'the sale is recorded without waiting for the authority');
  t.equal(reply.body.data.certification.authority_no, null);
  const sale = await certified(owner.token, reply.body.data.id);
  t.match(sale.certification.authority_no, /^SIM-[0-9A-F]{4}(-[0-9A-F]{4}){3}$/);
  t.match(sale.certification.qr, new RegExp(`^SIM;${sale.certification.authority_no};M012345678901A;5000;`));
  t.ok(sale.certification.signature);
  t.ok(Date.parse(sale.certification.certified_at));
  t.equal(sale.certification.error, null);
  t.equal(sale.void_certification, null);
});

t.test('a refund and a void are certified as credit notes naming the sale\'s authority number', async (t) => {
  const owner = await registerShop(api);
  const product = await createProduct(api, owner.token, { price_xaf: 1000 }, 1000);
  const first = (await sell(api, owner.token, [{ product_id: product.id, quantity: 3 }])).body.data;
  const refund = await api.request('POST', `/sales/${first.id}/refund`, {
    token: owner.token,
    body: { method: 'card', reason: 'Abîmé', items: [{ sale_item_id: first.items[0].id, quantity: 1 }] },
  });
  t.equal(refund.status, 201, JSON.stringify(refund.body));
  const second = (await sell(api, owner.token, [{ product_id: product.id, quantity: 1 }], { payments: [{ method: 'card', amount_xaf: 1000 }] })).body.data;
  t.equal((await api.request('POST', `/sales/${second.id}/void`, { token: owner.token, body: { reason: 'Erreur de saisie' } })).status, 200);

  const sale = await waitFor(async () => {
    const data = (await api.request('GET', `/sales/${first.id}`, { token: owner.token })).body.data;
    return data.refunds[0]?.certification?.status === 'certified' && data;
  }, 'the refund certified');
  t.equal(sale.refunds[0].certification.original_authority_no, sale.certification.authority_no, 'the credit note names its sale');
  t.not(sale.refunds[0].certification.authority_no, sale.certification.authority_no);

  const voided = await waitFor(async () => {
    const data = (await api.request('GET', `/sales/${second.id}`, { token: owner.token })).body.data;
    return data.void_certification?.status === 'certified' && data;
  }, 'the void certified');
  t.equal(voided.void_certification.original_authority_no, voided.certification.authority_no);
});

t.test('records are certified in chain order, each once', async (t) => {
  const owner = await registerShop(api);
  const product = await createProduct(api, owner.token, { price_xaf: 500 }, 1000);
  const ids: string[] = [];
  for (let i = 0; i < 8; i++) ids.push((await sell(api, owner.token, [{ product_id: product.id, quantity: 1 + i }])).body.data.id);
  await certified(owner.token, ids.at(-1)!);
  const rows = await api.ownerSql<{ chain_no: string; status: string; attempts: number; certified_at: Date }[]>`
    select chain_no, status, attempts, certified_at from fiscal_certifications where shop_id = ${owner.shop.id} order by chain_no`;
  t.equal(rows.length, 8);
  t.ok(rows.every((row) => row.status === 'certified' && row.attempts === 1), 'each delivered once');
  const times = rows.map((row) => row.certified_at.getTime());
  t.same(times, [...times].sort((a, b) => a - b), 'certified in chain order');
});

t.test('a shop whose taxpayer number starts with X is rejected: the sale stays a sale, is listed for the owner, who is e-mailed', async (t) => {
  const owner = await registerShop(api, { tax_id: 'X99' });
  const product = await createProduct(api, owner.token, { price_xaf: 1200 }, 1000);
  const sale = (await sell(api, owner.token, [{ product_id: product.id, quantity: 1 }])).body.data;
  const rejected = await waitFor(async () => (await certificationOf(api, owner.token, sale.id))?.status === 'rejected' && (await certificationOf(api, owner.token, sale.id)), 'the rejection');
  t.equal(rejected.error, 'invalid_taxpayer');
  t.ok(rejected.error_message);
  const again = (await api.request('GET', `/sales/${sale.id}`, { token: owner.token })).body.data;
  t.equal(again.status, 'completed', 'still a sale in the books');

  const list = await api.request('GET', '/fiscal/certifications?status=rejected', { token: owner.token });
  t.equal(list.status, 200);
  t.equal(list.body.data.length, 1);
  t.match(list.body.data[0], { kind: 'sale', sale_id: sale.id, number: sale.receipt_no, total_xaf: 1200, status: 'rejected', error: 'invalid_taxpayer' });
  t.same((await api.request('GET', '/fiscal/certifications?status=certified', { token: owner.token })).body.data, []);

  const mail = await waitFor(() => mailbox.received.find((m) => m.to.includes(owner.email) && /non certifié/.test(m.subject)), 'the owner\'s alert');
  t.match(mail.text, new RegExp(`Ticket n° ${sale.receipt_no}`));
});

t.test('a rejected record is sent again once the owner fixes its cause, and certified', async (t) => {
  const owner = await registerShop(api, { tax_id: 'X42' });
  const product = await createProduct(api, owner.token, { price_xaf: 900 }, 1000);
  const sale = (await sell(api, owner.token, [{ product_id: product.id, quantity: 1 }])).body.data;
  await waitFor(async () => (await certificationOf(api, owner.token, sale.id))?.status === 'rejected', 'the rejection');
  const chainNo = (await api.request('GET', '/fiscal/certifications?status=rejected', { token: owner.token })).body.data[0].chain_no;

  const early = await api.request('POST', `/fiscal/certifications/${chainNo + 1}/retry`, { token: owner.token });
  t.equal(early.status, 404, 'no such record');
  t.equal((await api.request('PUT', '/fiscal/certification', { token: owner.token, body: { enabled: true, taxpayer_no: 'M0123' } })).status, 200);
  const retried = await api.request('POST', `/fiscal/certifications/${chainNo}/retry`, { token: owner.token });
  t.equal(retried.status, 200);
  t.equal(retried.body.data.status, 'pending');
  await certified(owner.token, sale.id);
  const twice = await api.request('POST', `/fiscal/certifications/${chainNo}/retry`, { token: owner.token });
  t.equal(twice.status, 409);
  t.equal(twice.body.code, 'not_rejected');
});

t.test('the certification settings: read by managers, written by the owner, turned off and on from the next record', async (t) => {
  const owner = await registerShop(api);
  const manager = await addStaff(api, owner, 'manager');
  const read = await api.request('GET', '/fiscal/certification', { token: manager.token });
  t.equal(read.status, 200);
  t.match(read.body.data, { provider: 'simulator', enabled: true, api_token_set: false, from_chain_no: 1 });
  t.ok(read.body.data.tax_groups.some((group: { vat_rate: string; tax_group: string }) => group.vat_rate === '19.25' && group.tax_group === 'T19.25'));
  t.equal((await api.request('PUT', '/fiscal/certification', { token: manager.token, body: { enabled: false } })).status, 403);

  const off = await api.request('PUT', '/fiscal/certification', { token: owner.token, body: { enabled: false } });
  t.equal(off.status, 200);
  t.equal(off.body.data.enabled, false);
  const product = await createProduct(api, owner.token, { price_xaf: 700 }, 1000);
  const unsent = (await sell(api, owner.token, [{ product_id: product.id, quantity: 1 }])).body.data;
  t.equal(unsent.certification, null, 'a sale made while it is off is not certified');

  const on = await api.request('PUT', '/fiscal/certification', { token: owner.token, body: { enabled: true, api_token: 'secret-token-123' } });
  t.equal(on.status, 200);
  t.match(on.body.data, { enabled: true, api_token_set: true });
  t.notOk(JSON.stringify(on.body).includes('secret-token-123'), 'the token is never answered');
  const [stored] = await api.ownerSql<{ api_token_sealed: string; from_chain_no: string }[]>`
    select api_token_sealed, from_chain_no from fiscal_certification_settings where shop_id = ${owner.shop.id}`;
  t.notOk(stored!.api_token_sealed.includes('secret-token-123'), 'stored sealed');
  t.equal(Number(stored!.from_chain_no), on.body.data.from_chain_no);
  const sent = (await sell(api, owner.token, [{ product_id: product.id, quantity: 1 }])).body.data;
  t.equal(sent.certification?.status, 'pending', `the next sale is certified ${JSON.stringify(sent)}`);
  await certified(owner.token, sent.id);
  t.equal((await api.request('GET', `/sales/${unsent.id}`, { token: owner.token })).body.data.certification, null);
});

t.test('the settings refuse what they cannot take, in the CONTRACT\'s shape', async (t) => {
  const owner = await registerShop(api);
  await expectInvalid(t, await api.request('PUT', '/fiscal/certification', { token: owner.token, body: { enabled: 'yes' } }), 'enabled');
  await expectInvalid(t, await api.request('PUT', '/fiscal/certification', { token: owner.token, body: { enabled: true, api_key: 'x' } }), 'api_key');
  const records = await api.request('POST', '/fiscal/certifications/1/settle', { token: owner.token, body: { found: false } });
  t.equal(records.status, 404);
  t.equal((await api.request('GET', '/fiscal/certifications?status=lost', { token: owner.token })).status, 422);
});

t.test('with no authority (FISCAL_PROVIDER none) a sale carries no certification and the settings say so', async (t) => {
  const plain = await startService(t);
  const owner = await registerShop(plain);
  const product = await createProduct(plain, owner.token, { price_xaf: 100 }, 1000);
  const sale = (await sell(plain, owner.token, [{ product_id: product.id, quantity: 1 }])).body.data;
  t.equal(sale.certification, null);
  t.match((await plain.request('GET', '/fiscal/certification', { token: owner.token })).body.data, { provider: 'none', enabled: false });
  const refused = await plain.request('PUT', '/fiscal/certification', { token: owner.token, body: { enabled: true } });
  t.equal(refused.status, 409);
  t.equal(refused.body.code, 'certification_unavailable');
  const [queued] = await plain.ownerSql<{ n: number }[]>`select count(*)::int as n from fiscal_certifications where shop_id = ${owner.shop.id}`;
  t.equal(queued!.n, 0);
});
