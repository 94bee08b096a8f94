import { existsSync } from 'node:fs';
import t from 'tap';
import type { Certification } from '../../api/fiscal/certification-schemas.ts';
import { creditNoteDocument, renderCreditNote } from '../../api/receipts/credit-note.ts';
import { renderEscPos } from '../../api/receipts/escpos.ts';
import { renderInvoice } from '../../api/receipts/invoice.ts';
import { PRINTER_DOTS } from '../../api/receipts/logo-raster.ts';
import { creditNotePdf, invoicePdf, receiptPdf } from '../../api/receipts/pdf.ts';
import { renderReceiptPage, renderSalePage } from '../../api/receipts/phone-page.ts';
import { renderText } from '../../api/receipts/text.ts';
import type { ReceiptInput, SaleRecord } from '../../api/sales/schemas.ts';
import { pdfText } from './pdf-reader.ts';
import { decodeQr, pdfQrSymbols, svgQrSymbols } from './qr-reader.ts';
import { CUSTOMER, readEscPos, receiptInput, visibleText, type EscPosEvent } from './receipt-fixtures.ts';

/**
 * Every document prints the tax authority's certification (CONTRACT section 14; the texts are decided
 * once, in api/receipts/certification.ts): nothing for a shop that does not certify, "pending" before
 * the authority answered, its number, time, signature and QR code once it certified, "not certified"
 * when it rejected. Each document is rendered from a sale as the API gives it and read back as its
 * reader would: the printer's bytes decoded, the PDF's text by pdftotext, the pages' visible text, and
 * every QR code decoded module by module (qr-reader.ts).
 */

const PAGE_LINK = 'https://pos.example.cm/s/Kq7Rw2ZtB9xM';
const LINKS = { pdf: `${PAGE_LINK}/pdf`, receipt: `${PAGE_LINK}/receipt` };

/** e-MECeF's elements (Benin): its QR payload is 66 characters. Certified at 23:30 UTC, 00:30 the next day in Douala. */
const CERTIFIED: Certification = {
  status: 'certified',
  authority_no: 'X537-E4DB-AJUU-HHXN-FWIS-FEKJ',
  signature: 'IN01000005 64/64 FV 22/11/2026 00:30:08',
  qr: 'F;IN01000005;X537E4DBAJUUHHXNFWISFEKJ;9999900000001;20261122003008',
  certified_at: '2026-11-21T23:30:08.000Z',
  error: null,
  error_message: null,
  original_authority_no: null,
};
/** FNE's (Côte d'Ivoire): the QR code is the invoice's verification page, 91 characters. */
const FNE_QR = 'https://www.services.fne.dgi.gouv.ci/fr/verification/019465c4-bd0c-7ccb-a0ab-0b7fd5ba14d8';
const PENDING: Certification = { status: 'pending', authority_no: null, signature: null, qr: null, certified_at: null, error: 'authority_unreachable', error_message: 'connect ECONNREFUSED 10.0.0.7:443', original_authority_no: null };
const REJECTED: Certification = { status: 'rejected', authority_no: null, signature: null, qr: null, certified_at: null, error: 'invalid_taxpayer', error_message: 'Contribuable <inconnu> & radié', original_authority_no: null };

/** Every word the certification adds, in both languages: a sale that is not certified prints none of them. */
const CERTIFICATION_WORDS = [
  'certification', 'Certification', 'certifié', 'Certified', 'certified', 'Vérification DGI', 'Tax authority check', 'Votre facture en ligne', 'Your invoice online',
];

const certified = (fields: Partial<SaleRecord> = {}) => receiptInput({ customer: CUSTOMER, sale: { certification: CERTIFIED, ...fields } });

const escposLines = (input: ReceiptInput, width: 58 | 80 = 58, locale: 'fr' | 'en' = 'fr') =>
  readEscPos(renderEscPos(input, width, locale, PAGE_LINK)).flatMap((e) => (e.kind === 'text' ? [e.text] : []));

/** What a printed receipt shows, in order: its lines and the data of its QR codes. */
function printed(input: ReceiptInput, width: 58 | 80 = 58, locale: 'fr' | 'en' = 'fr'): string[] {
  return readEscPos(renderEscPos(input, width, locale, PAGE_LINK)).flatMap((e) =>
    e.kind === 'text' ? [e.text] : e.kind === 'qr' && e.fn === 0x50 ? [`[QR ${new TextDecoder('windows-1252').decode(Uint8Array.from(e.params.slice(1)))}]`] : [],
  );
}

