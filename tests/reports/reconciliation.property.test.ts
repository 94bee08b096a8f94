import fc from 'fast-check';
import t from 'tap';
import { moneyTakenIn } from '../../api/reports/z.ts';
import { readEscPos, textLines, visibleText } from '../receipts/receipt-fixtures.ts';
import { createCustomer, TREASURY } from '../sales/sale-fixtures.ts';
import { createProduct, staffedShop } from '../support/fixtures.ts';
import { checkProperty, propertyRun } from '../support/property.ts';
import { startService, type Reply } from '../support/service.ts';
import { backdate, journalByDay, seal, shopDay } from './report-fixtures.ts';

/**
 * Money that reconciles (CONTRACT section 12), as a standing property. Random days of a shop with an
 * owner, a manager and a cashier: some of them open a shift with a float, then cash, mobile-money,
 * card and split sales, credit sales (some with a down payment, some over the customer's ceiling),
 * settlements (some more than owed), voids and refunds by the manager or the owner with or without a
 * shift of their own, of that day's sales or of earlier days', cash in and out, cash expenses, shifts
 * opened and closed during the day; at the end of the day every open shift is counted at its expected
 * cash; some days are moved back in time and sealed by the nightly task. A model predicts every
 * answer (the 409 no_open_shift of a void or a cash refund with no drawer among them) and which drawer
 * each franc enters or leaves. Then, for every day:
 * 1. each shift counted at its expected cash closes at 0, and its expected cash (and each of its
 *    totals) is what the model put into and took out of that drawer;
 * 2. the day's shifts' cash sales + cash settlements - cash refunds and voids equal the Z's cash
 *    taken in;
 * 3. the Z's money taken in per method (moneyTakenIn) equals the model's payments, settlements,
 *    refunds and voids per method, and the journal's treasury accounts for the day; the Z's credit,
 *    cash movements and expenses equal the model's too;
 * 4. every document of every credit sale (invoice, text receipt in both styles, ESC/POS receipt)
 *    shows as balance due what the customer's statement says the sale still owes, and that is the
 *    model's debt: none for a voided or fully settled sale.
 * Drawers never pay out more than they hold (a real till cannot): such an operation is not generated.
 * Fixed seed; FC_SEED, FC_RUNS and FC_PATH replay another.
 */
const api = await startService(t);
const RUN = propertyRun(20_261_127, 60);
t.setTimeout(300_000);

type Method = 'cash' | 'carrier1_momo' | 'card';
type Line = { product: number; quantity: number };
type Op =
  | { kind: 'sale'; actor: number; lines: Line[]; pay: Method | 'split'; tenderUp: boolean }
  | { kind: 'creditSale'; actor: number; customer: number; lines: Line[]; downQuarters: number; downMethod: 'cash' | 'carrier1_momo' }
  | { kind: 'settle'; actor: number; customer: number; share: 'all' | 'part' | 'over'; method: Method }
  | { kind: 'void'; actor: number; sale: number }
  | { kind: 'refund'; actor: number; sale: number; line: number; quantity: number; method: Method | 'credit' }
  | { kind: 'cash'; actor: number; direction: 'in' | 'out'; amount: number }
  | { kind: 'expense'; actor: number; amount: number }
  | { kind: 'open'; actor: number; float: number }
  | { kind: 'close'; actor: number };

const PRODUCTS = [
  { name: 'Ciment', price_xaf: 5_000, vat_rate: 19.25, cost_xaf: 3_500 },
  { name: 'Huile', price_xaf: 1_250, vat_rate: 5.5, cost_xaf: 900 },
  { name: 'Riz', price_xaf: 700, vat_rate: 0, cost_xaf: 500 },
  { name: 'Livraison', price_xaf: 2_000, vat_rate: 19.25, tracked: false },
];
/** Two customers: one whose ceiling credit sales reach now and then, one with room. */
const CEILINGS = [20_000, 150_000];

