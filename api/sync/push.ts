import type { Logger } from 'pino';
import type { z } from 'zod';
import { createCustomer, lockCustomer, updateCustomer } from '../customers/queries.ts';
import type { CustomerRecord, UpdateCustomerBody } from '../customers/schemas.ts';
import type { Sql, Tx } from '../db.ts';
import type { Role } from '../env.ts';
import { AppError, errorBody, errors, fromZodError, invalidField, toAppError } from '../errors.ts';
import { BUSINESS_DAY_FROM } from '../schemas.ts';
import type { Locale } from '../lib/locale.ts';
import { localise } from '../lib/messages.ts';
import { recordExpense } from '../expenses/queries.ts';
import { recordSale } from '../sales/queries.ts';
import { roleAtLeast } from '../middleware/auth.ts';
import { inTenant, scopeStatement } from '../middleware/tenancy.ts';
import { recordCashMovement } from '../shifts/queries.ts';
import { listClockCorrection } from './clock-corrections.ts';
import {
  PushedCashMovement,
  PushedCustomer,
  PushedExpense,
  PushedSale,
  type PushEntity,
  type PushResult,
} from './schemas.ts';

/** Who pushes: a till (device credentials) or a shop user (bearer). */
export interface Pusher {
  shopId: string;
  deviceId: string | null;
  userId: string | null;
  /** The bearer's role; null for a till, which acts with the role of the user each record names. */
  role: Role | null;
  /** The language of refused records' messages: the caller's (api/lib/locale.ts). */
  locale: Locale;
  /** The push's request: the jobs its records queue carry it. */
  requestId: string;
}

/**
 * CONTRACT section 4: a till's clock is plainly wrong before 2000 or more than a day ahead of the
 * server (a dead clock battery, a clock set to the wrong year). Short of that, an offline record keeps its time,
 * however old: a day already sealed is never rewritten (the record goes into the next Z, z_reported_on).
 */
const CLOCK_FLOOR_MS = Date.parse(`${BUSINESS_DAY_FROM}T00:00:00Z`);
const CLOCK_AHEAD_MS = 24 * 60 * 60 * 1000;

/** A customer update made on an older version than the server's: refused with the server's record, to reconcile. */
class Stale extends Error {
  constructor(readonly record: CustomerRecord) {
    super('stale');
  }
}

/**
 * When a pushed record is recorded as having happened: its `created_at`, unless the till's clock is
 * plainly wrong; then at the time the server receives it (`created_at` left to the procedures' now())
 * and the till's time kept as `till_created_at`. Never a refusal: the record happened.
 */
function happenedAt(at: string | undefined): { created_at: string | undefined; till_created_at: string | null } {
  if (at === undefined) return { created_at: undefined, till_created_at: null };
  const time = Date.parse(at);
  if (time >= CLOCK_FLOOR_MS && time <= Date.now() + CLOCK_AHEAD_MS) return { created_at: at, till_created_at: null };
  return { created_at: undefined, till_created_at: at };
}

function parse<T extends z.ZodType>(schema: T, record: unknown): z.infer<T> {
  const parsed = schema.safeParse(record);
  if (!parsed.success) throw fromZodError(parsed.error);
  return parsed.data;
}

/**
 * The user a record is made by (the record's `user_id`, else the bearer's user) and the role its
 * permissions are checked with: the bearer's own role (naming a user only attributes the record), or,
 * for a till, the named user's role (a cashier's when it names none). Sets that user as the
 * transaction's user, so the record lands on their open shift. A sale happened whoever made it: it
 * may name a user removed from the shop since (who then grants no permission).
 */
async function actAs(tx: Tx, pusher: Pusher, userId: string | null | undefined, removedToo = false): Promise<Role> {
  const author = userId ?? pusher.userId;
  let role: Role = pusher.role ?? 'cashier';
  if (author && author !== pusher.userId) {
    const [user] = await tx<{ role: Role; removed: boolean }[]>`
      select role, deleted_at is not null as removed from users where id = ${author} and shop_id = app_shop_id()`;
    if (!user || (user.removed && !removedToo)) throw invalidField('user_id', 'No such user in this shop.');
    if (!pusher.role && !user.removed) role = user.role;
  }
  await tx.unsafe(scopeStatement({ shopId: pusher.shopId, userId: author ?? null })).simple();
  return role;
}

