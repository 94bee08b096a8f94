import { readdirSync } from 'node:fs';
import t from 'tap';
import { migrate } from '../../db/migrate.ts';
import { startService } from '../support/service.ts';

const api = await startService(t);

t.test('every migration file is recorded once in schema_migrations', async (t) => {
  const files = readdirSync('db/migrations').filter((f) => f.endsWith('.sql')).map((f) => f.replace(/\.sql$/, '')).sort();
  const rows = await api.ownerSql<{ version: string }[]>`select version from schema_migrations order by version`;
  t.same(rows.map((r) => r.version), files);
});

t.test('running the migrations again applies nothing', async (t) => {
  t.same(await migrate(api.runtime.ownerUrl), { migrations: [], functions: [] });
});

t.test('two runners at once apply each migration once (advisory lock)', async (t) => {
  const results = await Promise.all([migrate(api.runtime.ownerUrl), migrate(api.runtime.ownerUrl)]);
  t.same(results, [{ migrations: [], functions: [] }, { migrations: [], functions: [] }]);
});

t.test('graphile-worker\'s schema is installed with ours, so jobs can be queued from the first request', async (t) => {
  const [row] = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from pg_namespace where nspname = 'graphile_worker'`;
  t.equal(row!.n, 1);
});