const lines = fc.array(fc.record({ product: fc.nat(PRODUCTS.length - 1), quantity: fc.integer({ min: 1, max: 3 }) }), { minLength: 1, maxLength: 2 });
const actor = fc.nat(2);
const float = fc.nat(8).map((n) => n * 2_500);
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('sale' as const), actor, lines, pay: fc.constantFrom('cash' as const, 'carrier1_momo' as const, 'card' as const, 'split' as const), tenderUp: fc.boolean() }) },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('creditSale' as const), actor, customer: fc.nat(1), lines, downQuarters: fc.nat(3), downMethod: fc.constantFrom('cash' as const, 'carrier1_momo' as const) }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('settle' as const),
      actor,
      customer: fc.nat(1),
      share: fc.constantFrom('all' as const, 'part' as const, 'part' as const, 'part' as const, 'over' as const),
      method: fc.constantFrom('cash' as const, 'cash' as const, 'carrier1_momo' as const, 'card' as const),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('void' as const), actor, sale: fc.nat(40) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('refund' as const),
      actor,
      sale: fc.nat(40),
      line: fc.nat(1),
      quantity: fc.integer({ min: 1, max: 3 }),
      method: fc.constantFrom('cash' as const, 'cash' as const, 'carrier1_momo' as const, 'card' as const, 'credit' as const, 'credit' as const),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cash' as const), actor, direction: fc.constantFrom('in' as const, 'out' as const), amount: fc.integer({ min: 1, max: 20 }).map((n) => n * 500) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('expense' as const), actor, amount: fc.integer({ min: 1, max: 10 }).map((n) => n * 500) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('open' as const), actor, float }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('close' as const), actor }) },
);
const dayPlan = fc.record({ openers: fc.subarray([0, 1, 2]), floats: fc.tuple(float, float, float), ops: fc.array(op, { minLength: 5, maxLength: 20 }), sealAfter: fc.boolean() });

/** A drawer as the model sees it: what entered and left it. */
interface Drawer {
  id: string;
  open: boolean;
  float: number;
  sales: number;
  settlements: number;
  reversals: number;
  in: number;
  out: number;
  expenses: number;
}
const holds = (d: Drawer) => d.float + d.sales + d.settlements - d.reversals + d.in - d.out - d.expenses;

interface User {
  role: 'owner' | 'manager' | 'cashier';
  token: string;
  drawer: Drawer | null;
}

interface Customer {
  id: string;
  ceiling: number;
  /** Its credit sales, oldest first: settlements pay them in that order. */
  debts: Sale[];
}

interface Sale {
  id: string;
  receiptNo: number;
  /** The drawer it was taken in, if its seller had one open. */
  drawer: Drawer | null;
  /** Per method, net of change; credit included. */
  paid: Record<string, number>;
  items: { id: string; price: number; quantity: number; refunded: number }[];
  status: 'completed' | 'partially_refunded' | 'refunded' | 'voided';
  /** What it left on the customer's account (less what refunds and a void took back), and what was settled of it. */
  debt: { amount: number; settled: number } | null;
}

/** One business day as the model recorded it. */
interface Day {
  /** Money taken in per method: sales net of change, plus settlements, less refunds and voids. */
  taken: Record<string, number>;
  /** Sold on the customers' accounts, less what voids and credit refunds took back. */
  credit: number;
  cashIn: number;
  cashOut: number;
  expenses: number;
  /** Each shift closed that day, with the totals GET /shift gave just before. */
  drawers: { user: string; sales: number; settlements: number; reversals: number }[];
}

const owes = (customer: Customer) => customer.debts.reduce((sum, sale) => sum + sale.debt!.amount - sale.debt!.settled, 0);
const add = (record: Record<string, number>, method: string, amount: number) => {
  record[method] = (record[method] ?? 0) + amount;
};
const nonZero = (record: Record<string, number>) =>
  Object.fromEntries(Object.entries(record).filter(([, amount]) => amount !== 0).sort(([a], [b]) => a.localeCompare(b)));
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The treasury lines of the money a Z counts: the sales, their voids and refunds, and settlements.
 * Cash movements (571 against 588), expenses and supplier payments also move 571 but are no money
 * taken in; they are left out by their entries' source_type.
 */
const MONEY_SOURCES = ['sale', 'sale_void', 'sale_refund', 'customer_payment'];
const TREASURY_ACCOUNTS = [...new Set(Object.values(TREASURY))];

/** Every amount a document prints as due: its balance line, and the invoice's stamp (`Reste dû : ...`). */
const dueShown = (text: string) => [
  ...new Set([...text.replace(/\s+/g, ' ').matchAll(/Reste dû(?: \(compte client\))?\s*:?\s*(\d[\d ]*) FCFA/g)].map((match) => Number(match[1]!.replace(/ /g, '')))),
];

/** A day's records must not straddle midnight: a run starting less than two minutes before it waits for it. */
async function awayFromMidnight(shopId: string): Promise<void> {
  const [row] = await api.ownerSql<{ left: number }[]>`
    select extract(epoch from ((now() at time zone timezone)::date + 1 - (now() at time zone timezone)))::float8 as left from shops where id = ${shopId}`;
  if (row!.left < 120) await new Promise((resolve) => setTimeout(resolve, (row!.left + 2) * 1_000));
}

