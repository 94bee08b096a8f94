import { randomUUID } from 'node:crypto';
import t from 'tap';
import { createProduct, ledgerInvariants } from '../support/fixtures.ts';
import { startService, type Reply } from '../support/service.ts';
import { offlineSale, pairDevice, push } from '../sync/sync-fixtures.ts';
import { receive } from '../purchases/purchase-fixtures.ts';
import { staffedShop } from './stock-fixtures.ts';

/**
 * A return to the supplier of a batch's last units and sales of those same units, fired at once.
 * Whatever order the database puts them in, the result is the result of some order one after the
 * other: the requests that fit in that order succeed whole, the others are refused with
 * insufficient_stock (an offline sale is never refused), no batch goes below zero, the batches never
 * hold more than the on-hand, and the on-hand is the sum of its movements.
 */

const api = await startService(t);

/** One of the requests fired together: an online sale, a sale pushed by a till, or a return of line R to the supplier. */
type Move = { kind: 'sale'; quantity: number } | { kind: 'offline'; quantity: number } | { kind: 'return'; quantity: number };

interface Scenario {
  what: string;
  /** The batch R that the return gives back from (soonest expiry), its later sibling S, unbatched units. */
  stock: { R: number; S: number; unbatched: number };
  moves: Move[];
}

const SCENARIOS: Scenario[] = [
  { what: 'a return of 2 of R\'s 3 against two sales of 2', stock: { R: 3, S: 0, unbatched: 0 }, moves: [{ kind: 'sale', quantity: 2 }, { kind: 'return', quantity: 2 }, { kind: 'sale', quantity: 2 }] },
  { what: 'a return of all of R against three sales of 1', stock: { R: 3, S: 0, unbatched: 0 }, moves: [{ kind: 'return', quantity: 3 }, { kind: 'sale', quantity: 1 }, { kind: 'sale', quantity: 1 }, { kind: 'sale', quantity: 1 }] },
  { what: 'a return of all of R against a sale of 3 with unbatched stock beside', stock: { R: 3, S: 0, unbatched: 2 }, moves: [{ kind: 'sale', quantity: 3 }, { kind: 'return', quantity: 3 }] },
  { what: 'a return of 2 of R against a sale of 3 that S can finish', stock: { R: 3, S: 2, unbatched: 0 }, moves: [{ kind: 'return', quantity: 2 }, { kind: 'sale', quantity: 3 }] },
  { what: 'a return of 2 of R against an offline sale of 2', stock: { R: 3, S: 0, unbatched: 0 }, moves: [{ kind: 'offline', quantity: 2 }, { kind: 'return', quantity: 2 }, { kind: 'sale', quantity: 1 }] },
];
const ROUNDS = 20;

interface State {
  R: number;
  S: number;
  onHand: number;
}

interface Outcome extends State {
  succeeded: boolean[];
}

/** Runs the moves one after the other in the given order, as the rules say (first expired first out, a batched return from its batch). */
function serially(stock: Scenario['stock'], moves: Move[], order: number[]): Outcome {
  const state: State = { R: stock.R, S: stock.S, onHand: stock.R + stock.S + stock.unbatched };
  const succeeded = moves.map(() => false);
  for (const i of order) {
    const move = moves[i]!;
    if (move.kind === 'return') {
      if (state.onHand < move.quantity || state.R < move.quantity) continue;
      state.R -= move.quantity;
    } else {
      if (move.kind === 'sale' && state.onHand < move.quantity) continue;
      const fromR = Math.min(state.R, move.quantity);
      state.R -= fromR;
      state.S -= Math.min(state.S, move.quantity - fromR);
    }
    state.onHand -= move.quantity;
    succeeded[i] = true;
  }
  return { ...state, succeeded };
}

function permutations(n: number): number[][] {
  if (n === 0) return [[]];
  return permutations(n - 1).flatMap((rest) => Array.from({ length: n }, (_, at) => [...rest.slice(0, at), n - 1, ...rest.slice(at)]));
}

