import type { Logger } from 'pino';
import type { z } from 'zod';
import { createCustomer, findCustomer, updateCustomer } from '../customers/queries.ts';
import type { UpdateCustomerBody } from '../customers/schemas.ts';
import type { Sql, Tx } from '../db.ts';
import type { Role } from '../env.ts';
import { AppError, errors, fromZodError, invalidField, toAppError } from '../errors.ts';
import { recordExpense } from '../expenses/queries.ts';
import { recordSale } from '../sales/queries.ts';
import { inTenant } from '../middleware/tenancy.ts';
import { recordCashMovement } from '../shifts/queries.ts';
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
}

/** An offline record's time: the till's clock may run 5 minutes fast; a record older than 90 days is refused. */
const MAX_SKEW_MS = 5 * 60 * 1000;
const MAX_AGE_MS = 90 * 24 * 60 * 60 * 1000;

const RANK: Record<Role, number> = { cashier: 1, manager: 2, owner: 3 };

/** A record refused on its own: the others of the push still apply. */
class Rejected extends Error {
  constructor(readonly result: Omit<PushResult, 'entity' | 'id' | 'status'>) {
    super(result.code);
  }
}

function checkHappenedAt(at: string | undefined, field = 'created_at'): void {
  if (at === undefined) return;
  const time = Date.parse(at);
  if (time > Date.now() + MAX_SKEW_MS) throw invalidField(field, 'Cannot be more than 5 minutes in the future.');
  if (time < Date.now() - MAX_AGE_MS) throw invalidField(field, 'Cannot be more than 90 days old.');
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
  await tx`select set_config('app.user_id', ${author ?? ''}, true)`;
  return role;
}

const atLeast = (role: Role, minimum: Role) => RANK[role] >= RANK[minimum];

async function idTaken(tx: Tx, table: 'customers' | 'expenses' | 'cash_movements', id: string): Promise<boolean> {
  const [row] = await tx<{ taken: boolean }[]>`select sync_id_taken(${table}, ${id}) as taken`;
  return row!.taken;
}

/**
 * Holds the record's id until the record's transaction ends: two pushes carrying the same new record
 * at once queue here, and the second then finds the first's record (`duplicate`) instead of racing
 * it to the insert. Sales use sale_record's own key, so a push and a POST /sales queue together.
 */
async function lockId(tx: Tx, kind: 'sale' | PushEntity, id: string): Promise<void> {
  await tx`select pg_advisory_xact_lock(hashtextextended(${`${kind}:${id.toLowerCase()}`}, 0))`;
}

const takenElsewhere = () => new Rejected({ code: 'id_taken', message: 'This id is already used by another record.' });

type Outcome = Omit<PushResult, 'entity' | 'id'>;

async function applySale(tx: Tx, pusher: Pusher, raw: unknown): Promise<Outcome> {
  const { user_id, created_at, ...sale } = parse(PushedSale, raw);
  checkHappenedAt(created_at);
  await lockId(tx, 'sale', sale.id);
  // Idempotent by the till's id: a sale already here is this sale, whatever the retry carries.
  const [known] = await tx<{ receipt_no: number }[]>`select receipt_no from sales where id = ${sale.id}`;
  if (known) return { status: 'duplicate', receipt_no: known.receipt_no };
  await actAs(tx, pusher, user_id, true);
  // What the till sold may have been deleted or given variants since: sale_offline_lines keeps the sale.
  const [prepared] = await tx<{ sale: typeof sale }[]>`select sale_offline_lines(${tx.json(sale as never)}) as sale`;
  const { id, replayed } = await recordSale(tx, { ...prepared!.sale, device_id: pusher.deviceId ?? sale.device_id ?? null, created_at }, true);
  const [recorded] = await tx<{ receipt_no: number }[]>`select receipt_no from sales where id = ${id}`;
  return { status: replayed ? 'duplicate' : 'applied', receipt_no: recorded!.receipt_no };
}

