import type { Task } from 'graphile-worker';

/**
 * Daily: drops shared links (POST /sales/{id}/share, POST /quotes/{id}/share, the receipts' QR codes)
 * a day past their expiry. An expired link already answers 404 (shared_link_find); this only keeps the
 * table the size of the links that still work. Idempotent.
 */
export const documentsPruneLinks: Task = async (_payload, helpers) => {
  await helpers.query(`delete from shared_links where expires_at < now() - interval '1 day'`);
};
