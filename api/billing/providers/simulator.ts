import type { MobileMoneyProvider, PaymentRequest, PaymentStatus } from './types.ts';

/**
 * The default provider (`MOBILE_MONEY_PROVIDER=simulator`), deterministic by the payer's number
 * (CONTRACT section 10), so that tests and a newcomer can subscribe with no account anywhere: a last
 * digit 1 fails (`payer_declined`), 2 stays pending for ever, any other succeeds from the first
 * question. Every number has a wallet, and every request is taken.
 */
export const simulator: MobileMoneyProvider = {
  name: 'simulator',
  async checkPayer() {
    return { payer: 'active' };
  },
  async requestPayment() {
    return { outcome: 'accepted' };
  },
  async paymentStatus({ phone }: PaymentRequest): Promise<PaymentStatus> {
    const last = phone.replace(/\D/g, '').slice(-1);
    if (last === '1') return { status: 'failed', reason: 'payer_declined', detail: 'simulator' };
    if (last === '2') return { status: 'pending' };
    return { status: 'succeeded' };
  },
};
