import type { Task } from 'graphile-worker';
import { z } from 'zod';
import { deliverPending } from '../../api/fiscal/certification.ts';
import type { WorkerContext } from '../context.ts';

const Payload = z.object({ shop_id: z.uuid() });

/**
 * Delivers a shop's pending records to its tax authority (api/fiscal/certification.ts). Woken in the
 * transaction of each record (db/functions/fiscal/fiscal_certification_queue.sql) with one job key per
 * shop, in a queue of its own per shop (`fiscal:<shop_id>`): a shop's records go one at a time, in chain
 * order, while other shops' go meanwhile. It comes back when a record waits for its next try. Safe to
 * run twice or to die anywhere: each connector journals where a delivery stands before any call that
 * could certify, and goes on from there.
 */
export const fiscalCertify = (ctx: WorkerContext): Task => async (raw, helpers) => {
  const { shop_id: shopId } = Payload.parse(raw);
  const run = await deliverPending(helpers.query, ctx.config, ctx.appKey, shopId, ctx.log, ctx.cut);
  if (run.alert) {
    await helpers.addJob('fiscal__alert', { shop_id: shopId }, {
      jobKey: `fiscal_alert:${shopId}`,
      jobKeyMode: 'preserve_run_at',
      runAt: new Date(Date.now() + ctx.config.FISCAL_ALERT_DELAY_MS),
    });
  }
  if (run.nextRunAt) {
    await helpers.addJob('fiscal__certify', { shop_id: shopId }, {
      queueName: `fiscal:${shopId}`,
      jobKey: `fiscal_certify:${shopId}`,
      jobKeyMode: 'preserve_run_at',
      runAt: run.nextRunAt,
    });
  }
};
