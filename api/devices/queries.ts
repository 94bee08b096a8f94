import type { Sql, Tx } from '../db.ts';
import type { DeviceRecord } from './schemas.ts';

export const PAIRING_MINUTES = 10;

/** Stores a new pairing request; null when the code is already live (draw another). */
export async function createPairing(
  sql: Sql,
  pairing: { code: string; pollSecretHash: string; name: string | null; platform: string | null },
): Promise<Date | null> {
  const [row] = await sql<{ expires_at: Date | null }[]>`
    select device_pairing_create(${pairing.code}, ${pairing.pollSecretHash}, ${pairing.name}, ${pairing.platform},
                                 make_interval(mins => ${PAIRING_MINUTES})) as expires_at`;
  return row!.expires_at;
}

/** The request's status; the sealed token once, when the right secret polls after the claim. Null: no such code. */
export async function pollPairing(sql: Sql, code: string, pollSecretHash: string | null) {
  const [row] = await sql<{ status: 'pending' | 'claimed' | 'expired'; device_id: string | null; sealed_token: string | null }[]>`
    select status, device_id, sealed_token from device_pairing_poll(${code}, ${pollSecretHash})`;
  return row ?? null;
}

/** Attaches a live pending code to the transaction's shop as a new device; null when none has the code. */
export async function claimPairing(tx: Tx, code: string, claim: { name: string | null; tokenHash: string; sealedToken: string }): Promise<string | null> {
  const [row] = await tx<{ id: string | null }[]>`
    select device_pairing_claim(${code}, ${claim.name}, ${claim.tokenHash}, ${claim.sealedToken}) as id`;
  return row!.id;
}

interface DeviceRow extends Omit<DeviceRecord, 'last_seen_at' | 'last_sync_at' | 'created_at' | 'updated_at'> {
  last_seen_at: Date | null;
  last_sync_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = ['id', 'name', 'platform', 'claimed_by', 'last_seen_at', 'last_sync_at', 'created_at', 'updated_at'] as const;

const toRecord = (row: DeviceRow): DeviceRecord => ({
  ...row,
  last_seen_at: row.last_seen_at?.toISOString() ?? null,
  last_sync_at: row.last_sync_at?.toISOString() ?? null,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});

export async function findDevice(tx: Tx, id: string): Promise<DeviceRecord | null> {
  const [row] = await tx<DeviceRow[]>`select ${tx(COLUMNS)} from devices where id = ${id} and revoked_at is null`;
  return row ? toRecord(row) : null;
}

/** The shop's live devices, oldest first (a shop has a handful). */
export async function listDevices(tx: Tx): Promise<DeviceRecord[]> {
  const rows = await tx<DeviceRow[]>`
    select ${tx(COLUMNS)} from devices where shop_id = app_shop_id() and revoked_at is null order by created_at, id`;
  return rows.map(toRecord);
}

/** Revokes a device: its token stops working at once. */
export async function revokeDevice(tx: Tx, id: string): Promise<boolean> {
  const rows = await tx`update devices set revoked_at = now() where id = ${id} and revoked_at is null returning id`;
  return rows.length === 1;
}