/** A receipt's text lines glued back into one, so that a wrapped value reads whole. */
const joined = (lines: string[]) => lines.map((line) => line.trim()).join(' ').replace(/\s+/g, ' ');

/** The sale's invoice and its pages as a customer reads them. */
async function everyDocument(input: ReceiptInput, locale: 'fr' | 'en' = 'fr') {
  return {
    receipt: joined(escposLines(input, 58, locale)),
    text: renderText(input, locale, 'chat'),
    receiptPdf: pdfText(await receiptPdf(input, 58, locale, PAGE_LINK)).replace(/\s+/g, ' '),
    invoiceHtml: visibleText(renderInvoice(input, 'a4', locale)),
    invoicePdf: pdfText(await invoicePdf(input, locale, null)).replace(/\s+/g, ' '),
    phonePage: visibleText(renderSalePage(input, locale, null, LINKS)),
  };
}

/** The refund of one coffee (2 250 FCFA), its credit note n° 3 certified as `certification` says. */
function refunded(certification: Certification | null, sale: Certification | null = CERTIFIED): { input: ReceiptInput; refund: SaleRecord['refunds'][number] } {
  const input = receiptInput({ customer: CUSTOMER, sale: { status: 'partially_refunded', certification: sale } });
  const refund: SaleRecord['refunds'][number] = {
    id: '00000000-0000-4000-a000-000000000003', credit_note_no: 3, method: 'cash', reason: 'Paquet ouvert', total_xaf: 2250, vat_xaf: 363,
    items: [{ sale_item_id: input.sale.items[0]!.id, quantity: 1, total_xaf: 2250, vat_xaf: 363 }], created_at: '2026-11-22T09:00:00.000Z', certification,
  };
  input.sale.refunds = [refund];
  return { input, refund };
}

/** The longest common subsequence's complement: what `after` lost of `before` and what it gained, in order. */
function difference(before: string[], after: string[]): { removed: string[]; added: string[] } {
  const common = Array.from({ length: before.length + 1 }, () => new Array<number>(after.length + 1).fill(0));
  for (let i = before.length - 1; i >= 0; i--) {
    for (let j = after.length - 1; j >= 0; j--) common[i]![j] = before[i] === after[j] ? common[i + 1]![j + 1]! + 1 : Math.max(common[i + 1]![j]!, common[i]![j + 1]!);
  }
  const removed: string[] = [];
  const added: string[] = [];
  let [i, j] = [0, 0];
  while (i < before.length || j < after.length) {
    if (i < before.length && j < after.length && before[i] === after[j]) [i, j] = [i + 1, j + 1];
    else if (j < after.length && (i === before.length || common[i]![j + 1]! >= common[i + 1]![j]!)) added.push(after[j++]!);
    else removed.push(before[i++]!);
  }
  return { removed, added };
}

t.test('a sale the shop does not certify prints nothing of a certification, on any document', async (t) => {
  for (const locale of ['fr', 'en'] as const) {
    const documents = await everyDocument(receiptInput({ customer: CUSTOMER }), locale);
    for (const [name, text] of Object.entries(documents)) {
      t.notOk(CERTIFICATION_WORDS.some((word) => text.includes(word)), `${name} (${locale})`);
    }
  }
  const events = readEscPos(renderEscPos(receiptInput(), 58, 'fr', PAGE_LINK));
  t.equal(events.filter((e) => e.kind === 'qr' && e.fn === 0x50).length, 1, 'the receipt prints the page link\'s QR code alone');
  t.notOk(events.some((e) => e.kind === 'font'), 'in one font');
  t.same(pdfQrSymbols(await invoicePdf(receiptInput(), 'fr', null)), [], 'the invoice draws no QR code');
  t.notMatch(renderSalePage(receiptInput(), 'fr', null, LINKS), '<svg', 'nor does the phone page');
});

