import { example } from '../lib/examples.ts';
import { OWNER } from '../users/examples.ts';

/** The examples of the OpenAPI document for devices: the grocery's second till, paired by its owner. */

const DEVICE_ID = '1f6b9d3e-7c2a-4e58-a9d1-5b8e2c7f4a30';

export const CREATE_PAIRING = example({ name: 'Caisse 2', platform: 'pwa' });

export const PAIRING = example({
  code: 'K7MZ4QXT',
  poll_secret: 'Jm4wQ8rT2kVz7bN1xC5pL9sD3fG6hY0a',
  expires_at: '2026-11-21T08:10:00.000Z',
});

/** The first poll after the claim, with the right X-Pairing-Secret. */
export const PAIRING_STATUS = example({
  code: 'K7MZ4QXT',
  status: 'claimed',
  device: { id: DEVICE_ID, token: 'dev_8Hq2Lr6Tz0Wm4Ny9Pb3Ks7Xc1Vd5Fg2Ju8Ea6Ri0' },
});

export const CLAIM_PAIRING = example({ name: 'Caisse 2 - entrée' });

export const DEVICE = example({
  id: DEVICE_ID,
  name: 'Caisse 2 - entrée',
  platform: 'pwa',
  claimed_by: OWNER.id,
  last_seen_at: '2026-11-21T09:14:35.000Z',
  last_sync_at: '2026-11-21T09:14:35.000Z',
  created_at: '2026-11-21T08:01:52.000Z',
  updated_at: '2026-11-21T09:14:35.000Z',
});
