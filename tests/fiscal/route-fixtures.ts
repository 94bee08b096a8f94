import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Test } from 'tap';
import { openShift, refundSale, sell, voidSale } from '../sales/sale-fixtures.ts';
import { createProduct, type ShopFixture } from '../support/fixtures.ts';
import { launchCommand } from '../support/processes.ts';
import type { Service } from '../support/service.ts';

/**
 * Set-up and read-backs of the fiscal routes (api/fiscal/): a shop's history of sales, a void and a
 * refund made through the API, the archive as the raw bytes a client downloads, a synthetic chain
 * long enough for several reads of the archive's cursor, and `npm run fiscal:verify` run on a file.
 */

/** Three sales paid in cash in the owner's shift, the second voided and a unit of the third refunded: five entries, in that order. */
export async function sellVoidAndRefund(api: Service, owner: ShopFixture): Promise<{ sales: any[] }> {
  await openShift(api, owner.token);
  const product = await createProduct(api, owner.token, { name: 'Savon Azur', price_xaf: 1_500, vat_rate: 19.25 }, 100);
  const sales = [];
  for (const quantity of [1, 2, 3]) {
    sales.push(await sell(api, owner.token, { items: [{ product_id: product.id, quantity }], payments: [{ method: 'cash', amount_xaf: 5_000 }] }));
  }
  const voided = await voidSale(api, owner.token, sales[1].id);
  if (voided.status !== 200) throw new Error(`void failed: ${voided.status} ${JSON.stringify(voided.body)}`);
  const refunded = await refundSale(api, owner.token, sales[2].id, { method: 'cash', items: [{ sale_item_id: sales[2].items[0].id, quantity: 1 }] });
  if (refunded.status !== 201) throw new Error(`refund failed: ${refunded.status} ${JSON.stringify(refunded.body)}`);
  return { sales };
}

export interface Download {
  status: number;
  headers: Headers;
  bytes: Buffer;
}

/** GET /fiscal/archive as a client downloads it: the raw bytes (`send` would parse an NDJSON body as JSON). */
export async function downloadArchive(api: Service, token: string | null, query = ''): Promise<Download> {
  const response = await fetch(`${api.baseUrl}/api/v1/fiscal/archive${query}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

/**
 * How many sessions of the app have a transaction open (an archive being sent, or left unread); none
 * once every request has ended. A read's commit is not awaited: poll for it (waitFor).
 */
export async function openAppTransactions(api: Service): Promise<number> {
  const [row] = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from pg_stat_activity where usename = ${api.appRole} and state <> 'idle'`;
  return row!.n;
}

/** The archive's lines, the line feed of each removed (the last is the signature's). */
export const archiveLines = (bytes: Buffer): string[] => bytes.toString('utf8').split('\n').slice(0, -1);

/** A directory of the test's own for archive files, removed when the test ends. */
export function scratchDir(t: Test): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'fiscal-archive-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** `npm run fiscal:verify -- FILE [--public-key KEY]` on `bytes` written to a file: its exit code and what it printed. */
export async function verifyWithCli(t: Test, dir: string, bytes: Buffer | string, publicKey?: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const file = path.join(dir, `archive-${Math.random().toString(36).slice(2)}.ndjson`);
  writeFileSync(file, bytes);
  const run = launchCommand(t, ['npm', 'run', '--silent', 'fiscal:verify', '--', file, ...(publicKey ? ['--public-key', publicKey] : [])], {});
  const code = await run.exited;
  return { code, ...run.output };
}

/**
 * `count` entries appended to the chain of a shop that records nothing else, as the database's owner:
 * hashes chained as the procedures chain them, contents of `padding` characters. For what reads the
 * chain only (an archive of several reads of its cursor): the integrity check would find no record
 * behind them, and the shop's counter is left as it was.
 */
export async function syntheticEntries(api: Service, shopId: string, count: number, padding = 100): Promise<void> {
  const content = (no: string) => `'{"n":' || ${no} || ',"padding":"' || repeat('x', ${Number(padding)}) || '"}'`;
  await api.ownerSql.unsafe(
    `insert into fiscal_entries (shop_id, chain_no, kind, ref_id, occurred_at, amount_xaf, previous_hash, hash, content)
     with recursive start as (
       select coalesce(max(chain_no), 0) as chain_no,
              coalesce((select hash from fiscal_entries where shop_id = $1 order by chain_no desc limit 1), '') as hash
         from fiscal_entries where shop_id = $1
     ), chain (chain_no, previous_hash, content, hash) as (
       select s.chain_no + 1, s.hash, ${content('(s.chain_no + 1)')}, fiscal_hash(s.hash, ${content('(s.chain_no + 1)')}) from start s
       union all
       select p.chain_no + 1, p.hash, ${content('(p.chain_no + 1)')}, fiscal_hash(p.hash, ${content('(p.chain_no + 1)')})
         from chain p where p.chain_no < (select chain_no from start) + $2
     )
     select $1, chain_no, 'z', gen_random_uuid(), now(), 0, previous_hash, hash, content from chain`,
    [shopId, count],
  );
}