t.test('a pending sale says "En attente de certification" on the receipt, its text, its PDF, the invoice, its PDF and the phone page', async (t) => {
  for (const [locale, words] of [['fr', 'En attente de certification'], ['en', 'Pending certification']] as const) {
    const documents = await everyDocument(receiptInput({ customer: CUSTOMER, sale: { certification: PENDING } }), locale);
    for (const [name, text] of Object.entries(documents)) t.ok(text.includes(words), `${name} (${locale})`);
  }
  const events = readEscPos(renderEscPos(receiptInput({ sale: { certification: PENDING } }), 58, 'fr', PAGE_LINK));
  t.match(events.find((e) => e.kind === 'text' && e.text.includes('attente')), { text: 'En attente de certification', align: 1, bold: true }, 'centred and bold on the paper');
  t.equal(events.filter((e) => e.kind === 'qr' && e.fn === 0x50).length, 1, 'no QR code but the page link\'s');
  t.notOk(JSON.stringify(await everyDocument(receiptInput({ sale: { certification: PENDING } }))).includes('ECONNREFUSED'), 'what holds it is not the customer\'s business');
});

t.test('a certified sale prints the authority number, its signature and when it certified (the shop\'s time zone) on every document', async (t) => {
  for (const [locale, number, at] of [
    ['fr', 'N° de certification : X537-E4DB-AJUU-HHXN-FWIS-FEKJ', 'Date de certification : 22/11/2026 00:30'],
    ['en', 'Certification no.: X537-E4DB-AJUU-HHXN-FWIS-FEKJ', 'Certified on: 22/11/2026 00:30'],
  ] as const) {
    const documents = await everyDocument(certified(), locale);
    for (const [name, text] of Object.entries(documents)) {
      t.ok(text.includes(number), `${name} (${locale}): the number`);
      t.ok(text.includes(at), `${name} (${locale}): 23:30 UTC is 00:30 the next day in Douala`);
      t.ok(text.includes('IN01000005 64/64 FV 22/11/2026 00:30:08'), `${name} (${locale}): the signature`);
    }
  }
  const token = 'eyJhbGciOiJFUzI1NiJ9'.repeat(12);
  const pdf = pdfText(await invoicePdf(certified({ certification: { ...CERTIFIED, signature: token } }), 'fr', null));
  t.ok(pdf.replace(/\s+/g, '').includes(token), 'a signature of 240 characters without a space breaks across lines on the A4 PDF, none lost');
  t.notMatch(renderText(certified(), 'fr', 'chat'), 'Vérification DGI', 'the text receipt, which nobody scans, has no QR code to caption');
  const signature = readEscPos(renderEscPos(certified(), 58, 'fr', PAGE_LINK)).filter((e): e is Extract<EscPosEvent, { kind: 'text' }> => e.kind === 'text' && /^IN01000005|^00:30:08$/.test(e.text));
  t.ok(signature.length > 0 && signature.every((line) => line.font === 1), 'the signature in the printer\'s small font (ESC M 1)');
  const footer = readEscPos(renderEscPos(certified(), 58, 'fr', PAGE_LINK)).findLast((e) => e.kind === 'text');
  t.match(footer, { text: 'Merci de votre visite !', font: 0 }, 'and back to font A: the footer prints as before');
});

t.test('the receipt prints the authority\'s QR code under "Vérification DGI" and the page link\'s under its own caption', async (t) => {
  const fr = printed(certified());
  t.same(fr.slice(-9), ['Vérification DGI', `[QR ${CERTIFIED.qr}]`, '', '', 'Votre facture en ligne', `[QR ${PAGE_LINK}]`, '', '', 'Merci de votre visite !'], 'the two codes at the foot, each under its caption');
  t.equal(fr[fr.indexOf(`[QR ${CERTIFIED.qr}]`) - 1], 'Vérification DGI');
  t.equal(fr[fr.indexOf(`[QR ${PAGE_LINK}]`) - 1], 'Votre facture en ligne');
  const en = printed(certified(), 80, 'en');
  t.equal(en[en.indexOf(`[QR ${CERTIFIED.qr}]`) - 1], 'Tax authority check');
  t.equal(en[en.indexOf(`[QR ${PAGE_LINK}]`) - 1], 'Your invoice online');
  const voided = printed(certified({ status: 'voided', voided_at: '2026-11-21T14:00:00.000Z' }));
  t.ok(voided.includes(`[QR ${CERTIFIED.qr}]`) && !voided.some((line) => line.startsWith(`[QR ${PAGE_LINK}`)), 'a voided sale keeps its certification\'s code, not its gone page\'s');

  const pdf = pdfQrSymbols(await receiptPdf(certified(), 58, 'fr', PAGE_LINK)).map(decodeQr);
  t.same(pdf, [CERTIFIED.qr, PAGE_LINK], 'the receipt\'s PDF draws both, the authority\'s first');
  t.match(pdfText(await receiptPdf(certified(), 58, 'fr', PAGE_LINK)), /Vérification DGI[\s\S]*Votre facture en ligne/);
});

