/**
 * The payer's MSISDN as MTN and pawaPay take it: digits only, an international `00` prefix dropped,
 * and the country code (MOMO_COUNTRY_CODE) put before a local number (9 digits in Cameroon).
 */
export function msisdn(phone: string, countryCode: string): string {
  const digits = phone.replace(/\D/g, '').replace(/^00/, '');
  return digits.length <= 9 ? `${countryCode}${digits}` : digits;
}
