/** `npm run admin:create -- --email a@b.c --password secret123 [--name "Awa"]`: a platform administrator. */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { migrate } from '../../db/migrate.ts';
import { loadConfigOrExit } from '../config.ts';
import { createSql } from '../db.ts';
import { AppError } from '../errors.ts';
import { hashPassword } from '../lib/password.ts';
import { inTenant } from '../middleware/tenancy.ts';
import { openRuntime } from '../runtime.ts';
import { exitOnStartupError } from '../server.ts';
import { createPlatformUser } from '../users/queries.ts';

const Args = z.object({
  email: z.email('--email must be an e-mail address'),
  password: z.string('--password is required').min(8, '--password must be at least 8 characters'),
  name: z.string().min(1).max(160).default('Administrator'),
});

const config = loadConfigOrExit();
const { values } = parseArgs({ options: { email: { type: 'string' }, password: { type: 'string' }, name: { type: 'string' } } });
const args = Args.safeParse(values);
if (!args.success) exitOnStartupError(new Error(args.error.issues[0]!.message));

try {
  const runtime = await openRuntime(config, { allowEmbedded: true });
  await migrate(runtime.ownerUrl, { appKey: config.APP_DATABASE_URL ? undefined : runtime.appKey });
  const sql = createSql(await runtime.appUrl(), { max: 1, preparedStatements: config.DB_PREPARED_STATEMENTS });
  const id = randomUUID();
  const passwordHash = await hashPassword(args.data.password, config.BCRYPT_ROUNDS);
  try {
    await inTenant(sql, { shopId: null, userId: id }, (tx) =>
      createPlatformUser(tx, { id, kind: 'admin', name: args.data.name, email: args.data.email, passwordHash, phone: null, locale: 'en' }),
    );
    process.stdout.write(`Administrator ${args.data.email} created.\n`);
  } catch (error) {
    if (error instanceof AppError) throw new Error(`an account with the e-mail ${args.data.email} already exists`);
    throw error;
  } finally {
    await sql.end();
    await runtime.stop();
  }
} catch (error) {
  exitOnStartupError(error);
}
