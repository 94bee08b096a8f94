/**
 * A mobile-money provider as billing sees it (CONTRACT section 10): ask the payer for an amount,
 * then ask how that request stands. Each charge has our own `reference`, which names it at the
 * provider too (MTN's X-Reference-Id).
 */
export interface PaymentRequest {
  reference: string;
  /** The charge's id (a UUID): what names the request at a provider that wants one (MTN's X-Reference-Id). */
  chargeId: string;
  amountXaf: number;
  /** The payer's number as typed by the owner. */
  phone: string;
  method: 'carrier1_momo' | 'carrier2_money';
}

export type PaymentStatus = { status: 'pending' } | { status: 'succeeded' } | { status: 'failed'; reason: string };

export interface MobileMoneyProvider {
  readonly name: string;
  /** Sends the request to pay; throws when the provider could not take it (the charge then fails). */
  requestPayment(request: PaymentRequest): Promise<void>;
  /** How the request stands now; throws when the provider cannot be asked (the charge stays pending). */
  paymentStatus(request: PaymentRequest): Promise<PaymentStatus>;
}
