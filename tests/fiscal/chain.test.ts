import { createHash, randomUUID } from 'node:crypto';
import t from 'tap';
import { addStaff, createProduct, registerShop } from '../support/fixtures.ts';
import { startMailbox, startMailWorker } from '../support/mailbox.ts';
import { startService } from '../support/service.ts';
import { createCustomer, openShift, postSale, readSale, refundSale, sell, staffedShop, upTo, voidSale } from '../sales/sale-fixtures.ts';
import { backdate, seal } from '../reports/report-fixtures.ts';
import { offlineSale, pairDevice, push } from '../sync/sync-fixtures.ts';
import { asApp, canonicalJson, chainFaults, chainHash, contentOf, fiscalEntries, integrity, ISO_UTC, refusal, type FiscalEntry } from './fiscal-fixtures.ts';

/**
 * CONTRACT section 13, the chain: every sale, void, refund and sealed Z of a shop appends one entry in
 * the transaction that makes it, numbered 1, 2, 3... per shop with no gap, its content canonical JSON
 * naming what was recorded, and hash = sha256(previous_hash + content), all recomputed here. Nothing
 * rewrites it, not even the database's owner.
 */
const api = await startService(t);
// The nightly sealing of Zs, in a real graphile-worker (the Z mails queue and stay).
await startMailWorker(t, api, await startMailbox(t));

const cash = (amount: number) => [{ method: 'cash', amount_xaf: amount }];
const byChainNo = (entries: FiscalEntry[], chainNo: number) => entries.find((entry) => entry.chain_no === chainNo)!;

/** Text a JSON serialiser must escape or keep exactly: accents, quotes, a backslash, controls, U+2028, CJK. */
const AWKWARD_NAME = 'Crème "brûlée" \\ n° 5 – œuf\u0001\u007f\u2028中';
const VOID_REASON = 'Erreur de caisse :\tle client est parti\nsans payer';
const REFUND_REASON = 'Abîmé\tà la livraison\n« retour »';

/**
 * One shop's day, made through the API and kept for the tests that read it: a manager at an open
 * shift on a paired till sells twice to a customer (catalogue and free lines, VAT 19.25 % and 5.5 %, a
 * discount, a card payment with its reference, cash with change), voids the first sale, refunds part
 * of the second, and sells a third on the customer's account. Entries 1 to 5.
 */
async function madeHistory() {
  const { owner, manager } = await staffedShop(api);
  await openShift(api, manager.token);
  const device = await pairDevice(api, manager.token, 'Caisse 1');
  const customer = await createCustomer(api, manager.token, { credit_ceiling_xaf: 1_000_000 });
  const coffee = await createProduct(api, manager.token, { name: 'Café moulu « Arabica » d\'Éthiopie', price_xaf: 2_500, vat_rate: 19.25 }, 100);
  const first = await sell(api, manager.token, {
    customer_id: customer.id,
    device_id: device.id,
    note: 'Livraison :\tporte 2\nétage 3',
    items: [
      { product_id: coffee.id, quantity: 2, discount_xaf: 200 },
      { name: AWKWARD_NAME, quantity: 1.5, unit_price_xaf: 1_000, vat_rate: 5.5 },
    ],
    payments: [{ method: 'card', amount_xaf: 3_000, reference: 'TPE-0042' }, { method: 'cash', amount_xaf: 5_000 }],
  });
  const second = await sell(api, manager.token, {
    customer_id: customer.id,
    device_id: device.id,
    items: [{ product_id: coffee.id, quantity: 1 }, { name: 'Savon "Azur" \\ lot de 3', quantity: 3, unit_price_xaf: 250, vat_rate: 19.25 }],
    payments: cash(3_250),
  });
  const voided = await voidSale(api, manager.token, first.id, { reason: VOID_REASON });
  if (voided.status !== 200) throw new Error(`void failed: ${voided.status} ${JSON.stringify(voided.body)}`);
  const refunded = await refundSale(api, manager.token, second.id, {
    method: 'cash',
    reason: REFUND_REASON,
    items: [{ sale_item_id: second.items[0].id, quantity: 1 }, { sale_item_id: second.items[1].id, quantity: 2 }],
  });
  if (refunded.status !== 201) throw new Error(`refund failed: ${refunded.status} ${JSON.stringify(refunded.body)}`);
  const third = await sell(api, manager.token, { customer_id: customer.id, items: [{ product_id: coffee.id, quantity: 1 }], payments: [{ method: 'credit', amount_xaf: 2_500 }] });
  return {
    owner,
    manager,
    device,
    customer,
    sales: [await readSale(api, manager.token, first.id), await readSale(api, manager.token, second.id), third],
    refund: refunded.body.data.refunds.at(-1),
  };
}
let made: ReturnType<typeof madeHistory> | undefined;
const history = () => (made ??= madeHistory());