const CUSTOMER_FIELDS = ['name', 'phone', 'email', 'note', 'credit_ceiling_xaf', 'card_no'] as const;

async function applyCustomer(tx: Tx, pusher: Pusher, raw: unknown): Promise<Outcome> {
  const { id, updated_at, created_at, ...fields } = parse(PushedCustomer, raw);
  checkHappenedAt(created_at);
  const role = await actAs(tx, pusher, null);
  await lockId(tx, 'customers', id);
  const [row] = await tx<{ deleted: boolean }[]>`select deleted_at is not null as deleted from customers where id = ${id} for update`;
  if (!row) {
    if (await idTaken(tx, 'customers', id)) throw takenElsewhere();
    if ((fields.credit_ceiling_xaf ?? 0) > 0 && !atLeast(role, 'manager')) throw errors.forbidden();
    await createCustomer(tx, { ...fields, id });
    return { status: 'applied' };
  }
  if (row.deleted) throw new Rejected({ code: 'customer_deleted', message: 'This customer was deleted on the server.' });
  const server = (await findCustomer(tx, id))!;
  const changes: UpdateCustomerBody = {};
  for (const key of CUSTOMER_FIELDS) {
    if (fields[key] !== undefined && (fields[key] ?? null) !== server[key]) Object.assign(changes, { [key]: fields[key] });
  }
  if (Object.keys(changes).length === 0) return { status: 'duplicate' };
  // The till edited the version of updated_at; a newer one on the server wins, and the till reconciles.
  if (updated_at === undefined || Date.parse(server.updated_at) > Date.parse(updated_at)) {
    throw new Rejected({ code: 'stale', message: 'The server\'s record changed since this version: reconcile with it.', record: server });
  }
  if (changes.credit_ceiling_xaf !== undefined && !atLeast(role, 'manager')) throw errors.forbidden();
  await updateCustomer(tx, id, changes);
  return { status: 'applied' };
}

async function applyExpense(tx: Tx, pusher: Pusher, raw: unknown): Promise<Outcome> {
  const { id, user_id, spent_at, ...expense } = parse(PushedExpense, raw);
  await lockId(tx, 'expenses', id);
  const [known] = await tx`select 1 from expenses where id = ${id}`;
  if (known) return { status: 'duplicate' };
  if (await idTaken(tx, 'expenses', id)) throw takenElsewhere();
  if (!atLeast(await actAs(tx, pusher, user_id), 'manager')) throw errors.forbidden();
  await recordExpense(tx, { ...expense, id, description: expense.description ?? null, spent_on: spent_at ?? null });
  return { status: 'applied' };
}

async function applyCashMovement(tx: Tx, pusher: Pusher, raw: unknown): Promise<Outcome> {
  const { id, user_id, created_at, ...movement } = parse(PushedCashMovement, raw);
  checkHappenedAt(created_at);
  await lockId(tx, 'cash_movements', id);
  const [known] = await tx`select 1 from cash_movements where id = ${id}`;
  if (known) return { status: 'duplicate' };
  if (await idTaken(tx, 'cash_movements', id)) throw takenElsewhere();
  await actAs(tx, pusher, user_id);
  await recordCashMovement(tx, { ...movement, id, created_at });
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
    const outcome = await inTenant(sql, { shopId: pusher.shopId, userId: pusher.userId }, (tx) => APPLY[entity](tx, pusher, raw));
    return { entity, id, ...outcome };
  } catch (error) {
    if (error instanceof Rejected) return { entity, id, status: 'rejected', ...error.result };
    const failure: AppError = toAppError(error);
    if (failure.status >= 500) log.error({ err: error, entity, record_id: id }, 'sync push record failed');
    return {
      entity,
      id,
      status: 'rejected',
      code: failure.code,
      message: failure.message,
      ...(failure.errors ? { errors: failure.errors } : {}),
    };
  }
}
