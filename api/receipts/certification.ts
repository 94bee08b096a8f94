/**
 * What a document prints of the tax authority's certification (CONTRACT section 14), decided once for
 * every rendering: the till receipt (layout.ts: ESC/POS, text, receipt PDF and page), the A4 invoice
 * and credit note (document.ts: HTML and PDF) and the phone page (phone-page.ts).
 *
 * - no certification (the shop does not certify, or the record predates it): nothing at all;
 * - pending: "En attente de certification", so that a customer knows the number is to come (a reprint
 *   once the authority answered carries it: every document is rendered from the record as it is now);
 * - certified: the authority's number, when it certified (the shop's time zone), its signature (small)
 *   and its QR code, captioned so that a customer tells it from the receipt's link to the sale's page;
 * - rejected: "Facture non certifiée" and no reason: the authority's words are for the owner, who is
 *   alerted, not for the customer.
 * A credit note (a refund, a void) also names the authority number of the invoice it corrects.
 */
import type { Certification } from '../fiscal/certification-schemas.ts';
import type { SaleRecord } from '../sales/schemas.ts';
import type { Field } from './document.ts';
import { formatDateTime, LABELS, type ReceiptLocale } from './format.ts';

export interface PrintedCertification {
  /** In order: the state alone (pending, rejected), or the number and the time; then the original invoice's number. */
  lines: (Field | string)[];
  /** The authority's signature, printed small under the lines. */
  signature: string | null;
  /** The authority's QR code and the caption printed above it. */
  qr: { caption: string; data: string } | null;
}

/** `subject`: what the record is to the authority, which a rejection names ("Facture" / "Avoir non certifié"). */
export function printedCertification(
  certification: Certification | null,
  subject: 'invoice' | 'credit_note',
  timezone: string,
  locale: ReceiptLocale,
): PrintedCertification | null {
  if (!certification) return null;
  const t = LABELS[locale];
  const original: Field[] = certification.original_authority_no ? [{ label: t.originalInvoice, value: certification.original_authority_no }] : [];
  switch (certification.status) {
    case 'pending':
      return { lines: [t.certificationPending, ...original], signature: null, qr: null };
    case 'rejected':
      return { lines: [subject === 'invoice' ? t.invoiceNotCertified : t.creditNoteNotCertified, ...original], signature: null, qr: null };
    case 'certified':
      return {
        lines: [
          ...(certification.authority_no ? [{ label: t.certificationNo, value: certification.authority_no }] : []),
          ...(certification.certified_at ? [{ label: t.certifiedAt, value: formatDateTime(certification.certified_at, timezone) }] : []),
          ...original,
        ],
        signature: certification.signature || null,
        qr: certification.qr ? { caption: t.authorityCheck, data: certification.qr } : null,
      };
  }
}

/** A voided sale whose void the authority certified (a credit note for the whole sale): "Annulation certifiée : <no>". */
export function voidCertified(sale: SaleRecord, locale: ReceiptLocale): Field | null {
  const certification = sale.status === 'voided' ? sale.void_certification : null;
  return certification?.status === 'certified' && certification.authority_no ? { label: LABELS[locale].voidCertified, value: certification.authority_no } : null;
}
