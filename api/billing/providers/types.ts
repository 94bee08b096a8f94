/**
 * A mobile-money provider as billing sees it (CONTRACT sections 10 and 12): check the payer's
 * account, ask the payer for an amount, then ask how that request stands.
 *
 * A connector never throws and never guesses: whatever it cannot interpret (a timeout, a network
 * error, a 5xx, a 429, an answer of an unknown shape) is `unknown`, and the charge stays pending to be
 * asked again. Only what the provider itself said settles a charge. No connector is ever called while
 * a database transaction is open (STYLE.md, "Provider connectors").
 */

/** Why a charge failed, as the provider said it (CONTRACT section 12); each has a message in api/billing/failure-reasons.ts. */
export const FAILURE_REASONS = [
  'payer_declined',
  'payer_not_found',
  'not_enough_funds',
  'payer_limit_reached',
  'approval_rejected',
  'expired',
  'transaction_canceled',
  'provider_rejected',
] as const;
export type FailureReason = (typeof FAILURE_REASONS)[number];

export type ChargeMethod = 'carrier1_momo' | 'carrier2_money';

export interface PaymentRequest {
  /**
   * What names the request at the provider (MTN's X-Reference-Id, pawaPay's depositId): a UUID v4,
   * the charge's id, which is also its public `reference` for every charge made since issue 26.
   * Sending the same request again with it is the same payment, never a second one.
   */
  requestId: string;
  /** The charge's public reference (shown to the payer in the operator's message). */
  reference: string;
  amountXaf: number;
  /** The payer's number as typed by the owner. */
  phone: string;
  method: ChargeMethod;
  /** Where the provider may tell us that the request moved (PUBLIC_BASE_URL set); a hint only, never trusted. */
  callbackUrl?: string;
}

/** What the provider did with a request to pay. */
export type RequestOutcome =
  /** It has the request: taken now (MTN 202, pawaPay ACCEPTED) or already (MTN 409 RESOURCE_ALREADY_EXIST, pawaPay DUPLICATE_IGNORED). */
  | { outcome: 'accepted' }
  /** It said it will not take it (a 400, pawaPay REJECTED): the charge fails with this reason. */
  | { outcome: 'rejected'; reason: FailureReason; detail: string }
  /** No answer we can rely on: the request may or may not have arrived; it is asked about again later. */
  | { outcome: 'unknown'; detail: string };

/** How a request to pay stands at the provider. */
export type PaymentStatus =
  | { status: 'pending' }
  | { status: 'succeeded' }
  | { status: 'failed'; reason: FailureReason; detail: string }
  /** The provider has no request of that id (MTN 404, pawaPay NOT_FOUND). */
  | { status: 'not_found' }
  | { status: 'unknown'; detail: string };

/** Whether the payer's number holds an active wallet of that operator. */
export type PayerCheck = { payer: 'active' } | { payer: 'not_found' } | { payer: 'unknown'; detail: string };

export type ProviderName = 'simulator' | 'mtn_momo' | 'pawapay';

export interface MobileMoneyProvider {
  readonly name: ProviderName;
  /** Before a charge is created: a number with no active wallet is refused at once (422 payer_not_found). */
  checkPayer(phone: string, method: ChargeMethod): Promise<PayerCheck>;
  /** Sends the request to pay; safe to send again with the same requestId. */
  requestPayment(request: PaymentRequest): Promise<RequestOutcome>;
  /** How the request stands now. */
  paymentStatus(request: PaymentRequest): Promise<PaymentStatus>;
}
