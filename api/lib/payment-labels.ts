/**
 * What a payment method is called on every document and report: the name the shop gave it
 * (settings `payment_method_labels`, e.g. `carrier1_momo: "MTN MoMo"`), else the default of the
 * shop's language. The mobile-money methods default to the two carriers most shops take.
 */
export const PAYMENT_METHODS = ['cash', 'carrier1_momo', 'carrier2_money', 'card', 'bank', 'credit'] as const;
export type PaymentMethodKey = (typeof PAYMENT_METHODS)[number];
export type PaymentLabels = Record<PaymentMethodKey, string>;

export const DEFAULT_PAYMENT_LABELS: Record<'fr' | 'en', PaymentLabels> = {
  fr: {
    cash: 'Espèces',
    carrier1_momo: 'MTN MoMo',
    carrier2_money: 'Orange Money',
    card: 'Carte bancaire',
    bank: 'Virement bancaire',
    credit: 'Compte client',
  },
  en: {
    cash: 'Cash',
    carrier1_momo: 'MTN MoMo',
    carrier2_money: 'Orange Money',
    card: 'Card',
    bank: 'Bank transfer',
    credit: 'Customer account',
  },
};

/** The shop's labels over the defaults of `locale`. */
export function paymentLabels(locale: 'fr' | 'en', named: Partial<Record<string, string>> | null | undefined): PaymentLabels {
  const labels = { ...DEFAULT_PAYMENT_LABELS[locale] };
  for (const method of PAYMENT_METHODS) {
    const own = named?.[method];
    if (typeof own === 'string' && own.trim() !== '') labels[method] = own.trim();
  }
  return labels;
}