t.test('the authority\'s QR code fits 58 mm paper, with its quiet zone, however long its payload', async (t) => {
  for (const [name, qr] of [['e-MECeF', CERTIFIED.qr!], ['FNE', FNE_QR], ['a 300-character payload', `https://verify.example/${'A1b2C3d4'.repeat(35)}`.slice(0, 300)]] as const) {
    for (const width of [58, 80] as const) {
      const events = readEscPos(renderEscPos(certified({ certification: { ...CERTIFIED, qr } }), width, 'fr'));
      const qrEvents = events.filter((e): e is Extract<EscPosEvent, { kind: 'qr' }> => e.kind === 'qr');
      const stored = qrEvents.find((e) => e.fn === 0x50)!;
      t.equal(new TextDecoder('windows-1252').decode(Uint8Array.from(stored.params.slice(1))), qr, `${name}, ${width} mm: the payload whole`);
      const module = qrEvents.find((e) => e.fn === 0x43)!.params[0]!;
      // Level M, byte mode: the smallest version that holds the payload (ISO/IEC 18004 table 7), the printer's own choice.
      const capacity = [14, 26, 42, 62, 84, 106, 122, 152, 180, 213, 251, 287, 331, 362, 412];
      const version = capacity.findIndex((bytes) => bytes >= qr.length) + 1;
      const side = (17 + 4 * version + 8) * module;
      t.ok(module >= 1 && module <= 6 && side <= PRINTER_DOTS[width], `${name}, ${width} mm: module ${module} dots, ${side} of ${PRINTER_DOTS[width]} dots`);
    }
  }
  const short = readEscPos(renderEscPos(certified(), 58, 'fr')).find((e) => e.kind === 'qr' && e.fn === 0x43);
  t.match(short, { params: [6] }, 'the authorities\' payloads keep the 6-dot modules of the page link');
});

