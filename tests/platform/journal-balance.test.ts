/**
 * The database itself refuses an unbalanced journal entry, whatever path writes it: every statement
 * that inserts journal lines must balance, entry by entry, the lines it inserts (journal_post writes
 * an entry's lines in one statement). Written straight into the tables, as the app role in its shop.
 */
import t from 'tap';
import { registerShop } from '../support/fixtures.ts';
import { startService } from '../support/service.ts';

const api = await startService(t);
const owner = await registerShop(api);

/** In a transaction of the app role in the shop: a new entry, then `lines` inserted as given. */
async function post(statements: [string, number, number][][]): Promise<void> {
  await api.appSql.begin(async (tx) => {
    await tx`select set_config('app.shop_id', ${owner.shop.id}, true), set_config('app.user_id', ${owner.user.id}, true)`;
    const [entry] = await tx<{ id: string }[]>`insert into journal_entries (source_type, memo) values ('test', 'balance') returning id`;
    for (const lines of statements) {
      await tx`insert into journal_lines (entry_id, account, debit_xaf, credit_xaf)
        select ${entry!.id}, account, debit, credit
          from unnest(${lines.map((line) => line[0])}::text[], ${lines.map((line) => line[1])}::bigint[], ${lines.map((line) => line[2])}::bigint[])
            as l (account, debit, credit)`;
    }
  });
}

t.test('an entry whose lines balance is written', async (t) => {
  await t.resolves(post([[['571', 1000, 0], ['701', 0, 839], ['4431', 0, 161]]]));
});

t.test('lines that do not balance their entry are refused, and nothing of the transaction stays', async (t) => {
  const before = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from journal_entries where shop_id = ${owner.shop.id}`;
  await t.rejects(post([[['571', 1000, 0], ['701', 0, 900]]]), /unbalanced by 100 XAF/);
  const after = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from journal_entries where shop_id = ${owner.shop.id}`;
  t.equal(after[0]!.n, before[0]!.n);
});

t.test('an entry is not balanced later by another statement: each insert must balance what it adds', async (t) => {
  await t.rejects(post([[['571', 1000, 0]], [['701', 0, 1000]]]), /unbalanced by 1000 XAF/);
  await t.resolves(post([[['571', 500, 0], ['701', 0, 500]], [['571', 200, 0], ['701', 0, 200]]]), 'two balanced inserts make a balanced entry');
});
