/**
 * A tax authority's certification service as the certification outbox sees it (CONTRACT section 14):
 * a sale or a credit note goes in, the authority's number, signature and QR payload come out.
 *
 * A connector never throws and never guesses. It sorts every ending of a delivery into one of four:
 * - `certified`: the authority said so and gave its elements;
 * - `rejected`: the authority said it will never certify this record as sent (a 4xx with a reason);
 * - `not_sent`: the authority certainly did not certify it (the connection was refused, the authority
 *   documents the answer as "not processed", a two-phase request was cancelled): safe to send again;
 * - `unknown`: the request may have been certified and its answer lost. The outbox never sends such a
 *   record again on its own (that could certify it twice): the connector resolves it on the next delivery
 *   from what it journalled (`DeliveryState`), or, where the authority offers no way to look a record up,
 *   it stays for the owner to settle (api/fiscal/certification.ts).
 * Connectors are called with no database transaction open (STYLE.md, "Provider connectors"); before each
 * call that could certify, they journal where they stand through `journal`, so that a worker killed
 * mid-delivery leaves enough for the next one to finish without certifying twice.
 */

export type FiscalProviderName = 'simulator' | 'emecef' | 'fne';

/** One line as the authority sees it; amounts in integer XAF, VAT included (our prices' convention). */
export interface CertificationLine {
  /** Our line number in the sale (1, 2, ...): a credit note's lines name the sale's lines by it. */
  lineNo: number;
  /** The product's SKU or barcode when it has one. */
  code: string | null;
  name: string;
  /** Decimal text with up to 3 decimals ("2", "1.250"). */
  quantity: string;
  unitPriceXaf: number;
  /** What the line comes to after its discounts, VAT included: round(quantity * unit price) - discounts. */
  totalXaf: number;
  /** VAT included in totalXaf. */
  vatXaf: number;
  /** The VAT rate as text ("18", "0", "19.25"). */
  vatRate: string;
  /** The authority's tax group for vatRate, from the provider's mapping table (taxGroupFor). */
  taxGroup: string;
}

export interface CertificationPayment {
  /** The authority's payment type for our method, from the provider's mapping table (paymentTypeFor). */
  type: string;
  amountXaf: number;
}

/** The credentials and identity of one shop at the authority (stored sealed; given to the connector in clear). */
export interface ShopCredentials {
  /** The shop's taxpayer number: Benin's IFU (13 digits), Cote d'Ivoire's NCC. */
  taxpayerNo: string;
  /** The API token (e-MECeF: the e-MCF's JWT; FNE: the API key of the shop's FNE space). */
  apiToken: string;
  /** FNE's `pointOfSale`; e-MECeF's e-MCF NIM (informative: the token designates the e-MCF). */
  pointOfSale: string | null;
  /** FNE's `establishment`. */
  establishment: string | null;
}

export interface CertificationRequest {
  /** Ours, stable across deliveries: `<shop_id>:<chain_no>`. */
  recordId: string;
  /** A sale, or a credit note (a refund, or a void: a credit note for the whole sale). */
  kind: 'sale' | 'credit_note';
  /** Receipt number of a sale, credit note number of a credit note, as printed. */
  number: string;
  /** When the record was made (ISO). */
  issuedAt: string;
  shopName: string;
  credentials: ShopCredentials;
  operator: { id: string; name: string };
  /** The customer when one was named; `taxpayerNo` set makes it a business (B2B). */
  customer: { name: string; taxpayerNo: string | null; phone: string | null; email: string | null; address: string | null } | null;
  lines: CertificationLine[];
  payments: CertificationPayment[];
  totalXaf: number;
  vatXaf: number;
  /** For a credit note: the certified sale it corrects. */
  original: OriginalCertification | null;
}

/** What a credit note needs of its sale's certification, as the sale's delivery kept it. */
export interface OriginalCertification {
  authorityNo: string;
  /** The authority's own id of the sale (e-MECeF: the 24 characters of the code MECeF/DGI; FNE: the invoice id). */
  providerRef: string | null;
  /** FNE: the authority's id of each line, by our lineNo. */
  lineRefs: Record<string, string> | null;
}

/** What the authority gave for a certified record: what is printed, and what a later credit note needs. */
export interface Certified {
  outcome: 'certified';
  /** The number printed on the document (e-MECeF: the code MECeF/DGI; FNE: the invoice reference). */
  authorityNo: string;
  /** The signature or verification elements (e-MECeF: NIM, counters and time; FNE: the verification token). */
  signature: string;
  /** The QR code's payload, printed as a QR code. */
  qr: string;
  /** When the authority certified it (ISO). */
  certifiedAt: string;
  providerRef: string | null;
  lineRefs: Record<string, string> | null;
}

export type DeliveryOutcome =
  | Certified
  | { outcome: 'rejected'; reason: string; detail: string }
  | { outcome: 'not_sent'; detail: string }
  | { outcome: 'unknown'; detail: string };

/**
 * Where a delivery stands, journalled by the connector between its calls (a JSON object of the
 * connector's own, kept with the record): e.g. e-MECeF's `{stage: 'submitted', uid}` before it confirms.
 * `{}` for a record never sent.
 */
export type DeliveryState = Record<string, unknown>;

export interface Journal {
  /** Writes the state down (its own statement, committed before it resolves). */
  note(state: DeliveryState): Promise<void>;
}

export interface FiscalProvider {
  readonly name: FiscalProviderName;
  /** The authority's tax group for one of our VAT rates, or null when it has none (refused when certification is enabled). */
  taxGroupFor(vatRate: string): string | null;
  /** The authority's payment type for one of our payment methods. */
  paymentTypeFor(method: string): string;
  /**
   * Delivers one record, going on from `state` (what an earlier delivery journalled). `signal`: the
   * worker's shutdown; a call still waiting when it aborts ends as if its answer were lost.
   */
  deliver(request: CertificationRequest, state: DeliveryState, journal: Journal, signal?: AbortSignal): Promise<DeliveryOutcome>;
}