t.test('the invoice (HTML and PDF) and the phone page draw the authority\'s QR code, which reads back as its payload', async (t) => {
  for (const qr of [CERTIFIED.qr!, FNE_QR]) {
    const input = certified({ certification: { ...CERTIFIED, qr } });
    t.same(svgQrSymbols(renderInvoice(input, 'a4', 'fr')).map(decodeQr), [qr], 'the invoice page, an inline SVG');
    t.same(pdfQrSymbols(await invoicePdf(input, 'fr', null)).map(decodeQr), [qr], 'the invoice PDF, pdfmake\'s qr node');
    t.same(svgQrSymbols(renderSalePage(input, 'fr', null, LINKS)).map(decodeQr), [qr], 'the phone page, an inline SVG');
  }
  const html = renderInvoice(certified(), 'a4', 'en');
  t.match(html, /<figure><figcaption>Tax authority check<\/figcaption><svg class="qr"/, 'captioned');
  t.notMatch(html, /<(img|script|link)\b[^>]*(src|href)="http/, 'nothing fetched');
  t.match(visibleText(renderSalePage(certified(), 'fr', null, LINKS)), 'Vérification DGI');
  t.notMatch(renderReceiptPage(certified(), 'fr', { pdf: LINKS.pdf, page: PAGE_LINK }), '<svg', 'the receipt as a page shows the printed lines, not the codes');
});

const CHROMIUM = process.env.CHROMIUM_BIN || '/usr/bin/chromium';

t.test('on a phone from 320 to 414 px, the certification scrolls nothing sideways and its QR code is whole', { skip: existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM}` }, async (t) => {
  // FNE's signature is a token without a space: it must break rather than widen the page.
  const html = renderSalePage(certified({ certification: { ...CERTIFIED, qr: FNE_QR, signature: 'eyJhbGciOiJFUzI1NiJ9'.repeat(6) } }), 'fr', null, LINKS);
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] });
  t.teardown(() => browser.close());
  for (const width of [320, 390, 414]) {
    const page = await browser.newPage({ viewport: { width, height: 844 }, isMobile: true });
    await page.setContent(html);
    const m = (await page.evaluate(`(() => {
      const qr = document.querySelector('#certification svg.qr').getBoundingClientRect();
      return { scrollWidth: document.documentElement.scrollWidth, left: qr.left, right: qr.right, size: qr.width };
    })()`)) as { scrollWidth: number; left: number; right: number; size: number };
    t.ok(m.scrollWidth <= width, `${width} px: scrollWidth ${m.scrollWidth}`);
    t.ok(m.left >= 0 && m.right <= width && m.size >= 180, `${width} px: the code ${Math.round(m.size)} px wide, within the screen`);
    await page.close();
  }
});

t.test('the authority\'s texts are escaped on every page', async (t) => {
  const input = certified({ certification: { ...CERTIFIED, authority_no: '<b>X537</b>', signature: '"><script>alert(1)</script>', qr: '</svg><script>' } });
  for (const html of [renderInvoice(input, 'a4', 'fr'), renderSalePage(input, 'fr', null, LINKS)]) {
    t.notMatch(html, /<script|<b>X537/, 'no markup of the authority\'s');
    t.match(html, '&lt;b&gt;X537&lt;/b&gt;');
    t.same(svgQrSymbols(html).map(decodeQr), ['</svg><script>'], 'the payload only as modules');
  }
});

t.test('a rejected sale says "Facture non certifiée" and never the authority\'s reason', async (t) => {
  for (const [locale, words] of [['fr', 'Facture non certifiée'], ['en', 'Invoice not certified']] as const) {
    const documents = await everyDocument(receiptInput({ customer: CUSTOMER, sale: { certification: REJECTED } }), locale);
    for (const [name, text] of Object.entries(documents)) {
      t.ok(text.includes(words), `${name} (${locale})`);
      t.notOk(/invalid_taxpayer|inconnu|radié/.test(text), `${name} (${locale}): no reason`);
    }
  }
  t.same(pdfQrSymbols(await invoicePdf(receiptInput({ sale: { certification: REJECTED } }), 'fr', null)), [], 'no code');
});

t.test('a refund\'s credit note prints its own certification and the authority number of the invoice it corrects', async (t) => {
  const original = { original_authority_no: CERTIFIED.authority_no };
  const own = { ...CERTIFIED, authority_no: 'K2Q4-7TRE-MM3A-0PLD-ZZ9X-AV03', qr: 'F;IN01000005;K2Q47TREMM3A0PLDZZ9XAV03;9999900000001;20261122100012', signature: 'IN01000005 65/65 FA 22/11/2026 10:00:12', ...original };
  const { input, refund } = refunded(own);
  const html = visibleText(renderCreditNote(input, refund, 'a4', 'fr'));
  const pdf = await creditNotePdf(input, refund, 'fr', null);
  for (const [name, text] of [['HTML', html], ['PDF', pdfText(pdf).replace(/\s+/g, ' ')]] as const) {
    t.ok(text.includes('N° de certification : K2Q4-7TRE-MM3A-0PLD-ZZ9X-AV03'), `${name}: its own number`);
    t.ok(text.includes('Facture d\'origine : X537-E4DB-AJUU-HHXN-FWIS-FEKJ'), `${name}: the invoice's`);
    t.ok(text.includes('Facture d\'origine : Facture n° 1042 du 21/11/2026 14:05'), `${name}: the invoice's own number, as before`);
    t.ok(text.includes('IN01000005 65/65 FA 22/11/2026 10:00:12'), `${name}: its signature`);
  }
  t.same(pdfQrSymbols(pdf).map(decodeQr), [own.qr], 'its own QR code, not the invoice\'s');
  t.same(svgQrSymbols(renderCreditNote(input, refund, 'a4', 'fr')).map(decodeQr), [own.qr]);
  t.match(visibleText(renderCreditNote(input, refund, 'a4', 'en')), 'Original invoice: X537-E4DB-AJUU-HHXN-FWIS-FEKJ');

  const pending = refunded({ ...PENDING, ...original });
  t.same(creditNoteDocument(pending.input, pending.refund, 'fr').certification?.lines, ['En attente de certification', { label: 'Facture d\'origine', value: CERTIFIED.authority_no }], 'pending, it already names the original');
  const rejected = refunded(REJECTED);
  const rejectedText = pdfText(await creditNotePdf(rejected.input, rejected.refund, 'en', null));
  t.match(rejectedText, 'Credit note not certified', 'a rejected credit note is one, not an invoice');
  t.notMatch(rejectedText, 'Invoice not certified');
  const uncertified = refunded(null, null);
  t.notOk(CERTIFICATION_WORDS.some((word) => visibleText(renderCreditNote(uncertified.input, uncertified.refund, 'a4', 'fr')).includes(word)), 'nothing in a shop that does not certify');
  t.match(visibleText(renderInvoice(input, 'a4', 'fr')), 'N° de certification : X537-E4DB-AJUU-HHXN-FWIS-FEKJ', 'the invoice keeps its own certification');
  t.notMatch(visibleText(renderInvoice(input, 'a4', 'fr')), 'K2Q4', 'not the credit note\'s');
});