t.test('each sale, void, refund and sealed Z appends one entry: chain_no 1, 2, 3... in the order they were made, naming its record, which names it back', async (t) => {
  const { owner, sales, refund } = await history();
  const [first, second, third] = sales;
  const entries = await fiscalEntries(api, owner.shop.id);
  t.strictSame(
    entries.map((entry) => [entry.chain_no, entry.kind, entry.ref_id]),
    [
      [1, 'sale', first.id],
      [2, 'sale', second.id],
      [3, 'void', first.id],
      [4, 'refund', refund.id],
      [5, 'sale', third.id],
    ],
  );
  const [firstRow, secondRow, thirdRow] = await Promise.all(
    [first, second, third].map(async (sale) => (await api.ownerSql<{ chain_no: number; void_chain_no: number | null }[]>`select chain_no, void_chain_no from sales where id = ${sale.id}`)[0]),
  );
  t.strictSame([firstRow, secondRow, thirdRow], [{ chain_no: 1, void_chain_no: 3 }, { chain_no: 2, void_chain_no: null }, { chain_no: 5, void_chain_no: null }], 'sales.chain_no and void_chain_no');
  const [refundRow] = await api.ownerSql<{ chain_no: number }[]>`select chain_no from refunds where id = ${refund.id}`;
  t.equal(refundRow!.chain_no, 4, 'refunds.chain_no');
  t.strictSame(entries.map((entry) => entry.amount_xaf), [first.total_xaf, second.total_xaf, -first.total_xaf, -refund.total_xaf, third.total_xaf], 'each entry\'s effect on the perpetual total');
  t.ok(entries.every((entry, i) => i === 0 || entry.recorded_at >= entries[i - 1]!.recorded_at), 'recorded_at grows with chain_no');

  // A Z needs a day that has ended: another shop's day, moved back into yesterday, then sealed.
  const shop = await registerShop(api);
  const sold = await sell(api, shop.token, { items: [{ name: 'Pain', quantity: 2, unit_price_xaf: 150 }], payments: cash(300) });
  await backdate(api, shop.shop.id, 1);
  await seal(api);
  const [z] = await api.ownerSql<{ id: string; chain_no: number; report: string; day: string; z_no: number; net_total_xaf: number; grand_total_xaf: number; sealed_at: string }[]>`
    select id, chain_no, report::text as report, day::text as day, z_no, net_total_xaf, grand_total_xaf, iso_time(sealed_at) as sealed_at
      from z_reports where shop_id = ${shop.shop.id}`;
  const after = await sell(api, shop.token, { items: [{ name: 'Pain', quantity: 1, unit_price_xaf: 150 }], payments: cash(150) });
  const chained = await fiscalEntries(api, shop.shop.id);
  t.strictSame(chained.map((entry) => [entry.chain_no, entry.kind, entry.ref_id]), [[1, 'sale', sold.id], [2, 'z', z!.id], [3, 'sale', after.id]], 'the sealed Z is the next entry, a sale after it the next');
  t.equal(z!.chain_no, 2, 'z_reports.chain_no');
  t.strictSame(contentOf(chained[1]!), {
    day: z!.day,
    grand_total_xaf: z!.grand_total_xaf,
    net_total_xaf: z!.net_total_xaf,
    report_sha256: createHash('sha256').update(z!.report, 'utf8').digest('hex'),
    sealed_at: z!.sealed_at,
    z_no: z!.z_no,
    z_report_id: z!.id,
  }, 'the Z\'s content names its number, day, totals and the digest of the whole stored report');
  t.strictSame(chainFaults(chained), []);
});

