import { z } from '@hono/zod-openapi';
import { Timestamp } from '../schemas.ts';

/** A sale's, a void's or a refund's certification by the tax authority (CONTRACT section 14). */
export const Certification = z
  .object({
    status: z.enum(['pending', 'certified', 'rejected']).openapi({
      description:
        '`pending` until the authority has certified the record (the sale is final in our books either way: it never waits for the ' +
        'authority); `certified` with its elements; `rejected` with the authority\'s reason (the record stays a sale; the owner is alerted).',
    }),
    authority_no: z.string().nullable().openapi({ description: 'The number the authority gave (e-MECeF: the code MECeF/DGI; FNE: the invoice reference).' }),
    signature: z.string().nullable().openapi({ description: 'The authority\'s signature or verification elements, printed under the number.' }),
    qr: z.string().nullable().openapi({ description: 'The payload of the QR code the documents print.' }),
    certified_at: Timestamp.nullable(),
    error: z.string().nullable().openapi({
      description:
        'Why it is not certified: the authority\'s reason for a rejection (`invalid_taxpayer`, `emecef_11`, `fne_bad_request`, ' +
        '`unmapped_vat_rate`...); on a pending record, what holds it (`authority_unreachable`, retried with backoff; `answer_lost`, ' +
        'waiting for the owner: POST /fiscal/certifications/{chain_no}/settle).',
    }),
    error_message: z.string().nullable().openapi({ description: 'The authority\'s own words, or ours, about `error`.' }),
    original_authority_no: z.string().nullable().openapi({ description: 'For a credit note (a refund, a void): the authority number of the sale it corrects.' }),
  })
  .openapi('Certification', {
    example: {
      status: 'certified',
      authority_no: 'X537-E4DB-AJUU-HHXN-FWIS-FEKJ',
      signature: 'IN01000005 64/64 FV 23/11/2026 13:17:08',
      qr: 'F;IN01000005;X537E4DBAJUUHHXNFWISFEKJ;9999900000001;20261123131708',
      certified_at: '2026-11-23T12:17:08.000Z',
      error: null,
      error_message: null,
      original_authority_no: null,
    },
  });
export type Certification = z.infer<typeof Certification>;