/**
 * Holds the record's id until the record's transaction ends: two pushes carrying the same new record
 * at once queue here, and the second then finds the first's record (`duplicate`) instead of racing
 * it to the insert. Sales use sale_record's own key, so a push and a POST /sales queue together.
 */
async function lockId(tx: Tx, kind: 'sale' | PushEntity, id: string): Promise<void> {
  await tx`select pg_advisory_xact_lock(hashtextextended(${`${kind}:${id.toLowerCase()}`}, 0))`;
}

/**
 * Whether the shop already holds the record with this id, with the id locked (`lockId`) until the
 * record's transaction ends. Deleted rows count as held. An id is unique in its shop (the key is
 * (shop_id, id)): another shop's record with the same id is another record.
 */
async function held(tx: Tx, table: 'customers' | 'expenses' | 'cash_movements', id: string): Promise<boolean> {
  await lockId(tx, table, id);
  const [row] = await tx<{ known: boolean }[]>`select exists (select 1 from ${tx(table)} where id = ${id}) as known`;
  return row!.known;
}

/** A record's result before its entity and id are added, with its kind's own fields (a sale's `receipt_no`). */
type Outcome = PushResult extends infer R ? (R extends unknown ? Omit<R, 'entity' | 'id'> : never) : never;

async function applySale(tx: Tx, pusher: Pusher, raw: unknown): Promise<Outcome> {
  const { user_id, created_at: tillTime, ...sale } = parse(PushedSale, raw);
  const { created_at, till_created_at } = happenedAt(tillTime);
  await lockId(tx, 'sale', sale.id);
  // Idempotent by the till's id: a sale already here is this sale, whatever the retry carries.
  const receiptNo = async () =>
    (await tx<{ receipt_no: number }[]>`select receipt_no from sales where shop_id = ${pusher.shopId} and id = ${sale.id}`)[0]?.receipt_no;
  const known = await receiptNo();
  if (known !== undefined) return { status: 'duplicate', receipt_no: known };
  await actAs(tx, pusher, user_id, true);
  const scope = { shopId: pusher.shopId, userId: user_id ?? pusher.userId };
  // What the till sold may have been deleted or given variants since: sale_offline_lines keeps the sale.
  const [prepared] = await tx<{ sale: typeof sale }[]>`select sale_offline_lines(${scope.shopId}, ${scope.userId}, ${tx.json(sale as never)}) as sale`;
  // Under the lock, the id is new in this shop: sale_record records it.
  const deviceId = pusher.deviceId ?? sale.device_id ?? null;
  await recordSale(tx, scope, { ...prepared!.sale, device_id: deviceId, created_at, till_created_at }, true);
  if (till_created_at) await listClockCorrection(tx, { entity: 'sales', record_id: sale.id, device_id: deviceId, user_id: scope.userId, till_created_at });
  return { status: 'applied', receipt_no: (await receiptNo())! };
}

const CUSTOMER_FIELDS = ['name', 'phone', 'email', 'note', 'credit_ceiling_xaf', 'card_no'] as const;

async function applyCustomer(tx: Tx, pusher: Pusher, raw: unknown): Promise<Outcome> {
  const { id, updated_at, created_at: tillTime, ...fields } = parse(PushedCustomer, raw);
  const role = await actAs(tx, pusher, null);
  if (!(await held(tx, 'customers', id))) {
    if ((fields.credit_ceiling_xaf ?? 0) > 0 && !roleAtLeast(role, 'manager')) throw errors.forbidden();
    const { created_at, till_created_at } = happenedAt(tillTime);
    await createCustomer(tx, { ...fields, id, created_at, till_created_at });
    if (till_created_at) await listClockCorrection(tx, { entity: 'customers', record_id: id, device_id: pusher.deviceId, user_id: pusher.userId, till_created_at });
    return { status: 'applied' };
  }
  const server = await lockCustomer(tx, id);
  if (!server) throw errors.conflict('customer_deleted', 'This customer was deleted on the server.');
  const changes: UpdateCustomerBody = {};
  for (const key of CUSTOMER_FIELDS) {
    if (fields[key] !== undefined && (fields[key] ?? null) !== server[key]) Object.assign(changes, { [key]: fields[key] });
  }
  if (Object.keys(changes).length === 0) return { status: 'duplicate' };
  // The till edited the version of updated_at; a newer one on the server wins, and the till reconciles.
  if (updated_at === undefined || Date.parse(server.updated_at) > Date.parse(updated_at)) {
    throw new Stale(server);
  }
  if (changes.credit_ceiling_xaf !== undefined && !roleAtLeast(role, 'manager')) throw errors.forbidden();
  await updateCustomer(tx, id, changes);
  return { status: 'applied' };
}