t.test('each hash is the lowercase hex sha256 of previous_hash + content, entry 1 starting from \'\', each previous_hash the hash before; the counter holds the last', async (t) => {
  const { owner } = await history();
  const entries = await fiscalEntries(api, owner.shop.id);
  t.equal(entries[0]!.previous_hash, '', 'entry 1 has no previous hash');
  for (const entry of entries) {
    t.match(entry.hash, /^[0-9a-f]{64}$/, `entry ${entry.chain_no}: lowercase hex`);
    t.equal(entry.hash, chainHash(entry.previous_hash, entry.content), `entry ${entry.chain_no}: recomputed with node:crypto`);
    if (entry.chain_no > 1) t.equal(entry.previous_hash, byChainNo(entries, entry.chain_no - 1).hash, `entry ${entry.chain_no}: previous_hash is entry ${entry.chain_no - 1}'s hash`);
  }
  const [counter] = await api.ownerSql<{ chain_no: number; chain_hash: string }[]>`select chain_no, chain_hash from receipt_counters where shop_id = ${owner.shop.id}`;
  t.strictSame({ ...counter }, { chain_no: entries.length, chain_hash: entries.at(-1)!.hash }, 'receipt_counters: the last position and its hash');
});

t.test('every content is canonical JSON (RFC 8785): a JavaScript serialiser gives the same bytes back; money in integers, VAT rates as strings, times in UTC', async (t) => {
  const { owner } = await history();
  const entries = await fiscalEntries(api, owner.shop.id);
  for (const entry of entries) t.equal(canonicalJson(JSON.parse(entry.content)), entry.content, `entry ${entry.chain_no} (${entry.kind})`);
  t.ok(entries[0]!.content.includes(JSON.stringify(AWKWARD_NAME)), 'the awkward name is escaped as JSON.stringify escapes it');
  t.ok(entries[2]!.content.includes('"reason":"Erreur de caisse :\\tle client est parti\\nsans payer"'), 'a tab and a newline in the void\'s reason: \\t and \\n');
  t.ok(entries[3]!.content.includes(JSON.stringify(REFUND_REASON)), 'and in the refund\'s');

  const wrongs: string[] = [];
  const walk = (value: unknown, path: string) => {
    if (Array.isArray(value)) value.forEach((item, i) => walk(item, `${path}.${i}`));
    else if (value && typeof value === 'object') for (const [key, inner] of Object.entries(value)) walk(inner, `${path}.${key}`);
    const key = path.split('.').at(-1)!;
    if (key.endsWith('_xaf') && !Number.isInteger(value)) wrongs.push(`${path} = ${JSON.stringify(value)} is not an integer`);
    if ((key === 'vat_rate' || key === 'rate' || key === 'quantity') && (typeof value !== 'string' || !/^\d+(\.\d+)?$/.test(value) || /\.\d*0$/.test(value))) {
      wrongs.push(`${path} = ${JSON.stringify(value)} is not a decimal string without trailing zeros`);
    }
    if (/(^|_)at$/.test(key) && value !== null && !(typeof value === 'string' && ISO_UTC.test(value))) wrongs.push(`${path} = ${JSON.stringify(value)} is not a UTC time`);
  };
  for (const entry of entries) walk(contentOf(entry), `entry ${entry.chain_no}`);
  t.strictSame(wrongs, []);
  t.equal(contentOf(entries[0]!).lines[0].vat_rate, '19.25', 'the VAT rate 19.25 % is the string "19.25"');
  t.equal(contentOf(entries[0]!).lines[1].quantity, '1.5', 'a quantity of 1.5 is "1.5"');
});