const key = (outcome: Outcome) => JSON.stringify(outcome);

t.test('a purchase return and sales racing for a batch\'s last units end as if they had come one after the other', async (t) => {
  const { owner, manager, cashier } = await staffedShop(api);
  const device = await pairDevice(api, owner.token);

  for (let round = 0; round < ROUNDS; round++) {
    const scenario = SCENARIOS[round % SCENARIOS.length]!;
    const label = `round ${round}, ${scenario.what}`;
    const product = await createProduct(api, owner.token, { price_xaf: 100 });
    const purchase = await receive(api, manager.token, {
      items: [
        { product_id: product.id, quantity: scenario.stock.R, unit_cost_xaf: 40, batch_number: 'R', expiry_date: '2027-05-31' },
        ...(scenario.stock.S ? [{ product_id: product.id, quantity: scenario.stock.S, unit_cost_xaf: 40, batch_number: 'S', expiry_date: '2027-09-30' }] : []),
        ...(scenario.stock.unbatched ? [{ product_id: product.id, quantity: scenario.stock.unbatched, unit_cost_xaf: 40 }] : []),
      ],
    });

    const fire = (move: Move): Promise<Reply> => {
      const items = [{ product_id: product.id, quantity: move.quantity }];
      if (move.kind === 'return') {
        return api.request('POST', `/purchases/${purchase.id}/returns`, { token: manager.token, body: { items: [{ purchase_item_id: purchase.items[0].id, quantity: move.quantity }] } });
      }
      if (move.kind === 'offline') return push(api, { device: device.token }, { sales: [offlineSale(randomUUID(), product.id, move.quantity, { user_id: cashier.user.id })] });
      return api.request('POST', '/sales', { token: cashier.token, body: { items, payments: [{ method: 'cash', amount_xaf: 1000 }] } });
    };
    const replies = await Promise.all(scenario.moves.map(fire));

    const succeeded = replies.map((reply, i) => (scenario.moves[i]!.kind === 'offline' ? reply.body?.data?.results?.[0]?.status === 'applied' : reply.status === 201));
    replies.forEach((reply, i) => {
      if (!succeeded[i]) t.strictSame([reply.status, reply.body?.code], [422, 'insufficient_stock'], `${label}: request ${i} is refused for stock`);
    });
    const [state] = await api.ownerSql<{ r: number; s: number; on_hand: number }[]>`
      select coalesce(sum(b.quantity) filter (where b.batch_number = 'R'), 0) as r, coalesce(sum(b.quantity) filter (where b.batch_number = 'S'), 0) as s,
             (select p.on_hand from products p where p.id = ${product.id}) as on_hand
        from batches b where b.product_id = ${product.id}`;
    const observed: Outcome = { R: Number(state!.r), S: Number(state!.s), onHand: Number(state!.on_hand), succeeded };
    const possible = new Map(permutations(scenario.moves.length).map((order) => [key(serially(scenario.stock, scenario.moves, order)), order]));
    t.ok(possible.has(key(observed)), `${label}: ${key(observed)} is what one order gives (${[...possible.keys()].join(' or ')})`);
    t.ok(observed.R >= 0 && observed.S >= 0 && observed.R + observed.S <= Math.max(observed.onHand, 0), `${label}: batches within the on-hand, none below zero`);
  }
  t.same(await ledgerInvariants(api, owner.shop.id), { stockMismatches: [], unbalancedEntries: [] }, 'on-hand is the sum of movements, the journal balances');
  const drift = await api.ownerSql`
    select b.id from batches b left join batch_movements m on m.shop_id = b.shop_id and m.batch_id = b.id
     where b.shop_id = ${owner.shop.id} group by b.shop_id, b.id having b.quantity <> coalesce(sum(m.quantity), 0)`;
  t.strictSame([...drift], [], 'every batch equals the sum of its movements');
});