t.test('over random days of tills, sales, credit, settlements, voids, refunds, cash movements and expenses, sealed or not, the money reconciles', async (t) => {
  // The sealing task runs in a real graphile-worker, without mail (the Z mails queue and stay).
  const { startMailbox, startMailWorker } = await import('../support/mailbox.ts');
  await startMailWorker(t, api, await startMailbox(t));
  const seen = {
    runs: 0,
    cashSales: 0,
    otherSales: 0,
    changeGiven: 0,
    creditSales: 0,
    overCeiling: 0,
    settlements: 0,
    cashSettlements: 0,
    overpayments: 0,
    voids: 0,
    voidsFromSaleDrawer: 0,
    voidsByManagerWithoutShift: 0,
    refunds: 0,
    cashRefunds: 0,
    cashRefundsFromSaleDrawer: 0,
    creditRefunds: 0,
    noOpenShift: 0,
    cashIn: 0,
    cashOut: 0,
    expenses: 0,
    shiftsClosed: 0,
    documentsChecked: 0,
    sealedDays: 0,
    openDays: 0,
    skipped: 0,
    /** Every refusal the model predicted and the service gave, by code. */
    refused: {} as Record<string, number>,
  };
  const property = fc.asyncProperty(fc.array(dayPlan, { minLength: 1, maxLength: 3 }), async (plan) => {
    seen.runs++;
    // Each run opens a shop through the public routes (registration, two logins): a long shrink would
    // reach the per-address limit (and report a 429 instead of the counterexample), so its bucket is cleared.
    await api.ownerSql`delete from rate_limits where bucket like 'address:%'`;
    const staff = await staffedShop(api);
    const shopId: string = staff.owner.shop.id;
    const owner = staff.owner.token;
    await awayFromMidnight(shopId);
    const users: User[] = [
      { role: 'owner', token: staff.owner.token, drawer: null },
      { role: 'manager', token: staff.manager.token, drawer: null },
      { role: 'cashier', token: staff.cashier.token, drawer: null },
    ];
    const products: { id: string }[] = [];
    for (const { tracked, ...fields } of PRODUCTS) products.push(await createProduct(api, owner, { ...fields, ...(tracked === false ? { tracked } : {}) }, tracked === false ? 0 : 1_000));
    const customers: Customer[] = [];
    for (const ceiling of CEILINGS) customers.push({ id: (await createCustomer(api, owner, { credit_ceiling_xaf: ceiling })).id, ceiling, debts: [] });
    const sales: Sale[] = [];
    const days: Day[] = [];
    const trace: string[] = [];

    const fail = (message: string): never => {
      throw new Error(`${message}\n  what happened (day.step who: what -> answer):\n    ${trace.join('\n    ')}`);
    };
    const expectReply = (reply: Reply, status: number, code?: string) => {
      trace[trace.length - 1] += ` -> ${reply.status}${reply.body?.code ? ` ${reply.body.code}` : ''}`;
      if (reply.status !== status || (code !== undefined && reply.body?.code !== code)) {
        fail(`the model expected ${status}${code ? ` ${code}` : ''}, the service answered ${reply.status} ${JSON.stringify(reply.body).slice(0, 300)}`);
      }
      if (code) seen.refused[code] = (seen.refused[code] ?? 0) + 1;
    };
    const withDrawer = (choice: number, among = users) => {
      const open = among.filter((user) => user.drawer);
      return open.length ? open[choice % open.length]! : null;
    };
    const basket = (chosen: Line[]) => ({
      items: chosen.map((line) => ({ product_id: products[line.product]!.id, quantity: line.quantity })),
      total: chosen.reduce((sum, line) => sum + line.quantity * PRODUCTS[line.product]!.price_xaf, 0),
    });
    const recordSale = (reply: Reply, seller: User, total: number, paid: Record<string, number>, debt: Sale['debt']): Sale => {
      const data = reply.body.data;
      if (data.total_xaf !== total) fail(`the model priced the sale at ${total}, the service at ${data.total_xaf}`);
      const sale: Sale = {
        id: data.id,
        receiptNo: data.receipt_no,
        drawer: seller.drawer,
        paid,
        items: [...data.items].sort((a: any, b: any) => a.line_no - b.line_no).map((item: any) => ({ id: item.id, price: item.unit_price_xaf, quantity: item.quantity, refunded: 0 })),
        status: 'completed',
        debt,
      };
      trace[trace.length - 1] += ` R${sale.receiptNo}`;
      sales.push(sale);
      return sale;
    };

    const openShift = async (user: User, openingFloat: number, where: string) => {
      trace.push(`${where} ${user.role}: opens a shift with ${openingFloat}`);
      const reply = await api.request('POST', '/shift/open', { token: user.token, body: { opening_float_xaf: openingFloat } });
      if (user.drawer) return expectReply(reply, 409, 'shift_already_open');
      expectReply(reply, 201);
      user.drawer = { id: reply.body.data.id, open: true, float: openingFloat, sales: 0, settlements: 0, reversals: 0, in: 0, out: 0, expenses: 0 };
    };

    // Invariant 1: the drawer's totals are the model's; counted at its expected cash, it closes at 0.
    const closeShift = async (user: User, today: Day, where: string) => {
      const drawer = user.drawer;
      if (!drawer) {
        trace.push(`${where} ${user.role}: closes (no shift open)`);
        return expectReply(await api.request('POST', '/shift/close', { token: user.token, body: { counted_cash_xaf: 0 } }), 409, 'no_open_shift');
      }
      const current = (await api.request('GET', '/shift', { token: user.token })).body.data;
      if (current?.id !== drawer.id) fail(`${where}: ${user.role}'s open shift is ${current?.id}, the model's ${drawer.id}`);
      const totals = current.totals;
      const service = {
        opening_float_xaf: totals.opening_float_xaf,
        cash_sales_xaf: totals.cash_sales_xaf,
        cash_settlements_xaf: totals.cash_settlements_xaf,
        cash_refunds_xaf: totals.cash_refunds_xaf,
        cash_in_xaf: totals.cash_in_xaf,
        cash_out_xaf: totals.cash_out_xaf,
        cash_expenses_xaf: totals.cash_expenses_xaf,
        expected_cash_xaf: totals.expected_cash_xaf,
      };
      const model = {
        opening_float_xaf: drawer.float,
        cash_sales_xaf: drawer.sales,
        cash_settlements_xaf: drawer.settlements,
        cash_refunds_xaf: drawer.reversals,
        cash_in_xaf: drawer.in,
        cash_out_xaf: drawer.out,
        cash_expenses_xaf: drawer.expenses,
        expected_cash_xaf: holds(drawer),
      };
      trace.push(`${where} ${user.role}: closes, counted at ${service.expected_cash_xaf}`);
      if (!same(service, model)) fail(`invariant 1: ${user.role}'s drawer before closing: the service says ${JSON.stringify(service)}, the model ${JSON.stringify(model)}`);
      const closed = await api.request('POST', '/shift/close', { token: user.token, body: { counted_cash_xaf: service.expected_cash_xaf } });
      expectReply(closed, 200);
      if (closed.body.data.difference_xaf !== 0 || closed.body.data.expected_cash_xaf !== service.expected_cash_xaf) {
        fail(`invariant 1: counted at its expected cash ${service.expected_cash_xaf}, ${user.role}'s shift closed with expected ${closed.body.data.expected_cash_xaf}, difference ${closed.body.data.difference_xaf}`);
      }
      today.drawers.push({ user: user.role, sales: service.cash_sales_xaf, settlements: service.cash_settlements_xaf, reversals: service.cash_refunds_xaf });
      drawer.open = false;
      user.drawer = null;
      seen.shiftsClosed++;
    };

    /** Invariants 2 and 3 for one day, by its Z (live, or stored once sealed) and the journal. Answers whether the Z is sealed. */
    const checkDay = async (day: Day, date: string, label: string): Promise<boolean> => {
      const reply = await api.request('GET', `/reports/z?date=${date}`, { token: owner });
      if (reply.status !== 200) fail(`${label}: GET /reports/z answered ${reply.status}`);
      const z = reply.body.data;
      const taken = nonZero(Object.fromEntries(moneyTakenIn(z).map(({ method, amount_xaf }) => [method, amount_xaf])));
      const model = nonZero(day.taken);
      const zFigures = `payments ${JSON.stringify(z.payments)}, settlements ${z.settlements ? JSON.stringify(z.settlements) : 'absent'}`;
      if (!same(taken, model)) fail(`invariant 3: ${label}: the Z's money taken in is ${JSON.stringify(taken)} (${zFigures}), the model's ${JSON.stringify(model)}`);
      const drawers = day.drawers.reduce((sum, d) => sum + d.sales + d.settlements - d.reversals, 0);
      if (drawers !== (taken.cash ?? 0)) {
        fail(`invariant 2: ${label}: the day's drawers took in ${drawers} in cash (${JSON.stringify(day.drawers)}), the Z ${taken.cash ?? 0} (${zFigures})`);
      }
      const credit = z.payments.find((p: { method: string }) => p.method === 'credit')?.amount_xaf ?? 0;
      if (credit !== day.credit) fail(`invariant 3: ${label}: the Z sold ${credit} on credit, the model ${day.credit}`);
      const others = { in: z.cash_movements.in_xaf, out: z.cash_movements.out_xaf, expenses: z.expenses.total_xaf };
      if (!same(others, { in: day.cashIn, out: day.cashOut, expenses: day.expenses })) {
        fail(`invariant 3: ${label}: the Z's cash movements and expenses ${JSON.stringify(others)}, the model's ${JSON.stringify({ in: day.cashIn, out: day.cashOut, expenses: day.expenses })}`);
      }
      for (const account of TREASURY_ACCOUNTS) {
        const journal = (await journalByDay(api, shopId, account, MONEY_SOURCES)).get(date) ?? 0;
        // journalByDay nets credit minus debit: money coming in is a debit of the treasury account.
        const expected = Object.entries(day.taken).reduce((sum, [method, amount]) => sum + (TREASURY[method as keyof typeof TREASURY] === account ? amount : 0), 0);
        if (-journal !== expected) fail(`invariant 3: ${label}: the journal debited ${account} by ${-journal} for the day's sales, voids, refunds and settlements, the model took in ${expected}`);
      }
      return z.sealed;
    };

    // Invariant 4: every document of every credit sale shows the debt the customer's statement lists for it, the model's.
    // The shared pages (public, limited per address) and the e-mail render the same standing() of the same
    // loadReceiptInput; tests/receipts/balance-due.test.ts reads all twelve documents.
    const checkDocuments = async (label: string) => {
      const problems: string[] = [];
      const statements = new Map<string, any>();
      for (const customer of customers) {
        statements.set(customer.id, (await api.request('GET', `/customers/${customer.id}/statement`, { token: owner })).body.data);
      }
      const get = async (path: string) => {
        const reply = await api.request('GET', path, { token: owner });
        if (reply.status !== 200) fail(`${label}: GET ${path} answered ${reply.status}`);
        return reply.body;
      };
      for (const customer of customers) {
        for (const sale of customer.debts) {
          const model = sale.status === 'voided' ? 0 : sale.debt!.amount - sale.debt!.settled;
          const listed = statements.get(customer.id).unsettled.find((debt: { source_id: string }) => debt.source_id === sale.id)?.remaining_xaf ?? 0;
          const what = `R${sale.receiptNo} (${sale.status}, left on the account ${sale.debt!.amount}, settled ${sale.debt!.settled})`;
          if (listed !== model) problems.push(`${what}: the customer's statement says ${listed} is left, the model ${model}`);
          const documents: Record<string, string> = {
            invoice: visibleText(await get(`/sales/${sale.id}/invoice`)),
            'text receipt': (await get(`/sales/${sale.id}/receipt/text?style=fixed`)).data.text,
            'chat receipt': (await get(`/sales/${sale.id}/receipt/text?style=chat`)).data.text,
            'ESC/POS receipt': textLines(readEscPos(Buffer.from((await get(`/sales/${sale.id}/receipt?width=58`)).data.base64, 'base64')))
              .map((line) => line.text)
              .join('\n'),
          };
          for (const [name, text] of Object.entries(documents)) {
            const shown = dueShown(text);
            if (!same(shown, listed ? [listed] : [])) problems.push(`${what}: the ${name} shows ${shown.length ? shown.join(' and ') : 'no'} balance due, the statement ${listed || 'none'}`);
            seen.documentsChecked++;
          }
        }
      }
      if (problems.length) fail(`invariant 4: ${label}:\n    ${problems.join('\n    ')}`);
    };

    for (const [index, { openers, floats, ops, sealAfter }] of plan.entries()) {
      const today: Day = { taken: {}, credit: 0, cashIn: 0, cashOut: 0, expenses: 0, drawers: [] };
      days.push(today);
      const d = `d${index + 1}`;
      for (const who of openers) await openShift(users[who]!, floats[who]!, `${d}.0`);
      for (const [step, operation] of ops.entries()) {
        const where = `${d}.${step + 1}`;
        if (operation.kind === 'sale') {
          // Cash only at a till: whoever takes it has a shift open.
          const takesCash = operation.pay === 'cash' || operation.pay === 'split';
          const seller = takesCash ? withDrawer(operation.actor) : users[operation.actor % users.length]!;
          if (!seller) {
            seen.skipped++;
            continue;
          }
          const { items, total } = basket(operation.lines);
          const cashPart = operation.pay === 'cash' ? total : operation.pay === 'split' ? Math.floor(total / 2) : 0;
          const tendered = operation.pay === 'cash' && operation.tenderUp ? (Math.floor(total / 5_000) + 1) * 5_000 : cashPart;
          const payments =
            operation.pay === 'cash'
              ? [{ method: 'cash', amount_xaf: tendered }]
              : operation.pay === 'split'
                ? [{ method: 'cash', amount_xaf: cashPart }, { method: 'carrier1_momo', amount_xaf: total - cashPart }]
                : [{ method: operation.pay, amount_xaf: total }];
          trace.push(`${where} ${seller.role}: sells ${total}, paid ${payments.map((p) => `${p.amount_xaf} ${p.method}`).join(' + ')}`);
          const reply = await api.request('POST', '/sales', { token: seller.token, body: { items, payments } });
          expectReply(reply, 201);
          const paid: Record<string, number> = {};
          if (cashPart) add(paid, 'cash', cashPart);
          if (total - cashPart) add(paid, operation.pay === 'split' ? 'carrier1_momo' : operation.pay, total - cashPart);
          recordSale(reply, seller, total, paid, null);
          for (const [method, amount] of Object.entries(paid)) add(today.taken, method, amount);
          if (cashPart) {
            seller.drawer!.sales += cashPart;
            seen.cashSales++;
          } else seen.otherSales++;
          if (tendered > cashPart) seen.changeGiven++;
        } else if (operation.kind === 'creditSale') {
          const { items, total } = basket(operation.lines);
          const down = Math.floor((total * operation.downQuarters) / 4);
          const cashDown = down > 0 && operation.downMethod === 'cash';
          const seller = cashDown ? withDrawer(operation.actor) : users[operation.actor % users.length]!;
          if (!seller) {
            seen.skipped++;
            continue;
          }
          const customer = customers[operation.customer]!;
          const credit = total - down;
          const payments = [...(down ? [{ method: operation.downMethod, amount_xaf: down }] : []), { method: 'credit', amount_xaf: credit }];
          trace.push(`${where} ${seller.role}: sells ${total} to customer ${operation.customer + 1} (owes ${owes(customer)} of ${customer.ceiling}), ${down ? `${down} ${operation.downMethod} down, ` : ''}${credit} on credit`);
          const reply = await api.request('POST', '/sales', { token: seller.token, body: { customer_id: customer.id, items, payments } });
          if (owes(customer) + credit > customer.ceiling) {
            expectReply(reply, 422, 'credit_limit_exceeded');
            seen.overCeiling++;
            continue;
          }
          expectReply(reply, 201);
          const paid: Record<string, number> = { credit };
          if (down) add(paid, operation.downMethod, down);
          customer.debts.push(recordSale(reply, seller, total, paid, { amount: credit, settled: 0 }));
          today.credit += credit;
          if (down) add(today.taken, operation.downMethod, down);
          if (cashDown) seller.drawer!.sales += down;
          seen.creditSales++;
        } else if (operation.kind === 'settle') {
          const payer = operation.method === 'cash' ? withDrawer(operation.actor) : users[operation.actor % users.length]!;
          if (!payer) {
            seen.skipped++;
            continue;
          }
          // Mostly a customer who owes something: the other one when the one drawn owes nothing.
          const drawn = customers[operation.customer]!;
          const customer = owes(drawn) > 0 ? drawn : (customers.find((c) => owes(c) > 0) ?? drawn);
          const balance = owes(customer);
          const amount = operation.share === 'all' && balance > 0 ? balance : operation.share === 'part' && balance > 1 ? Math.round(balance / 3) : balance + 500;
          trace.push(`${where} ${payer.role}: customer ${customers.indexOf(customer) + 1} (owes ${balance}) pays ${amount} ${operation.method}`);
          const reply = await api.request('POST', `/customers/${customer.id}/payments`, { token: payer.token, body: { amount_xaf: amount, method: operation.method } });
          if (amount > balance) {
            expectReply(reply, 422, 'overpayment');
            seen.overpayments++;
            continue;
          }
          expectReply(reply, 201);
          // The oldest debts first.
          const allocations: { source_id: string; amount_xaf: number }[] = [];
          let left = amount;
          for (const sale of customer.debts) {
            const part = Math.min(left, sale.debt!.amount - sale.debt!.settled);
            if (part <= 0) continue;
            sale.debt!.settled += part;
            left -= part;
            allocations.push({ source_id: sale.id, amount_xaf: part });
          }
          const allocated = reply.body.data.allocations.map((a: { source_id: string; amount_xaf: number }) => ({ source_id: a.source_id, amount_xaf: a.amount_xaf }));
          if (!same(allocated, allocations)) fail(`the settlement paid ${JSON.stringify(allocated)}, the model ${JSON.stringify(allocations)}`);
          add(today.taken, operation.method, amount);
          if (operation.method === 'cash') {
            payer.drawer!.settlements += amount;
            seen.cashSettlements++;
          }
          seen.settlements++;
        } else if (operation.kind === 'void') {
          if (!sales.length) continue;
          const voider = users[operation.actor % 2]!;
          const sale = sales[operation.sale % sales.length]!;
          const cash = sale.paid.cash ?? 0;
          // The sale's drawer while it is open, else the voider's.
          const drawer = sale.drawer?.open ? sale.drawer : voider.drawer;
          if (sale.status === 'completed' && !sale.debt?.settled && drawer && cash > holds(drawer)) {
            seen.skipped++;
            continue;
          }
          trace.push(`${where} ${voider.role}${voider.drawer ? '' : ' (no shift)'}: voids R${sale.receiptNo} (${sale.status}, paid ${JSON.stringify(sale.paid)}${sale.drawer ? `, its shift ${sale.drawer.open ? 'open' : 'closed'}` : ', no shift'})`);
          const refusal =
            sale.status === 'voided' ? 'sale_already_voided'
            : sale.status !== 'completed' ? 'sale_refunded'
            : sale.debt?.settled ? 'sale_credit_settled'
            : !drawer && cash !== 0 ? 'no_open_shift'
            : null;
          const reply = await api.request('POST', `/sales/${sale.id}/void`, { token: voider.token, body: { reason: 'Erreur de caisse' } });
          if (refusal) {
            expectReply(reply, 409, refusal);
            if (refusal === 'no_open_shift') seen.noOpenShift++;
            continue;
          }
          expectReply(reply, 200);
          for (const [method, amount] of Object.entries(sale.paid)) {
            if (method === 'credit') today.credit -= amount;
            else add(today.taken, method, -amount);
          }
          if (cash) drawer!.reversals += cash;
          if (sale.debt) sale.debt.amount = 0;
          sale.status = 'voided';
          seen.voids++;
          if (drawer && drawer === sale.drawer && drawer !== voider.drawer) seen.voidsFromSaleDrawer++;
          if (voider.role === 'manager' && !voider.drawer) seen.voidsByManagerWithoutShift++;
        } else if (operation.kind === 'refund') {
          if (!sales.length) continue;
          const refunder = users[operation.actor % 2]!;
          const sale = sales[operation.sale % sales.length]!;
          const method = operation.method === 'credit' && !sale.debt ? 'cash' : operation.method;
          // The refunder's drawer, else the sale's while it is open.
          const drawer = refunder.drawer ?? (sale.drawer?.open ? sale.drawer : null);
          // A line with something left to refund; back on the account, one of the cheapest (the debt left may be small).
          const left = sale.items.filter((i) => i.refunded < i.quantity);
          const chosen = sale.items[operation.line % sale.items.length]!;
          const item =
            method === 'credit' && left.length
              ? left.reduce((cheapest, i) => (i.price < cheapest.price ? i : cheapest))
              : chosen.refunded < chosen.quantity ? chosen : (left[0] ?? chosen);
          const quantity = method === 'credit' ? 1 : Math.max(1, Math.min(operation.quantity, item.quantity - item.refunded));
          const amount = item.price * quantity;
          const refundable = sale.status === 'completed' || sale.status === 'partially_refunded';
          if (refundable && method === 'cash' && drawer && amount > holds(drawer)) {
            seen.skipped++;
            continue;
          }
          trace.push(
            `${where} ${refunder.role}${refunder.drawer ? '' : ' (no shift)'}: refunds ${quantity} x ${item.price} of R${sale.receiptNo} (${sale.status}${sale.drawer ? `, its shift ${sale.drawer.open ? 'open' : 'closed'}` : ', no shift'}) in ${method}`,
          );
          const refusal: [number, string] | null =
            sale.status === 'voided' ? [409, 'sale_voided']
            : sale.status === 'refunded' ? [409, 'sale_refunded']
            : !drawer && method === 'cash' ? [409, 'no_open_shift']
            : method === 'credit' && sale.debt!.amount - sale.debt!.settled < amount ? [422, 'validation_failed']
            : null;
          const reply = await api.request('POST', `/sales/${sale.id}/refund`, { token: refunder.token, body: { method, items: [{ sale_item_id: item.id, quantity }] } });
          if (refusal) {
            expectReply(reply, ...refusal);
            if (refusal[1] === 'no_open_shift') seen.noOpenShift++;
            continue;
          }
          expectReply(reply, 201);
          item.refunded += quantity;
          sale.status = sale.items.every((i) => i.refunded === i.quantity) ? 'refunded' : 'partially_refunded';
          if (method === 'credit') {
            sale.debt!.amount -= amount;
            today.credit -= amount;
            seen.creditRefunds++;
          } else add(today.taken, method, -amount);
          if (method === 'cash') {
            drawer!.reversals += amount;
            seen.cashRefunds++;
            if (drawer !== refunder.drawer) seen.cashRefundsFromSaleDrawer++;
          }
          seen.refunds++;
        } else if (operation.kind === 'cash') {
          const user = withDrawer(operation.actor);
          if (!user || (operation.direction === 'out' && operation.amount > holds(user.drawer!))) {
            seen.skipped++;
            continue;
          }
          trace.push(`${where} ${user.role}: cash ${operation.direction} ${operation.amount}`);
          expectReply(await api.request('POST', '/shift/cash', { token: user.token, body: { direction: operation.direction, amount_xaf: operation.amount, reason: 'Fond de caisse' } }), 201);
          if (operation.direction === 'in') {
            user.drawer!.in += operation.amount;
            today.cashIn += operation.amount;
            seen.cashIn++;
          } else {
            user.drawer!.out += operation.amount;
            today.cashOut += operation.amount;
            seen.cashOut++;
          }
        } else if (operation.kind === 'expense') {
          // Expenses are the owner's and the manager's, paid from their open drawer.
          const user = withDrawer(operation.actor, users.slice(0, 2));
          if (!user || operation.amount > holds(user.drawer!)) {
            seen.skipped++;
            continue;
          }
          trace.push(`${where} ${user.role}: pays an expense of ${operation.amount} in cash`);
          expectReply(await api.request('POST', '/expenses', { token: user.token, body: { category: 'supplies', amount_xaf: operation.amount, payment_method: 'cash' } }), 201);
          user.drawer!.expenses += operation.amount;
          today.expenses += operation.amount;
          seen.expenses++;
        } else if (operation.kind === 'open') {
          await openShift(users[operation.actor % users.length]!, operation.float, where);
        } else {
          await closeShift(users[operation.actor % users.length]!, today, where);
        }
      }
      for (const user of users) if (user.drawer) await closeShift(user, today, `${d}.end`);
      await checkDay(today, await shopDay(api, shopId), `day ${index + 1} (live)`);
      await checkDocuments(`after day ${index + 1}`);
      if (index < plan.length - 1) {
        await backdate(api, shopId, 1);
        if (sealAfter) await seal(api);
      }
    }
    // Every day again as its Z now stands: sealed ones as stored.
    for (const [index, day] of days.entries()) {
      const sealed = await checkDay(day, await shopDay(api, shopId, index - (days.length - 1)), `day ${index + 1} (at the end)`);
      if (sealed) seen.sealedDays++;
      else seen.openDays++;
    }
  });
  const started = Date.now();
  // 60 runs take 50 s alone on a 2-core machine, more beside another file: the time limit guards a failure's shrinking, not the runs.
  await checkProperty(t, property, RUN, 'random runs of days', 150_000);
  t.comment(`${seen.runs} runs in ${((Date.now() - started) / 1_000).toFixed(1)} s; exercised: ${JSON.stringify(seen)}`);
  // What the runs reached, once they all held (a failure's shrinking runs would count too).
  if (!RUN.path && t.passing()) {
    t.ok(seen.cashSales > 0 && seen.otherSales > 0 && seen.changeGiven > 0, `cash sales (${seen.cashSales}, change given ${seen.changeGiven}) and others (${seen.otherSales}) were made`);
    t.ok(seen.creditSales > 0 && seen.overCeiling > 0, `credit sales were made (${seen.creditSales}) and refused over the ceiling (${seen.overCeiling})`);
    t.ok(seen.settlements > 0 && seen.cashSettlements > 0 && seen.overpayments > 0, `settlements (${seen.settlements}, in cash ${seen.cashSettlements}) and overpayments refused (${seen.overpayments})`);
    t.ok(seen.voidsByManagerWithoutShift > 0 && seen.voidsFromSaleDrawer > 0, `voids by a manager without a shift (${seen.voidsByManagerWithoutShift}), from the sale's open drawer (${seen.voidsFromSaleDrawer})`);
    t.ok(seen.cashRefunds > 0 && seen.cashRefundsFromSaleDrawer > 0 && seen.creditRefunds > 0, `cash refunds (${seen.cashRefunds}, from the sale's drawer ${seen.cashRefundsFromSaleDrawer}) and credit refunds (${seen.creditRefunds})`);
    t.ok(seen.noOpenShift > 0, `voids and cash refunds with no drawer open, predicted and answered 409 no_open_shift (${seen.noOpenShift})`);
    t.ok(seen.cashIn > 0 && seen.cashOut > 0 && seen.expenses > 0, `cash in (${seen.cashIn}), out (${seen.cashOut}) and expenses (${seen.expenses})`);
    t.ok(seen.sealedDays > 0 && seen.openDays > 0, `days were sealed (${seen.sealedDays}) and left open (${seen.openDays})`);
  }
});
