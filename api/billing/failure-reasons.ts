import type { Locale } from '../lib/locale.ts';
import type { FailureReason } from './providers/types.ts';

/**
 * What a failed charge's `failure_reason` means to the shop owner, in French and English (GET
 * /billing shows it as `failure_message`). The last two are not the provider's: a request the
 * simulator refused, and one sent before issue 26 whose provider could not be reached.
 */
const MESSAGES: Record<FailureReason | 'provider_unavailable', Record<Locale, string>> = {
  payer_declined: { fr: 'Le payeur a refusé le paiement sur son téléphone.', en: 'The payer declined the payment on their phone.' },
  payer_not_found: { fr: "Aucun compte mobile money actif n'existe pour ce numéro.", en: 'No active mobile-money account exists for this number.' },
  not_enough_funds: { fr: "Le solde du compte mobile money n'est pas suffisant.", en: 'The mobile-money account does not hold enough funds.' },
  payer_limit_reached: { fr: 'Le payeur a atteint la limite de ses transactions.', en: 'The payer has reached their transaction limit.' },
  approval_rejected: { fr: "Le paiement n'a pas été approuvé.", en: 'The payment was not approved.' },
  expired: { fr: "Le paiement n'a pas été approuvé à temps.", en: 'The payment was not approved in time.' },
  transaction_canceled: { fr: 'Le paiement a été annulé.', en: 'The payment was cancelled.' },
  provider_rejected: { fr: "L'opérateur a refusé la demande de paiement.", en: 'The operator refused the payment request.' },
  provider_unavailable: { fr: "L'opérateur n'a pas pu être joint.", en: 'The operator could not be reached.' },
};

/** The message of a charge's failure reason in `locale`; a reason with no message reads as the operator's refusal. */
export function failureMessage(reason: string | null, locale: Locale): string | null {
  if (reason === null) return null;
  return (MESSAGES[reason as FailureReason] ?? MESSAGES.provider_rejected)[locale];
}