t.test('a sale\'s content names its receipt number, time, cashier, till, customer, each line, its totals, VAT per rate and each payment', async (t) => {
  const { owner, manager, device, customer, sales } = await history();
  const sale = sales[0];
  const content = contentOf((await fiscalEntries(api, owner.shop.id))[0]!);
  t.strictSame(content, {
    cashier_id: manager.user.id,
    created_at: sale.created_at,
    customer_id: customer.id,
    device_id: device.id,
    // In line order; what would be null or an optional discount of 0 is left out (a free line's item, a variant, points, a promotion).
    lines: sale.items.map((item: any) => ({
      discount_xaf: item.discount_xaf,
      ...(item.product_id ? { item_id: item.product_id } : {}),
      name: item.name,
      ...(item.points_discount_xaf ? { points_discount_xaf: item.points_discount_xaf } : {}),
      ...(item.promotion_discount_xaf ? { promotion_discount_xaf: item.promotion_discount_xaf } : {}),
      quantity: String(item.quantity),
      total_xaf: item.total_xaf,
      unit_price_xaf: item.unit_price_xaf,
      ...(item.variant_id ? { variant_id: item.variant_id } : {}),
      vat_rate: String(item.vat_rate),
      vat_xaf: item.vat_xaf,
    })),
    payments: [
      { amount_xaf: 3_000, kind: 'payment', method: 'card', reference: 'TPE-0042' },
      { amount_xaf: 5_000, kind: 'payment', method: 'cash' },
      { amount_xaf: -sale.change_xaf, kind: 'change', method: 'cash' },
    ],
    receipt_no: sale.receipt_no,
    sale_id: sale.id,
    totals: {
      change_xaf: sale.change_xaf,
      credit_xaf: sale.credit_xaf,
      discount_xaf: sale.discount_xaf,
      paid_xaf: sale.paid_xaf,
      subtotal_xaf: sale.subtotal_xaf,
      total_xaf: sale.total_xaf,
      vat_xaf: sale.vat_xaf,
    },
    vat: sale.vat_breakdown
      .map((rate: any) => ({ base_xaf: rate.base_xaf, rate: String(rate.rate), vat_xaf: rate.vat_xaf }))
      .sort((a: any, b: any) => Number(a.rate) - Number(b.rate)),
  });
  t.strictSame(
    [content.lines[0].name, content.lines[0].unit_price_xaf, content.lines[0].discount_xaf, content.lines[1].name],
    ['Café moulu « Arabica » d\'Éthiopie', 2_500, 200, AWKWARD_NAME],
    'the names as written, the catalogue price and the discount',
  );
  t.ok(sale.change_xaf > 0, 'the sale gave change');
  const credit = contentOf((await fiscalEntries(api, owner.shop.id))[4]!);
  t.strictSame([credit.totals.credit_xaf, credit.payments], [2_500, [{ amount_xaf: 2_500, kind: 'payment', method: 'credit' }]], 'a sale on account: its credit in the totals and as a payment');
});

