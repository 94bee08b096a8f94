import t from 'tap';
import type { Test } from 'tap';
import { addStaff, chars, registerShop } from '../support/fixtures.ts';
import { expectError, expectInvalid, FORBIDDEN } from '../support/replies.ts';
import { startService } from '../support/service.ts';

/**
 * The shop's legal mentions and payment terms (issue 31), which invoices, quotes and credit notes
 * print under its name, and a business customer's trade register number (RCCM).
 */

const api = await startService(t);

const putShop = (token: string, body: unknown) => api.request('PUT', '/shop', { token, body });
const getShop = async (token: string) => (await api.request('GET', '/shop', { token })).body.data;

/** The legal columns of the shop as stored, read past row-level security. */
async function storedMentions(shopId: string) {
  const [row] = await api.ownerSql`
    select legal_form, share_capital_xaf, tax_regime, tax_centre, bank_details, momo_merchant_no, payment_terms_days from shops where id = ${shopId}`;
  return row;
}

const MENTIONS = {
  legal_form: 'SARL',
  share_capital_xaf: 1_000_000,
  tax_regime: 'Réel',
  tax_centre: 'CIME Douala',
  bank_details: 'Afriland First Bank, RIB 10005 00001 01234567890 12',
  momo_merchant_no: 'MTN MoMo marchand 456789',
  payment_terms_days: 30,
};

/** Each value is taken and read back as sent; each refused one is a 422 on `field` that changes nothing. */
async function checkBounds(t: Test, owner: { token: string; shop: { id: string } }, field: string, accepted: unknown[], refused: unknown[]): Promise<void> {
  for (const value of accepted) {
    const reply = await putShop(owner.token, { [field]: value });
    t.equal(reply.status, 200, `${field} = ${JSON.stringify(value)}: taken`);
    t.strictSame(reply.body?.data?.[field], value, `${field} = ${JSON.stringify(value)}: answered as sent`);
    t.strictSame((await getShop(owner.token))[field], value, `${field} = ${JSON.stringify(value)}: read back`);
  }
  const before = await storedMentions(owner.shop.id);
  for (const value of refused) expectInvalid(t, await putShop(owner.token, { [field]: value }), field, `${field} = ${JSON.stringify(value)}`);
  t.strictSame(await storedMentions(owner.shop.id), before, `refused ${field} values change nothing`);
}

t.test('a new shop has no legal mentions: each is null', async (t) => {
  const owner = await registerShop(api);
  t.match(await getShop(owner.token), Object.fromEntries(Object.keys(MENTIONS).map((key) => [key, null])));
});

t.test('PUT /shop takes the legal mentions and payment terms, and GET /shop reads them back to every shop user', async (t) => {
  const owner = await registerShop(api);
  const cashier = await addStaff(api, owner, 'cashier');
  const reply = await putShop(owner.token, MENTIONS);
  t.equal(reply.status, 200);
  t.match(reply.body.data, MENTIONS, 'answered as sent');
  t.match(await getShop(cashier.token), MENTIONS, 'a cashier reads them');
  t.strictSame(await storedMentions(owner.shop.id), MENTIONS, 'stored as sent, the capital an integer');
  const partial = await putShop(owner.token, { tax_regime: 'Simplifié' });
  t.match(partial.body.data, { ...MENTIONS, tax_regime: 'Simplifié' }, 'only the mentions sent change');
});

t.test('null clears each legal mention', async (t) => {
  const owner = await registerShop(api);
  t.equal((await putShop(owner.token, MENTIONS)).status, 200);
  for (const field of Object.keys(MENTIONS)) {
    const reply = await putShop(owner.token, { [field]: null });
    t.equal(reply.status, 200, `${field}: null taken`);
    t.equal((await getShop(owner.token))[field], null, `${field}: cleared`);
  }
  t.strictSame(await storedMentions(owner.shop.id), Object.fromEntries(Object.keys(MENTIONS).map((key) => [key, null])), 'every mention null in the database');
});

t.test('share_capital_xaf is a whole number of XAF, 0 or more (422 on a negative, a fraction or text)', async (t) => {
  const owner = await registerShop(api);
  await checkBounds(t, owner, 'share_capital_xaf', [0, 100_000_000_000, 1], [-1, -1_000_000, 1_000_000.5, 0.1, '1000000', true]);
});

t.test('payment_terms_days is a whole number of days from 0 to 365 (422 outside)', async (t) => {
  const owner = await registerShop(api);
  await checkBounds(t, owner, 'payment_terms_days', [0, 365, 30], [-1, 366, 1000, 7.5, '30']);
});

t.test('the text mentions are bounded: legal form 60, tax regime 60, tax centre 120, bank details 255, merchant number 60 characters', async (t) => {
  const owner = await registerShop(api);
  const bounds: [string, number][] = [['legal_form', 60], ['tax_regime', 60], ['tax_centre', 120], ['bank_details', 255], ['momo_merchant_no', 60]];
  for (const [field, max] of bounds) await checkBounds(t, owner, field, [chars(max), 'Établissement Ngono & Fils'.slice(0, max)], [chars(max + 1), 12, 'a\u0000b']);
});

t.test('only the owner changes the legal mentions (a manager gets 403)', async (t) => {
  const owner = await registerShop(api);
  const manager = await addStaff(api, owner, 'manager');
  expectError(t, await putShop(manager.token, { legal_form: 'SA', share_capital_xaf: 10_000_000 }), 403, FORBIDDEN);
  t.strictSame(await storedMentions(owner.shop.id), Object.fromEntries(Object.keys(MENTIONS).map((key) => [key, null])), 'nothing changed');
});

t.test('a customer\'s trade_register_no (RCCM) is set on creation, changed and cleared on update, at most 60 characters', async (t) => {
  const owner = await registerShop(api);
  const created = await api.request('POST', '/customers', { token: owner.token, body: { name: 'Quincaillerie du Wouri', tax_id: 'M051812345678P', trade_register_no: 'RC/DLA/2021/B/0456' } });
  t.equal(created.status, 201);
  t.equal(created.body.data.trade_register_no, 'RC/DLA/2021/B/0456', 'set on POST');
  const id = created.body.data.id;
  const read = async () => (await api.request('GET', `/customers/${id}`, { token: owner.token })).body.data.trade_register_no;
  t.equal(await read(), 'RC/DLA/2021/B/0456', 'read back');
  const changed = await api.request('PUT', `/customers/${id}`, { token: owner.token, body: { trade_register_no: 'RC/YAO/2022/A/0099' } });
  t.equal(changed.body.data.trade_register_no, 'RC/YAO/2022/A/0099', 'changed on PUT');
  t.equal(await read(), 'RC/YAO/2022/A/0099');
  const cleared = await api.request('PUT', `/customers/${id}`, { token: owner.token, body: { trade_register_no: null } });
  t.equal(cleared.body.data.trade_register_no, null, 'null clears it');
  t.equal(await read(), null);
  expectInvalid(t, await api.request('PUT', `/customers/${id}`, { token: owner.token, body: { trade_register_no: chars(61) } }), 'trade_register_no', '61 characters');
  expectInvalid(t, await api.request('POST', '/customers', { token: owner.token, body: { name: 'Awa', trade_register_no: 42 } }), 'trade_register_no', 'a number');
  t.equal((await api.request('PUT', `/customers/${id}`, { token: owner.token, body: { trade_register_no: chars(60) } })).body.data.trade_register_no, chars(60), '60 characters: taken');
  const plain = await api.request('POST', '/customers', { token: owner.token, body: { name: 'Moussa' } });
  t.equal(plain.body.data.trade_register_no, null, 'a customer created without one has none');
});
