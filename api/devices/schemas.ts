import { z } from '@hono/zod-openapi';
import { CLAIM_PAIRING, CREATE_PAIRING, DEVICE, PAIRING, PAIRING_STATUS } from './examples.ts';
import { optionalText, Timestamp, Uuid } from '../schemas.ts';

export const Platform = z.enum(['pwa', 'desktop']);

export const CreatePairingBody = z
  .object({ name: optionalText(120), platform: Platform.nullable().optional() })
  .openapi('CreatePairing', { example: CREATE_PAIRING });

export const Pairing = z
  .object({
    code: z.string().openapi({ description: '8 characters a person can type (no 0/O, 1/I); valid 10 minutes.', example: 'K7MZ4QXT' }),
    poll_secret: z.string().openapi({ description: 'Send it as `X-Pairing-Secret` when polling, to receive the device token once claimed.' }),
    expires_at: Timestamp,
  })
  .openapi('Pairing', { example: PAIRING });

export const PairingStatus = z
  .object({
    code: z.string(),
    status: z.enum(['pending', 'claimed', 'expired']),
    device: z
      .object({ id: Uuid, token: z.string().openapi({ description: 'Send as `Authorization: Device <token>`. Handed out once.' }) })
      .optional()
      .openapi({ description: 'Only to the first poll after the claim that sends the right X-Pairing-Secret.' }),
  })
  .openapi('PairingStatus', { example: PAIRING_STATUS });

export const ClaimBody = z.object({ name: optionalText(120) }).openapi('ClaimPairing', { example: CLAIM_PAIRING });

export const DeviceRecord = z
  .object({
    id: Uuid,
    name: z.string().nullable(),
    platform: Platform.nullable(),
    claimed_by: Uuid.nullable(),
    last_seen_at: Timestamp.nullable(),
    last_sync_at: Timestamp.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .openapi('Device', { example: DEVICE });
export type DeviceRecord = z.infer<typeof DeviceRecord>;