t.test('a voided sale\'s invoice prints its certified void: "Annulation certifiée : <no>"', async (t) => {
  const voidCertification: Certification = { ...CERTIFIED, authority_no: 'VD77-AAAA-BBBB-CCCC-DDDD-EEEE', original_authority_no: CERTIFIED.authority_no };
  const voided = (certification: Certification | null) =>
    certified({ status: 'voided', voided_at: '2026-11-21T14:00:00.000Z', void_reason: 'Erreur de caisse', void_certification: certification });
  const html = visibleText(renderInvoice(voided(voidCertification), 'a4', 'fr'));
  t.match(html, 'VENTE ANNULÉE - 21/11/2026 15:00 Motif : Erreur de caisse Annulation certifiée : VD77-AAAA-BBBB-CCCC-DDDD-EEEE', 'under the banner');
  t.match(html, 'N° de certification : X537-E4DB-AJUU-HHXN-FWIS-FEKJ', 'the sale\'s own certification stays');
  t.match(pdfText(await invoicePdf(voided(voidCertification), 'en', null)).replace(/\s+/g, ' '), 'Void certified: VD77-AAAA-BBBB-CCCC-DDDD-EEEE');
  t.ok(joined(escposLines(voided(voidCertification))).includes('Annulation certifiée : VD77-AAAA-BBBB-CCCC-DDDD-EEEE'), 'and on the receipt, under its mark');
  for (const certification of [null, { ...PENDING, original_authority_no: CERTIFIED.authority_no }, REJECTED]) {
    t.notMatch(visibleText(renderInvoice(voided(certification), 'a4', 'fr')), 'Annulation certifiée', `not while the void is ${certification?.status ?? 'not certified'}`);
  }
  t.notMatch(visibleText(renderInvoice(certified({ void_certification: voidCertification }), 'a4', 'fr')), 'Annulation certifiée', 'nor on a sale that is not voided');
});

t.test('a receipt reprinted once the sale is certified differs from the pending one exactly by the certification\'s lines', async (t) => {
  const before = printed(receiptInput({ sale: { certification: PENDING } }));
  const after = printed(receiptInput({ sale: { certification: CERTIFIED } }));
  t.same(difference(before, after), {
    removed: ['En attente de certification'],
    added: [
      'N° de certification :',
      'X537-E4DB-AJUU-HHXN-FWIS-FEKJ',
      'Date de certification :',
      '22/11/2026 00:30',
      'IN01000005 64/64 FV 22/11/2026',
      '00:30:08',
      'Vérification DGI',
      `[QR ${CERTIFIED.qr}]`,
      '',
      'Votre facture en ligne',
    ],
  });
  const text = difference(renderText(receiptInput({ sale: { certification: PENDING } }), 'fr').split('\n'), renderText(receiptInput({ sale: { certification: CERTIFIED } }), 'fr').split('\n'));
  t.same(text.removed.map((line) => line.trim()), ['En attente de certification'], 'the text receipt too');
  t.same(text.added.map((line) => line.trim()), ['N° de certification :', 'X537-E4DB-AJUU-HHXN-FWIS-FEKJ', 'Date de certification :', '22/11/2026 00:30', 'IN01000005 64/64 FV 22/11/2026', '00:30:08']);
});