t.test('a void\'s and a refund\'s content name the sale\'s entry and what they gave back', async (t) => {
  const { owner, manager, sales, refund } = await history();
  const [first, second] = sales;
  const entries = await fiscalEntries(api, owner.shop.id);
  t.strictSame(contentOf(entries[2]!), {
    payments: [{ amount_xaf: -3_000, method: 'card' }, { amount_xaf: -(5_000 - first.change_xaf), method: 'cash' }],
    reason: VOID_REASON,
    receipt_no: first.receipt_no,
    sale_chain_no: 1,
    sale_id: first.id,
    total_xaf: first.total_xaf,
    voided_at: first.voided_at,
    voided_by: manager.user.id,
  }, 'the void');
  const given = refund.items.map((part: any) => {
    const item = second.items.find((line: any) => line.id === part.sale_item_id);
    return { ...(item.product_id ? { item_id: item.product_id } : {}), line_no: item.line_no, name: item.name, quantity: String(part.quantity), sale_item_id: item.id, total_xaf: part.total_xaf, vat_rate: String(item.vat_rate), vat_xaf: part.vat_xaf };
  });
  t.strictSame(contentOf(entries[3]!), {
    created_at: refund.created_at,
    credit_note_no: refund.credit_note_no,
    lines: given.sort((a: any, b: any) => a.line_no - b.line_no),
    method: 'cash',
    reason: REFUND_REASON,
    receipt_no: second.receipt_no,
    refund_id: refund.id,
    sale_chain_no: 2,
    sale_id: second.id,
    total_xaf: refund.total_xaf,
    user_id: manager.user.id,
    vat: [{ base_xaf: refund.total_xaf - refund.vat_xaf, rate: '19.25', vat_xaf: refund.vat_xaf }],
    vat_xaf: refund.vat_xaf,
  }, 'the refund (a credit note)');
  t.equal(entries[3]!.amount_xaf, -refund.total_xaf);
});

t.test('16 tills selling at once while 2 tills push offline sales: no gap, no duplicate chain_no, each sale chained once, every hash linked', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const bread = await createProduct(api, manager.token, { name: 'Baguette', price_xaf: 150, vat_rate: 0 }, 100_000);
  const tills = await Promise.all(upTo(16).map(async (n) => ({ cashier: await addStaff(api, owner, 'cashier'), device: await pairDevice(api, manager.token, `Caisse ${n}`) })));
  const tablets = await Promise.all([pairDevice(api, manager.token, 'Tablette 1'), pairDevice(api, manager.token, 'Tablette 2')]);
  const ROUNDS = 4;
  const PUSHED = 3;
  const online: string[] = [];
  const offline: { id: string; created_at: string }[] = [];
  for (const round of upTo(ROUNDS)) {
    const batches = tablets.map((_, d) =>
      upTo(PUSHED).map((n) => offlineSale(randomUUID(), bread.id, 1, { created_at: new Date(Date.now() - (60 * d + 10 * round + n) * 60_000).toISOString(), payments: cash(150) })),
    );
    const [sold, pushed] = await Promise.all([
      Promise.all(tills.map(({ cashier, device }) => sell(api, cashier.token, { device_id: device.id, items: [{ product_id: bread.id, quantity: 1 }], payments: cash(150) }))),
      Promise.all(tablets.map((tablet, d) => push(api, { device: tablet.token }, { sales: batches[d] }))),
    ]);
    online.push(...sold.map((sale) => sale.id));
    for (const reply of pushed) t.strictSame(reply.body.data?.results?.map((r: any) => r.status), upTo(PUSHED).map(() => 'applied'), `round ${round}: a push applied`);
    offline.push(...batches.flat().map(({ id, created_at }) => ({ id, created_at })));
  }

  const entries = await fiscalEntries(api, owner.shop.id);
  const total = 16 * ROUNDS + tablets.length * PUSHED * ROUNDS;
  t.strictSame(entries.map((entry) => entry.chain_no), upTo(total), `chain_no 1 to ${total}, no gap, no duplicate`);
  t.strictSame(entries.map((entry) => entry.ref_id).sort(), [...online, ...offline.map((sale) => sale.id)].sort(), 'each sale, online or pushed, chained exactly once');
  t.ok(entries.every((entry) => entry.kind === 'sale'));
  t.strictSame(chainFaults(entries), [], 'every hash recomputed and linked to the one before');
  const pointing = await api.ownerSql<{ n: number }[]>`
    select count(*)::int as n from sales s join fiscal_entries e on e.shop_id = s.shop_id and e.chain_no = s.chain_no and e.ref_id = s.id
     where s.shop_id = ${owner.shop.id}`;
  t.equal(pointing[0]!.n, total, 'each sale names its own entry');
  for (const sale of offline) {
    const entry = entries.find((e) => e.ref_id === sale.id)!;
    if (entry.occurred_at.toISOString() !== sale.created_at || contentOf(entry).created_at !== sale.created_at) {
      t.fail(`the offline sale ${sale.id} lost its time: ${entry.occurred_at.toISOString()}, ${contentOf(entry).created_at}, not ${sale.created_at}`);
    }
  }
  t.ok((await integrity(api, owner.token)).ok, 'the integrity check finds it whole');
});

