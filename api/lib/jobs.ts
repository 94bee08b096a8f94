import type { JSONValue } from 'postgres';
import type { Tx } from '../db.ts';

/**
 * Queues a graphile-worker job inside the caller's transaction: the job exists if and only if the
 * transaction commits. Tasks live in worker/tasks/<task>.ts and must be safe to run twice.
 */
export async function enqueueJob(tx: Tx, task: string, payload: Record<string, JSONValue>, options: { jobKey?: string; maxAttempts?: number } = {}): Promise<void> {
  await tx`select enqueue_job(${task}, ${tx.json(payload)}, ${options.jobKey ?? null}, ${options.maxAttempts ?? null}::int)`;
}