async function applyExpense(tx: Tx, pusher: Pusher, raw: unknown): Promise<Outcome> {
  const { id, user_id, spent_at, ...expense } = parse(PushedExpense, raw);
  if (await held(tx, 'expenses', id)) return { status: 'duplicate' };
  if (!roleAtLeast(await actAs(tx, pusher, user_id), 'manager')) throw errors.forbidden();
  await recordExpense(tx, { ...expense, id, description: expense.description ?? null, spent_on: spent_at ?? null });
  return { status: 'applied' };
}

async function applyCashMovement(tx: Tx, pusher: Pusher, raw: unknown): Promise<Outcome> {
  const { id, user_id, created_at: tillTime, ...movement } = parse(PushedCashMovement, raw);
  if (await held(tx, 'cash_movements', id)) return { status: 'duplicate' };
  await actAs(tx, pusher, user_id);
  const { created_at, till_created_at } = happenedAt(tillTime);
  const recorded = await recordCashMovement(tx, { ...movement, id, created_at, till_created_at });
  if (till_created_at) await listClockCorrection(tx, { entity: 'cash_movements', record_id: id, device_id: pusher.deviceId, user_id: recorded.user_id, till_created_at });
  return { status: 'applied' };
}

const APPLY: Record<PushEntity, (tx: Tx, pusher: Pusher, raw: unknown) => Promise<Outcome>> = {
  customers: applyCustomer,
  sales: applySale,
  expenses: applyExpense,
  cash_movements: applyCashMovement,
};

/** Customers first, so that sales made offline for a customer created offline find them. */
export const PUSH_ORDER: readonly PushEntity[] = ['customers', 'sales', 'expenses', 'cash_movements'];

/**
 * Applies one pushed record in its own transaction: each record is one operation, whole or not at all.
 * Whatever it fails on is undone and answered as `rejected` with its code and errors, and the push
 * goes on with the next record. Committing record by record keeps a long push from holding the
 * shop's receipt counter (other tills' sales) and the sync horizon (every till's pulls) until its end;
 * a push cut off halfway is simply pushed again: what was applied answers `duplicate`.
 */
export async function applyRecord(sql: Sql, pusher: Pusher, entity: PushEntity, raw: unknown, log: Logger): Promise<PushResult> {
  const rawId = typeof raw === 'object' && raw !== null ? (raw as { id?: unknown }).id : undefined;
  const id = typeof rawId === 'string' ? rawId : null;
  try {
    const outcome = await inTenant(sql, { shopId: pusher.shopId, userId: pusher.userId, requestId: pusher.requestId }, (tx) => APPLY[entity](tx, pusher, raw));
    // The outcome is the entity's own (APPLY[entity]): the union cannot see that they go together.
    return { entity, id, ...outcome } as PushResult;
  } catch (error) {
    if (error instanceof Stale) {
      const message = localise('The server\'s record changed since this version: reconcile with it.', pusher.locale);
      return { entity: 'customers', id, status: 'rejected', code: 'stale', message, record: error.record };
    }
    const failure: AppError = toAppError(error);
    if (failure.status >= 500) log.error({ err: error, entity, record_id: id }, 'sync push record failed');
    return { entity, id, status: 'rejected', ...errorBody(failure, pusher.locale) } as PushResult;
  }
}
