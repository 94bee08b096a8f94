/**
 * `npm run db:logins`: this database's login roles (db/app-login.ts), one per APP_KEY `npm run migrate`
 * ran with, and how many sessions each has open on the server. `-- --drop-old` drops those of other
 * keys, the last step of an APP_KEY rotation, refusing any that a session still uses.
 * `-- --retire-shared-login` takes LOGIN and its password from pos_app, which releases before
 * migration 0034 logged in as, refused while any session of the server is logged in as it.
 */
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { loadConfigOrExit } from '../api/config.ts';
import { APP_DB_ROLE } from '../api/db.ts';
import { openRuntime } from '../api/runtime.ts';
import { exitOnStartupError } from '../api/server.ts';
import { findAppLogin } from './app-login.ts';

interface Login {
  role: string;
  exists: boolean;
  sessions: number;
}

const config = loadConfigOrExit();
const { values: options } = parseArgs({ options: { 'drop-old': { type: 'boolean' }, 'retire-shared-login': { type: 'boolean' } } });
const say = (line: string) => process.stdout.write(`${line}\n`);
const sessions = (count: number) => `${count} session${count === 1 ? '' : 's'}`;

try {
  const runtime = await openRuntime(config, { allowEmbedded: true });
  const sql = postgres(runtime.ownerUrl, { max: 1, onnotice: () => {} });
  try {
    const current = await findAppLogin(sql, runtime.appKey);
    if (!current) throw new Error('Database never migrated: run npm run migrate');
    const logins = await sql<Login[]>`
      select l.role_name as role, r.oid is not null as exists,
             (select count(*)::int from pg_stat_activity a where a.usename = l.role_name) as sessions
        from app_login_roles l left join pg_roles r on r.rolname = l.role_name
       order by l.created_at, l.role_name`;
    const [shared] = await sql<{ login: boolean; sessions: number }[]>`
      select rolcanlogin as login, (select count(*)::int from pg_stat_activity where usename = ${APP_DB_ROLE}) as sessions
        from pg_roles where rolname = ${APP_DB_ROLE}`;
    for (const login of logins) {
      const whose = login.role === current.role ? "this APP_KEY's" : "another APP_KEY's";
      say(`${login.role}  ${whose}${login.exists ? `, ${sessions(login.sessions)}` : ', dropped outside npm run db:logins'}`);
    }
    if (!current.exists) say(`${current.role}  this APP_KEY's: not made yet (npm run migrate makes it)`);
    if (shared?.login) say(`${APP_DB_ROLE}  the shared login of releases before migration 0034, ${sessions(shared.sessions)}`);

    if (options['drop-old']) {
      if (!current.exists) throw new Error(`Database has no login role for this APP_KEY (${current.role}): run npm run migrate with this APP_KEY first; nothing dropped`);
      for (const login of logins.filter((entry) => entry.role !== current.role)) {
        if (login.sessions > 0) {
          say(`${login.role}: kept, ${sessions(login.sessions)} still open: stop the processes of its APP_KEY, then run this again`);
          process.exitCode = 1;
          continue;
        }
        await sql.begin(async (tx) => {
          if (login.exists) await tx`drop role ${tx(login.role)}`;
          await tx`delete from app_login_roles where role_name = ${login.role}`;
        });
        say(`${login.role}: dropped`);
      }
    }

    if (options['retire-shared-login'] && shared?.login) {
      if (shared.sessions > 0) {
        say(`${APP_DB_ROLE}: kept, ${sessions(shared.sessions)} still logged in as it on this server: upgrade or stop them, then run this again`);
        process.exitCode = 1;
      } else {
        await sql`alter role ${sql(APP_DB_ROLE)} nologin password null`;
        say(`${APP_DB_ROLE}: no longer logs in`);
      }
    }
  } finally {
    await sql.end();
    await runtime.stop();
  }
} catch (error) {
  exitOnStartupError(error);
}
