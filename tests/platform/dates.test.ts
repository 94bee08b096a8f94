import t from 'tap';
import { staffedShop } from '../support/fixtures.ts';
import { expectInvalid } from '../support/replies.ts';
import { startService } from '../support/service.ts';
import { pairDevice } from '../sync/sync-fixtures.ts';

const api = await startService(t);

// zod takes year 0000 for a valid ISO-8601 date; PostgreSQL has no year 0. Every day or time a
// request carries is checked before it reaches a query.
t.test('a day or a time in year 0 is a 422 on its input, never a failed query', async (t) => {
  const { owner } = await staffedShop(api);
  const device = await pairDevice(api, owner.token);
  const day = '0000-01-01';
  const time = '0000-01-01T00:00:00Z';
  const read = (path: string) => api.request('GET', path, { token: owner.token });
  expectInvalid(t, await read(`/sales?from=${day}`), 'from', 'sales list');
  expectInvalid(t, await read(`/expenses?to=${day}`), 'to', 'expenses list');
  expectInvalid(t, await read(`/shifts?from=${day}`), 'from', 'shifts list');
  expectInvalid(t, await read(`/loyalty/report?from=${day}`), 'from', 'loyalty report');
  expectInvalid(t, await api.request('POST', '/expenses', { token: owner.token, body: { category: 'other', amount_xaf: 100, payment_method: 'cash', spent_at: day } }), 'spent_at', 'expense');
  expectInvalid(t, await api.request('POST', '/promotions', { token: owner.token, body: { name: 'Zéro', kind: 'percent', value: 10, starts_at: time } }), 'starts_at', 'promotion');
  expectInvalid(t, await api.request('GET', `/device/sync/pull?since=${time}`, { headers: { authorization: `Device ${device.token}` } }), 'since', 'pull');
  t.equal((await read('/sales?from=0001-01-01')).status, 200, 'year 1 is a real day');
});

// zod 4 runs an object's refinement even when one of its fields failed: "to on or after from" then
// compared a malformed date as text and added a second error on a valid `to`.
t.test('a malformed from or to is a 422 on that key alone, with one message, on every list and report with a period', async (t) => {
  const { owner } = await staffedShop(api);
  const read = (path: string) => api.request('GET', path, { token: owner.token });
  const periods = ['/sales', '/purchases', '/quotes', '/shifts', '/expenses', '/loyalty/report', '/reports/price-overrides', '/reports/sales-summary',
    '/reports/margin', '/reports/analytics', '/reports/losses', '/reports/vat-declaration'];
  for (const path of periods) {
    const badFrom = await read(`${path}?from=2026-13-01&to=2026-11-25`);
    expectInvalid(t, badFrom, 'from', `${path} from=2026-13-01`);
    t.equal(badFrom.body.errors?.from?.length, 1, `${path}: one message on from`);
    const badTo = await read(`${path}?from=zz&to=abc`);
    expectInvalid(t, badTo, ['from', 'to'], `${path} from=zz to=abc`);
    t.equal(badTo.body.errors?.to?.length, 1, `${path}: one message on to`);
  }
});