t.test('an offline sale is chained when it is pushed, after what was recorded before it, and keeps its own time', async (t) => {
  const { owner, manager } = await staffedShop(api);
  const tablet = await pairDevice(api, manager.token);
  const earlier = await sell(api, manager.token, { items: [{ name: 'Pain', quantity: 1, unit_price_xaf: 150 }], payments: cash(150) });
  const madeAt = new Date(Date.now() - 3 * 3_600_000).toISOString();
  const sale = offlineSale(randomUUID(), (await createProduct(api, manager.token, { price_xaf: 700 }, 10)).id, 1, { created_at: madeAt, payments: cash(700) });
  const pushedAt = Date.now();
  const reply = await push(api, { device: tablet.token }, { sales: [sale] });
  t.equal(reply.body.data.results[0].status, 'applied');
  const entries = await fiscalEntries(api, owner.shop.id);
  t.strictSame(entries.map((entry) => [entry.chain_no, entry.ref_id]), [[1, earlier.id], [2, sale.id]], 'made three hours before the sale online, chained after it');
  const entry = entries[1]!;
  t.equal(entry.occurred_at.toISOString(), madeAt, 'occurred_at is the till\'s time');
  t.equal(contentOf(entry).created_at, madeAt, 'so is the content\'s created_at');
  t.ok(entry.recorded_at.getTime() >= pushedAt - 1_000, 'recorded_at is when it was pushed');
  t.strictSame(chainFaults(entries), []);
});

t.test('two shops\' chains never mix: each starts at 1, and a shop\'s app role sees and writes none of the other\'s entries', async (t) => {
  const [a, b] = await Promise.all([registerShop(api), registerShop(api)]);
  const line = { items: [{ name: 'Pain', quantity: 1, unit_price_xaf: 150 }], payments: cash(150) };
  await Promise.all([...upTo(6).map(() => sell(api, a.token, line)), ...upTo(4).map(() => sell(api, b.token, line))]);
  const [entriesA, entriesB] = [await fiscalEntries(api, a.shop.id), await fiscalEntries(api, b.shop.id)];
  t.strictSame(entriesA.map((entry) => entry.chain_no), upTo(6), 'shop A: 1 to 6');
  t.strictSame(entriesB.map((entry) => entry.chain_no), upTo(4), 'shop B: 1 to 4');
  t.strictSame([chainFaults(entriesA), chainFaults(entriesB)], [[], []], 'each chain links its own entries, from \'\'');

  const seen = await asApp(api, b.shop.id, b.user.id, (tx) => tx<{ shop_id: string; n: number }[]>`select shop_id, count(*)::int as n from fiscal_entries group by shop_id`);
  t.strictSame(seen.map((row) => ({ ...row })), [{ shop_id: b.shop.id, n: 4 }], 'shop B\'s app role reads its four entries and nothing of A');
  const forged = await refusal(api.appSql, (tx) => tx`
    insert into fiscal_entries (shop_id, chain_no, kind, ref_id, occurred_at, previous_hash, hash, content)
    values (${a.shop.id}, 7, 'sale', ${randomUUID()}, now(), ${entriesA.at(-1)!.hash}, 'x', '{}')`, { shopId: b.shop.id });
  t.match(forged?.message, /row-level security/, 'nor writes into A\'s chain');
});

