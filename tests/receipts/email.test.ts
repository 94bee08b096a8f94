import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { EMAIL_MAX_WIDTH_PX, LOGO_CID, receiptEmail, renderReceiptEmail } from '../../api/receipts/email.ts';
import { escapeHtml, renderInvoice } from '../../api/receipts/invoice.ts';
import { invoicePdf } from '../../api/receipts/pdf.ts';
import { renderText } from '../../api/receipts/text.ts';
import type { ShopLogoImage } from '../../api/shop/queries.ts';
import { createMailer } from '../../worker/mailer.ts';
import { mimeParts } from '../support/mailbox.ts';
import { png } from '../shop/image-files.ts';
import { attachmentBytes, pdfImages, pdfText } from './pdf-reader.ts';
import { CUSTOMER, item, LONG_NAME, payment, receiptInput, SALE_ID, visibleText } from './receipt-fixtures.ts';

/** The receipt e-mail (api/receipts/email.ts) read as a phone shows it. */

const PHONE_WIDTH = 390;

/** A credit sale paid by MTN MoMo then cash, the rest on the customer's account, in a shop that names its operators. */
function creditSale() {
  const input = receiptInput({
    customer: CUSTOMER,
    shop: { trade_register_no: 'RC/DLA/2024/B/1234', payment_method_labels: { carrier1_momo: 'MoMo Pro', carrier2_money: 'Orange Money Cameroun' } },
    sale: { paid_xaf: 15000, change_xaf: 0, credit_xaf: 2250 },
  });
  input.sale.payments = [payment('carrier1_momo', 10000, { reference: 'MP-77' }), payment('cash', 5000), payment('credit', 2250)];
  return input;
}

/** Every `style="..."` declaration of a page, as [property, value] pairs. */
const declarations = (html: string) =>
  [...html.matchAll(/style="([^"]*)"/g)].flatMap((match) =>
    match[1]!.split(';').filter((d) => d.trim()).map((d) => d.split(':').map((part) => part.trim()) as [string, string]),
  );

const pixels = (value: string) => (/^(\d+(?:\.\d+)?)px$/.exec(value) ? Number(/^(\d+(?:\.\d+)?)/.exec(value)![1]) : null);

t.test('the receipt e-mail declares the phone viewport and is titled a receipt, as its subject is', async (t) => {
  for (const locale of ['fr', 'en'] as const) {
    const mail = await receiptEmail(receiptInput(), locale);
    t.ok(mail.html.startsWith(`<!DOCTYPE html>\n<html lang="${locale}">`));
    t.match(mail.html, '<meta name="viewport" content="width=device-width, initial-scale=1">');
    t.match(mail.html, '<meta charset="utf-8">');
    t.equal(mail.subject, locale === 'fr' ? 'Reçu n° 1042 - Boutique Awa' : 'Receipt no. 1042 - Boutique Awa');
    t.match(mail.html, `<title>${escapeHtml(mail.subject)}</title>`);
    t.match(mail.html, new RegExp(`<h1[^>]*>${locale === 'fr' ? 'Reçu n° 1042' : 'Receipt no. 1042'}</h1>`));
    t.notOk(/facture|invoice/i.test(visibleText(mail.html).replace(/(facture|invoice)-1042\.pdf|La facture est jointe|The invoice is attached/gi, '')), 'not headed an invoice');
  }
});

