import { createHash } from 'node:crypto';
import type { CertificationRequest, DeliveryOutcome, FiscalProvider } from './types.ts';

/**
 * The default authority of a deployment that certifies without one (`FISCAL_PROVIDER=simulator`,
 * CONTRACT section 14), so that a newcomer and the tests see certification work with no account
 * anywhere: every shop is certified with no set-up, at once, with elements derived from the record
 * (the same record delivered twice gets the same number: nothing is certified twice); a shop whose
 * taxpayer number starts with `X` is refused (`invalid_taxpayer`). Every VAT rate has a tax group.
 */
export const simulator: FiscalProvider = {
  name: 'simulator',
  taxGroupFor: (vatRate) => `T${vatRate}`,
  paymentTypeFor: (method) => method,
  async deliver(request: CertificationRequest): Promise<DeliveryOutcome> {
    if (request.credentials.taxpayerNo.toUpperCase().startsWith('X')) {
      return { outcome: 'rejected', reason: 'invalid_taxpayer', detail: 'Simulateur : numéro de contribuable invalide.' };
    }
    const digest = createHash('sha256').update(`${request.recordId}|${request.kind}|${request.totalXaf}`).digest('hex').toUpperCase();
    const authorityNo = `SIM-${digest.slice(0, 4)}-${digest.slice(4, 8)}-${digest.slice(8, 12)}-${digest.slice(12, 16)}`;
    const stamp = request.issuedAt.replace(/\D/g, '').slice(0, 14);
    return {
      outcome: 'certified',
      authorityNo,
      signature: `SIMULATEUR ${request.kind === 'sale' ? 'FV' : 'FA'} ${request.number}`,
      qr: `SIM;${authorityNo};${request.credentials.taxpayerNo};${request.totalXaf};${stamp}`,
      certifiedAt: new Date().toISOString(),
      providerRef: digest.slice(0, 24),
      lineRefs: null,
    };
  },
};