t.test('the entries and the closings refuse UPDATE, DELETE and TRUNCATE, even to the database\'s owner; the app role may not either', async (t) => {
  const owner = await registerShop(api);
  await sell(api, owner.token, { items: [{ name: 'Pain', quantity: 1, unit_price_xaf: 150 }], payments: cash(150) });
  // A closing to refuse changes to: this month's, sealed as if two months had passed.
  await api.ownerSql`select fiscal_close_next(${owner.shop.id}, now() + interval '2 months')`;
  const [closing] = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from fiscal_closings where shop_id = ${owner.shop.id}`;
  t.equal(closing!.n, 1, 'a closing is there');
  const before = await fiscalEntries(api, owner.shop.id);

  const asOwner = {
    'UPDATE on fiscal_entries': refusal(api.ownerSql, (tx) => tx`update fiscal_entries set hash = hash where shop_id = ${owner.shop.id}`),
    'DELETE on fiscal_entries': refusal(api.ownerSql, (tx) => tx`delete from fiscal_entries where shop_id = ${owner.shop.id}`),
    'TRUNCATE on fiscal_entries': refusal(api.ownerSql, (tx) => tx`truncate fiscal_entries`),
    'UPDATE on fiscal_closings': refusal(api.ownerSql, (tx) => tx`update fiscal_closings set total_xaf = total_xaf where shop_id = ${owner.shop.id}`),
    'DELETE on fiscal_closings': refusal(api.ownerSql, (tx) => tx`delete from fiscal_closings where shop_id = ${owner.shop.id}`),
    'TRUNCATE on fiscal_closings': refusal(api.ownerSql, (tx) => tx`truncate fiscal_closings`),
  };
  for (const [what, refused] of Object.entries(asOwner)) t.match((await refused)?.message, `fiscal records are insert-only: ${what} refused`, `the owner: ${what}`);

  const scope = { shopId: owner.shop.id };
  const asApp = {
    'update fiscal_entries': refusal(api.appSql, (tx) => tx`update fiscal_entries set hash = hash`, scope),
    'delete from fiscal_entries': refusal(api.appSql, (tx) => tx`delete from fiscal_entries`, scope),
    'truncate fiscal_entries': refusal(api.appSql, (tx) => tx`truncate fiscal_entries`, scope),
    'update fiscal_closings': refusal(api.appSql, (tx) => tx`update fiscal_closings set total_xaf = total_xaf`, scope),
    'delete from fiscal_closings': refusal(api.appSql, (tx) => tx`delete from fiscal_closings`, scope),
  };
  for (const [what, refused] of Object.entries(asApp)) t.match((await refused)?.message, /permission denied for table fiscal_(entries|closings)/, `the app role: ${what}`);
  t.strictSame(await fiscalEntries(api, owner.shop.id), before, 'the chain is as it was');
});

t.test('a refused sale takes no chain position: the next sale takes the next number', async (t) => {
  const owner = await registerShop(api);
  const scarce = await createProduct(api, owner.token, { price_xaf: 1_000 }, 1);
  const first = await sell(api, owner.token, { items: [{ product_id: scarce.id, quantity: 1 }], payments: cash(1_000) });
  const refused = await postSale(api, owner.token, { items: [{ product_id: scarce.id, quantity: 1 }], payments: cash(1_000) });
  t.equal(refused.status, 422, 'out of stock');
  const next = await sell(api, owner.token, { items: [{ name: 'Pain', quantity: 1, unit_price_xaf: 150 }], payments: cash(150) });
  const entries = await fiscalEntries(api, owner.shop.id);
  t.strictSame(entries.map((entry) => [entry.chain_no, entry.ref_id]), [[1, first.id], [2, next.id]]);
  t.equal(next.receipt_no, 2, 'nor a receipt number');
  t.strictSame(chainFaults(entries), []);
});