t.test('the receipt e-mail is one column: no fixed width over 480 px, no min-width beyond a phone, no table of more than two columns', async (t) => {
  const input = creditSale();
  input.sale.items.push(item({ name: LONG_NAME, quantity: 1234.567, unit_price_xaf: 1_000_000 }));
  for (const locale of ['fr', 'en'] as const) {
    const html = renderReceiptEmail(input, locale);
    const widths = declarations(html).filter(([property]) => property === 'width' || property === 'max-width');
    t.strictSame(widths.filter(([, value]) => value !== '100%' && (pixels(value) ?? Infinity) > EMAIL_MAX_WIDTH_PX), [], 'widths are fluid or at most 480px');
    t.ok(widths.some(([property, value]) => property === 'max-width' && value === `${EMAIL_MAX_WIDTH_PX}px`), 'the column stops at 480px');
    t.ok(widths.some(([property, value]) => property === 'width' && value === '100%'), 'and is fluid below it');
    t.strictSame(declarations(html).filter(([property, value]) => property === 'min-width' && (pixels(value) ?? Infinity) > PHONE_WIDTH), [], 'no min-width');
    t.strictSame([...html.matchAll(/\swidth="([^"]*)"/g)].map((m) => m[1]).filter((value) => value !== '100%'), [], 'width attributes are 100%');
    t.notOk(/\b(mm|cm|in|pt)\b/.test(declarations(html).map(([, value]) => value).join(' ')), 'no print units');
    const rows = [...html.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((m) => m[1]!);
    t.ok(rows.length > 0);
    const columns = (row: string) => [...row.matchAll(/<t[dh]\b([^>]*)>/g)].reduce((n, cell) => n + Number(/colspan="(\d+)"/.exec(cell[1]!)?.[1] ?? 1), 0);
    t.strictSame(rows.filter((row) => columns(row) > 2), [], 'a label and its amount, nothing wider');
    t.notOk(/<th\b|<thead/.test(html), 'no header row of columns');
    t.notOk(/Prix unitaire|Unit price|Taux TVA|VAT rate/.test(html), 'none of the A4 invoice\'s column headings');
  }
});

t.test('the receipt e-mail\'s styles are inline and its type readable on a phone', async (t) => {
  const html = renderReceiptEmail(creditSale(), 'fr');
  t.notOk(/<style|<link|<script|<img|\bclass=|url\(|@import/i.test(html), 'no style block, class, script, image or fetched resource');
  t.notOk(/\shref=|\ssrc=/i.test(html), 'no link');
  const sizes = declarations(html).filter(([property]) => property === 'font-size').map(([, value]) => pixels(value));
  t.ok(sizes.length > 0);
  t.strictSame(sizes.filter((size) => size === null || size < 12), [], 'every font size in px, none under 12px');
  t.match(html, /font-size:16px/, 'the body text is 16px');
  t.match(html, /text-align:right;white-space:nowrap/, 'amounts stay whole at the line\'s end');
});

t.test('the receipt e-mail shows the shop, the receipt, its lines, totals, VAT, payments in the order taken with the shop\'s names, the balance due, points and footer', async (t) => {
  const input = creditSale();
  const text = visibleText(renderReceiptEmail(input, 'fr')).replace(/\s+/g, ' ');
  const expected = [
    'Boutique Awa',
    'Rue de la Joie, Douala',
    'Tél. +237 699 00 00 00',
    'NIU M012345678901X',
    'RCCM RC/DLA/2024/B/1234',
    'Ouvert 7j/7',
    'Reçu n° 1042',
    'Date : 21/11/2026 14:05',
    'Caissier : Awa Ndiaye',
    'Client : Jean Mbarga',
    'Café moulu 250 g 2 x 2 500 FCFA 5 000 FCFA Remise -500 FCFA',
    'Riz parfumé 5 kg 1 x 12 500 FCFA 12 500 FCFA Promotion -1 250 FCFA',
    'Tomates 1,5 x 1 000 FCFA 1 500 FCFA',
    'Sous-total 19 000 FCFA',
    'TOTAL 17 250 FCFA',
    'TVA Exonéré 0 FCFA Base HT 1 500 FCFA',
    'TVA 19,25 % 2 542 FCFA Base HT 13 208 FCFA',
    'Paiements MoMo Pro 10 000 FCFA Réf. MP-77 Espèces 5 000 FCFA Reste dû (compte client) 2 250 FCFA',
    'Points gagnés 17',
    'La facture est jointe à ce message. (facture-1042.pdf)',
    'Merci de votre visite !',
  ];
  let from = 0;
  for (const part of expected) {
    const at = text.indexOf(part, from);
    t.ok(at >= 0, `"${part}" after what comes before it`);
    if (at >= 0) from = at + part.length;
  }
  t.equal(text.split('2 250 FCFA').length - 1, 1, 'the part left on the account prints once');
  t.notOk(text.includes('Compte client 2 250'), 'not as a payment');
  t.notOk(/Mobile money/i.test(text));
  t.notOk(text.includes(SALE_ID), 'no sale id: a customer reads the receipt number');
});

t.test('the English receipt e-mail uses the English words and numbers', async (t) => {
  const text = visibleText(renderReceiptEmail(creditSale(), 'en')).replace(/\s+/g, ' ');
  for (const part of ['Receipt no. 1042', 'Date: 21/11/2026 14:05', '1.5 x 1,000 FCFA', 'TOTAL 17,250 FCFA', 'VAT 19.25% 2,542 FCFA', 'Cash 5,000 FCFA', 'Balance due (customer account) 2,250 FCFA', 'The invoice is attached to this message. (invoice-1042.pdf)']) {
    t.ok(text.includes(part), part);
  }
});

t.test('a voided sale\'s receipt e-mail says so and shows no points and no balance due, as its invoice', async (t) => {
  const input = receiptInput({ sale: { status: 'voided', voided_at: '2026-11-21T14:00:00.000Z', void_reason: 'Erreur de caisse', points_earned: 17, points_redeemed: 5, credit_xaf: 2000 } });
  const text = visibleText(renderReceiptEmail(input, 'fr')).replace(/\s+/g, ' ');
  t.ok(text.includes('VENTE ANNULÉE - 21/11/2026 15:00'));
  t.ok(text.includes('Motif : Erreur de caisse'));
  t.notOk(text.includes('Points gagnés'));
  t.notOk(text.includes('Points utilisés'));
  t.notOk(text.includes('Reste dû'));
});

t.test('every text from the shop, the customer or the sale is escaped in the receipt e-mail', async (t) => {
  const input = receiptInput({ shop: { name: 'Boutique <script>alert(1)</script>', receipt_footer: '"><img src=x onerror=alert(2)>' }, customer: { ...CUSTOMER, name: '<b>Jean</b>' } });
  input.sale.items[0]!.name = '<iframe src="https://evil.example">';
  const html = renderReceiptEmail(input, 'fr');
  t.notOk(/<script|<img|<iframe|<b>/i.test(html));
  t.match(html, '&lt;script&gt;alert(1)&lt;/script&gt;');
  t.match(html, '&lt;iframe src=&quot;https://evil.example&quot;&gt;');
});

t.test('the e-mail carries the chat-style text receipt as its text part and the A4 invoice as a PDF attachment', async (t) => {
  const input = creditSale();
  for (const locale of ['fr', 'en'] as const) {
    const mail = await receiptEmail(input, locale);
    t.equal(mail.text, renderText(input, locale, 'chat'));
    t.equal(mail.attachments.length, 1, 'the invoice alone: no logo, no inline part');
    const [invoice] = mail.attachments;
    t.equal(invoice!.filename, `${locale === 'fr' ? 'facture' : 'invoice'}-1042.pdf`);
    t.equal(invoice!.contentType, 'application/pdf');
    t.strictSame(pdfText(invoice!.content as Buffer), pdfText(await invoicePdf(input, locale, null)), 'the invoice\'s PDF');
    t.ok(pdfText(invoice!.content as Buffer).includes(locale === 'fr' ? 'Facture n° 1042' : 'Invoice no. 1042'));
  }
});

t.test('with the shop\'s logo, the e-mail shows it from an inline part named by its content id, and the invoice prints it too', async (t) => {
  const logo: ShopLogoImage = { media_type: 'image/png', width: 200, height: 60, content: png({ width: 200, height: 60 }) };
  const mail = await receiptEmail(receiptInput(), 'fr', logo);
  t.match(mail.html, `src="cid:${LOGO_CID}"`);
  t.strictSame(mail.attachments.slice(1), [{ filename: 'logo.png', content: logo.content, contentType: 'image/png', cid: LOGO_CID }]);
  t.equal(pdfImages(mail.attachments[0]!.content as Buffer).length, 1, 'the logo in the invoice');
  t.notMatch((await receiptEmail(receiptInput(), 'fr')).html, 'cid:', 'no logo, no image');
});

t.test('the shop\'s name is the sender\'s display name at the service\'s address, its e-mail the Reply-To, and neither can add a header', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'receipt-mail-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const mailer = createMailer({ from: 'Point de vente <no-reply@pos.example>', dataDir });
  const mail = await receiptEmail(receiptInput(), 'fr');
  await mailer.send({ ...mail, to: 'jean@example.cm', fromName: 'Boutique "Awa"\r\nBcc: spy@evil.example', replyTo: 'contact@boutique-awa.cm\r\nBcc: spy2@evil.example, other@evil.example', key: 'receipt-test.1' });
  await mailer.send({ to: 'jean@example.cm', subject: 'Plain', text: 'x', html: '<p>x</p>', key: 'receipt-test.2' });
  const [first, second] = readdirSync(path.join(dataDir, 'outbox')).sort().map((file) => mimeParts(readFileSync(path.join(dataDir, 'outbox', file), 'utf8')));
  t.notOk(first!.headers.has('bcc'), 'no Bcc header: the line break stays inside the encoded name');
  t.match(first!.headers.get('from'), /^Boutique "Awa"\r\nBcc: spy@evil\.example <no-reply@pos\.example>$/, 'the shop\'s name (decoded) at the service\'s address');
  t.equal(first!.headers.get('reply-to')?.split('<').length, 2, 'one Reply-To address');
  t.strictSame(first!.parts.map((part) => part.headers.get('content-type')!.split(';')[0]), ['text/plain', 'text/html', 'application/pdf']);
  const attachment = first!.parts[2]!;
  t.match(attachment.headers.get('content-disposition'), /^attachment; filename=facture-1042\.pdf/);
  t.ok(attachmentBytes(readFileSync(path.join(dataDir, 'outbox', 'receipt-test.1.eml'), 'utf8'), 'facture-1042.pdf').equals(mail.attachments[0]!.content as Buffer), 'the PDF\'s very bytes');
  t.equal(first!.parts[1]!.body.trimEnd(), mail.html.trimEnd());
  t.equal(second!.headers.get('from'), 'Point de vente <no-reply@pos.example>', 'other mails keep the service\'s sender');
  t.notOk(second!.headers.has('reply-to'));

  await mailer.send({ ...mail, to: 'jean@example.cm', fromName: 'Boutique Awa', replyTo: 'contact@boutique-awa.cm', key: 'receipt-test.3' });
  const third = mimeParts(readFileSync(path.join(dataDir, 'outbox', 'receipt-test.3.eml'), 'utf8'));
  t.equal(third.headers.get('from'), 'Boutique Awa <no-reply@pos.example>');
  t.equal(third.headers.get('reply-to'), 'contact@boutique-awa.cm');
});

// ---------------------------------------------------------------------------------------------
// In a real browser: the page laid out in a 390 px wide viewport (an iframe that wide, since a headless
// Chromium window is at least 500 px wide), its document's scrollWidth printed into the DOM.

function chromium(): string | null {
  for (const binary of ['chromium', 'chromium-browser']) {
    try {
      execFileSync(binary, ['--version'], { stdio: 'ignore', timeout: 20_000 });
      return binary;
    } catch {
      // not this one
    }
  }
  return null;
}

/** The scrollWidth of `html` laid out PHONE_WIDTH px wide, in headless Chromium. */
function scrollWidthAtPhoneWidth(binary: string, html: string, dir: string): number {
  const file = path.join(dir, `page-${Math.random().toString(36).slice(2)}.html`);
  writeFileSync(
    file,
    `<!DOCTYPE html><html><body style="margin:0"><iframe id="phone" style="width:${PHONE_WIDTH}px;height:6000px;border:0" srcdoc="${escapeHtml(html)}"></iframe>
<script>document.getElementById('phone').addEventListener('load', () => {
  const out = document.createElement('output');
  out.id = 'scroll-width';
  out.textContent = String(document.getElementById('phone').contentDocument.documentElement.scrollWidth);
  document.body.appendChild(out);
});</script></body></html>`,
  );
  const dom = execFileSync(
    binary,
    ['--headless', '--no-sandbox', '--disable-gpu', '--window-size=800,1000', '--run-all-compositor-stages-before-draw', '--virtual-time-budget=2000', '--dump-dom', `file://${file}`],
    { stdio: ['ignore', 'pipe', 'ignore'], timeout: 60_000 },
  ).toString();
  const width = /<output id="scroll-width">(\d+)<\/output>/.exec(dom)?.[1];
  if (!width) throw new Error('no width measured');
  return Number(width);
}

const browser = chromium();
t.test('at 390 px wide in headless Chromium, the receipt e-mail never scrolls sideways', { skip: browser ? false : 'no chromium binary installed' }, async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'receipt-width-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const wide = scrollWidthAtPhoneWidth(browser!, '<!DOCTYPE html><html><body><div style="width:600px">x</div></body></html>', dir);
  t.ok(wide >= 600, `the measure sees an overflow (${wide}px)`);

  const input = creditSale();
  input.sale.items.push(
    item({ name: LONG_NAME, quantity: 1234.567, unit_price_xaf: 1_000_000 }),
    item({ name: 'X'.repeat(120), quantity: 1, unit_price_xaf: 999_999_999 }),
  );
  input.shop.receipt_footer = `Suivez-nous : ${'https://boutique-awa.example/'.repeat(4)}`;
  for (const locale of ['fr', 'en'] as const) {
    const width = scrollWidthAtPhoneWidth(browser!, renderReceiptEmail(input, locale), dir);
    t.ok(width <= PHONE_WIDTH, `${locale}: the receipt e-mail is ${width}px wide at ${PHONE_WIDTH}px`);
  }
  const before = scrollWidthAtPhoneWidth(browser!, renderInvoice(receiptInput(), 'a4', 'fr'), dir);
  const after = scrollWidthAtPhoneWidth(browser!, renderReceiptEmail(receiptInput(), 'fr'), dir);
  t.comment(`at ${PHONE_WIDTH}px: the A4 invoice as the mail's body is ${before}px wide, the receipt e-mail ${after}px`);
});
