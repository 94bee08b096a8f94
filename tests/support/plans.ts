import postgres from 'postgres';

/** What one scan of a table read while a statement ran: rows returned plus rows filtered out, all loops. */
export interface TableRead {
  /** The table, or the index of a bitmap index scan. */
  table: string;
  node: string;
  rows: number;
  /** The statement (as PostgreSQL saw it, nested ones included) the scan belongs to. */
  statement: string;
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

function readsOf(node: PlanNode, statement: string, into: TableRead[]): TableRead[] {
  // A bitmap index scan names no table: it is counted under its index (what it read feeds a heap scan
  // or a BitmapAnd, which may keep few of them).
  const relation = node['Relation Name'] ?? (node['Node Type'] === 'Bitmap Index Scan' ? node['Index Name'] : undefined);
  if (relation) {
    const perLoop = (node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0);
    into.push({ table: relation, node: node['Node Type'], rows: perLoop * (node['Actual Loops'] ?? 1), statement });
  }
  for (const child of node.Plans ?? []) readsOf(child, statement, into);
  return into;
}

/** A function of the schema as PostgreSQL called it during a statement. */
export interface FunctionCalls {
  name: string;
  language: string;
  calls: number;
}

export interface PlanSession {
  /**
   * Runs `statement` as the app role with the shop and user set, in a transaction of its own, and
   * answers what every scan of every statement it ran (those inside functions included) read.
   */
  reads(shopId: string, userId: string | null, statement: (sql: postgres.TransactionSql) => Promise<unknown>): Promise<TableRead[]>;
  /**
   * Runs `statement` likewise and answers the functions of the schema it called that PostgreSQL ran
   * as calls (track_functions = all): an inlined SQL function is not among them, one that was not is
   * parsed and planned again by every statement that calls it.
   */
  calls(shopId: string, userId: string | null, statement: (sql: postgres.TransactionSql) => Promise<unknown>): Promise<FunctionCalls[]>;
  end(): Promise<void>;
}

/**
 * One session of the owner (a superuser: it loads auto_explain) in which every statement's executed
 * plan, with actual row counts, comes back as a notice: what a test asserts about reads is what
 * PostgreSQL did, generic plans of PL/pgSQL's cached statements included (call a procedure more than
 * five times in one session to reach them). Sequential scans are priced out (enable_seqscan off): a
 * test's tables hold hundreds of rows where a shop's hold millions, and the planner rightly scans a
 * table of five pages whole; priced out, it shows the index that bounds each read at scale, and a
 * statement that no index can bound still scans, and reads too many rows.
 */
export async function planSession(ownerUrl: string): Promise<PlanSession> {
  let collected: TableRead[] = [];
  const sql = postgres(ownerUrl, {
    max: 1,
    onnotice: (notice) => {
      const message = String(notice.message ?? '');
      const at = message.indexOf('{');
      if (!message.startsWith('duration:') || at < 0) return;
      const logged = JSON.parse(message.slice(at)) as { 'Query Text': string; Plan: PlanNode };
      readsOf(logged.Plan, logged['Query Text'], collected);
    },
  });
  await sql.unsafe(`
    load 'auto_explain';
    set auto_explain.log_min_duration = 0;
    set auto_explain.log_analyze = on;
    set auto_explain.log_timing = off;
    set auto_explain.log_nested_statements = on;
    set auto_explain.log_format = json;
    set auto_explain.log_level = notice;
    set client_min_messages = notice;
    set enable_seqscan = off;`);
  return {
    async reads(shopId, userId, statement) {
      collected = [];
      await sql.begin(async (tx) => {
        await tx`set local role pos_app`;
        await tx`select set_config('app.shop_id', ${shopId}, true), set_config('app.user_id', ${userId ?? ''}, true)`;
        collected = [];
        await statement(tx);
      });
      return collected;
    },
    async calls(shopId, userId, statement) {
      return (await sql.begin(async (tx) => {
        await tx`set local track_functions = 'all'`;
        await tx`set local role pos_app`;
        await tx`select set_config('app.shop_id', ${shopId}, true), set_config('app.user_id', ${userId ?? ''}, true)`;
        // The session's counts not yet flushed to the shared statistics show too: the statement's
        // are the difference.
        const counts = () => tx<FunctionCalls[]>`
          select f.funcname as name, l.lanname as language, f.calls::int as calls
            from pg_stat_xact_user_functions f join pg_proc p on p.oid = f.funcid join pg_language l on l.oid = p.prolang
           order by f.funcname`;
        const before = new Map((await counts()).map((row) => [row.name, row.calls]));
        await statement(tx);
        return (await counts())
          .map((row) => ({ ...row, calls: row.calls - (before.get(row.name) ?? 0) }))
          .filter((row) => row.calls > 0);
      })) as FunctionCalls[];
    },
    end: () => sql.end({ timeout: 1 }),
  };
}
