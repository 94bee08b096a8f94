import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { crc32, deflateSync } from 'node:zlib';
import t, { type Test } from 'tap';
import { renderPdf } from '../../api/lib/pdf.ts';
import { cameroonVatParts, formatDate } from '../../api/receipts/format.ts';
import { renderZEmailHtml, renderZEmailText, StoredZ, zEmailSubject, zPdfDefinition, type ZShop } from '../../api/reports/z-document.ts';
import { addStaff, createProduct, registerShop } from '../support/fixtures.ts';
import { mimeParts, startMailbox, startMailWorker } from '../support/mailbox.ts';
import { startService } from '../support/service.ts';
import { createCustomer, openShift, refundSale, sell, setShop, voidSale } from '../sales/sale-fixtures.ts';
import { backdate, seal, shopDay } from './report-fixtures.ts';

/**
 * The sealed Z as its owner receives it (report__email_z, api/reports/z-document.ts): the rules of
 * its wording on a stored Z alone, then the mail itself through a real graphile-worker and a real
 * SMTP server, its PDF read back with pdftotext (poppler-utils).
 */

const api = await startService(t);
const mailbox = await startMailbox(t);
await startMailWorker(t, api, mailbox);

const senderAddress = /<([^>]+)>/.exec(api.config.MAIL_FROM)![1];

const run = promisify(execFile);
const work = mkdtempSync(join(tmpdir(), 'z-email-'));
t.teardown(() => rmSync(work, { recursive: true, force: true }));

/** The text of a PDF, its layout kept (a label and its amount on one line). */
async function pdfText(pdf: Buffer): Promise<string> {
  const file = join(work, `${Math.random().toString(36).slice(2)}.pdf`);
  writeFileSync(file, pdf);
  return (await run('pdftotext', ['-layout', '-enc', 'UTF-8', file, '-'])).stdout;
}

/** The images a PDF draws, as `pdfimages -list` names them: `[width, height]` each. */
async function pdfImages(pdf: Buffer): Promise<[number, number][]> {
  const file = join(work, `${Math.random().toString(36).slice(2)}.pdf`);
  writeFileSync(file, pdf);
  const listed = (await run('pdfimages', ['-list', file])).stdout.split('\n').slice(2).filter((line) => line.trim());
  return listed.filter((line) => line.split(/\s+/).filter(Boolean)[2] === 'image').map((line) => {
    const [, , , width, height] = line.split(/\s+/).filter(Boolean);
    return [Number(width), Number(height)];
  });
}

/** A plain PNG of one colour, built byte by byte. */
function png(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const framed = Buffer.alloc(body.length + 8);
    framed.writeUInt32BE(data.length, 0);
    body.copy(framed, 4);
    framed.writeUInt32BE(crc32(body), body.length + 4);
    return framed;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bits per channel
  header[9] = 2; // RGB
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3, Buffer.from([200, 30, 30]))]);
  const pixels = deflateSync(Buffer.concat(Array.from({ length: height }, () => row)));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', pixels), chunk('IEND', Buffer.alloc(0))]);
}

/** An attachment's bytes, from the raw message (mimeParts decodes bodies as text). */
function attachment(raw: string, filename: string): Buffer {
  const named = raw.indexOf(`filename=${filename}`);
  if (named < 0) throw new Error(`no attachment ${filename}`);
  const body = /\r?\n\r?\n/g;
  body.lastIndex = named;
  const start = body.exec(raw)!.index;
  return Buffer.from(raw.slice(start, raw.indexOf('--', start)).replace(/\s+/g, ''), 'base64');
}

// The rules of the wording, on a stored Z alone.

const SHOP: ZShop = {
  name: 'Quincaillerie Ébène',
  address: 'Rue Joss',
  city: 'Douala',
  phone: '+237 699 00 00 00',
  tax_id: 'M051812345678P',
  trade_register_no: 'RC/DLA/2019/B/1234',
  payment_method_labels: { carrier2_money: 'Orange Money Pro' },
};

const STORED = {
  date: '2026-11-21',
  timezone: 'Africa/Douala',
  sealed: true,
  z_no: 12,
  sealed_at: '2026-11-21T23:10:00.000Z',
  first_receipt_no: 1040,
  last_receipt_no: 1043,
  sales: { count: 4, total_xaf: 937_900, vat_xaf: 151_378, gross_xaf: 937_900, discounts_xaf: 0 },
  late_sales: { count: 0, total_xaf: 0 },
  voids: { count: 1, total_xaf: 5_000, vat_xaf: 807 },
  refunds: { count: 0, total_xaf: 0, vat_xaf: 0 },
  net_total_xaf: 932_900,
  vat_xaf: 150_571,
  net_xaf: 782_329,
  vat_per_rate: [
    { rate: 0, base_xaf: 10_000, vat_xaf: 0, total_xaf: 10_000 },
    { rate: 19.25, base_xaf: 772_329, vat_xaf: 150_571, total_xaf: 922_900 },
  ],
  payments: [{ method: 'carrier2_money', amount_xaf: 400_000 }, { method: 'cash', amount_xaf: 437_900 }, { method: 'credit', amount_xaf: 95_000 }],
  settlements: [{ method: 'carrier1_momo', amount_xaf: 25_000 }],
  cash_movements: { count: 0, in_xaf: 0, out_xaf: 0 },
  expenses: { count: 1, total_xaf: 1_500, per_method: { cash: 1_500 } },
  cashiers: [
    { user_id: 'bd4ff92b-52e9-4a8d-a6cd-c248e0551b2b', name: 'Awa Ndiaye', sales_count: 3, total_xaf: 900_000 },
    { user_id: null, name: null, sales_count: 1, total_xaf: 37_900 },
  ],
  grand_total_xaf: 12_345_600,
};
const stored = (overrides: Record<string, unknown> = {}) => StoredZ.parse({ ...STORED, ...overrides });

t.test('a count never runs into its amount: "4 ventes" and "937 900 FCFA" sit in cells of their own', async (t) => {
  const html = renderZEmailHtml(stored(), SHOP, 'fr', null);
  t.match(html, /<td[^>]*>4 ventes<\/td><td[^>]*>937 900 FCFA<\/td>/);
  t.match(html, /<td[^>]*>1 annulation<\/td><td[^>]*>-5 000 FCFA<\/td>/, 'a void is taken off, so printed negative');
  t.match(renderZEmailText(stored(), SHOP, 'fr'), /^4 ventes : 937 900 FCFA$/m);
  t.match(renderZEmailText(stored(), SHOP, 'en'), /^4 sales: 937,900 FCFA$/m);
  t.notMatch(html + renderZEmailText(stored(), SHOP, 'fr'), /\d, \d/, 'no count followed by a comma and a number');
});

t.test('counts agree with their noun: 0 and 1 take the singular in French, only 1 in English', async (t) => {
  const z = stored({ refunds: { count: 0, total_xaf: 0 }, expenses: { count: 2, total_xaf: 3_000 } });
  const fr = renderZEmailText(z, SHOP, 'fr');
  t.match(fr, /^0 remboursement : 0 FCFA$/m);
  t.match(fr, /^1 annulation : -5 000 FCFA$/m);
  t.match(fr, /^2 dépenses : 3 000 FCFA$/m);
  const en = renderZEmailText(z, SHOP, 'en');
  t.match(en, /^0 refunds: 0 FCFA$/m);
  t.match(en, /^1 void: -5,000 FCFA$/m);
});

t.test('the subject and the heading give the day as dd/mm/yyyy, in the shop\'s language', async (t) => {
  t.equal(zEmailSubject(SHOP, stored(), 'fr'), 'Quincaillerie Ébène : Z n° 12 du 21/11/2026');
  t.equal(zEmailSubject(SHOP, stored(), 'en'), 'Quincaillerie Ébène: Z no. 12 of 21/11/2026');
  t.match(renderZEmailHtml(stored(), SHOP, 'fr', null), '<h1 style="margin:16px 0 4px;font-size:18px;line-height:1.3;font-weight:bold;">Z n° 12 du 21/11/2026</h1>');
  t.match(renderZEmailText(stored(), SHOP, 'fr'), /^Scellé le 22\/11\/2026 00:10$/m, 'sealed at, in the shop\'s time zone');
});

t.test('money taken in is per method under the shop\'s names, settlements included; credit sales stand apart', async (t) => {
  const text = renderZEmailText(stored(), SHOP, 'fr');
  t.match(text, /^Espèces : 437 900 FCFA$/m);
  t.match(text, /^Orange Money Pro : 400 000 FCFA$/m, 'the shop\'s own name');
  t.match(text, /^MTN MoMo : 25 000 FCFA$/m, 'a settlement of a customer account is money taken in');
  t.match(text, /^Total encaissé : 862 900 FCFA$/m);
  t.match(text, /^ {2}dont règlements des comptes clients : 25 000 FCFA$/m);
  t.match(text, /^Vendu à crédit sur les comptes clients \(non encaissé\) : 95 000 FCFA$/m);
  t.notMatch(text, /^Compte client/m, 'credit is no method of money taken in');
});

t.test('the VAT at 19.25 % splits into VAT 17.5 % and CAC, which sum to it; exempt sales are named so', async (t) => {
  for (const vat of [150_571, 1, 5, 6, 8_243, 999_999]) {
    const z = stored({ vat_xaf: vat, vat_per_rate: [{ rate: 19.25, base_xaf: 100, vat_xaf: vat, total_xaf: 100 + vat }] });
    const text = renderZEmailText(z, SHOP, 'fr');
    const amount = (pattern: RegExp) => Number(pattern.exec(text)![1]!.replace(/ /g, ''));
    const vatPart = amount(/^ {2}dont TVA 17,5 % : ([\d ]+) FCFA$/m);
    const cac = amount(/^ {2}dont CAC 10 % \(de la TVA\) : ([\d ]+) FCFA$/m);
    t.equal(vatPart + cac, amount(/^TVA 19,25 % : ([\d ]+) FCFA$/m), `${vat}`);
    t.strictSame({ vat_xaf: vatPart, cac_xaf: cac }, cameroonVatParts(vat));
  }
  const text = renderZEmailText(stored(), SHOP, 'en');
  t.match(text, /^ {2}of which VAT 17\.5%: 136,883 FCFA$/m);
  t.match(text, /^ {2}of which CAC 10% \(of the VAT\): 13,688 FCFA$/m);
  t.match(text, /^Sales exempt from VAT: 10,000 FCFA$/m);
  t.match(text, /^Total VAT: 150,571 FCFA$/m);
});

t.test('the first and last receipt numbers and each cashier\'s sales are shown', async (t) => {
  const text = renderZEmailText(stored(), SHOP, 'fr');
  t.match(text, /^Premier reçu : n° 1 040$/m);
  t.match(text, /^Dernier reçu : n° 1 043$/m);
  t.match(text, /^Awa Ndiaye \(3 ventes\) : 900 000 FCFA$/m);
  t.match(text, /^Caissier non identifié \(1 vente\) : 37 900 FCFA$/m, 'a sale without a known cashier is still counted');
  t.match(text, /^Grand total cumulé \(tous les Z\) : 12 345 600 FCFA$/m);
});

t.test('nothing reads like an API: a plain sentence points to the PDF', async (t) => {
  for (const locale of ['fr', 'en'] as const) {
    const all = renderZEmailText(stored(), SHOP, locale) + renderZEmailHtml(stored(), SHOP, locale, null);
    t.notMatch(all, /GET \/|\/reports|_xaf|z_no|null|undefined|NaN/, locale);
  }
  t.match(renderZEmailText(stored(), SHOP, 'fr'), 'Le Z complet est joint en PDF (z-12-2026-11-21.pdf).');
  t.match(renderZEmailText(stored(), SHOP, 'en'), 'The full Z is attached as a PDF (z-12-2026-11-21.pdf).');
});

t.test('the mail is laid out for a phone: one column at most 480 px, inline styles, amounts that never wrap', async (t) => {
  const html = renderZEmailHtml(stored(), SHOP, 'fr', null);
  t.match(html, '<meta name="viewport" content="width=device-width, initial-scale=1">');
  t.match(html, 'max-width:480px');
  t.notMatch(html, /<style|<link|src="http/, 'no style block, nothing fetched');
  t.match(html, /<td style="[^"]*white-space:nowrap;[^"]*">937 900 FCFA<\/td>/);
  t.notMatch(html, /<img/, 'no logo, no image');
});

t.test('an older stored Z lacking parts, or holding one in another shape, is still rendered without them', async (t) => {
  const old = StoredZ.parse({ date: '2025-01-31', z_no: 3, sales: { count: 2, total_xaf: 7_000 }, net_total_xaf: 7_000, cashiers: 'not a list', payments: [{ method: 'cash', amount_xaf: 7_000 }] });
  const text = renderZEmailText(old, SHOP, 'fr');
  t.match(text, /^Z n° 3 du 31\/01\/2025$/m);
  t.match(text, /^2 ventes : 7 000 FCFA$/m);
  t.match(text, /^Espèces : 7 000 FCFA$/m, 'money taken in without settlements');
  t.notMatch(text, /Scellé|Premier reçu|PAR CAISSIER|^TVA$|Grand total|annulation/m, 'the parts it lacks are left out');
  t.notMatch(text + renderZEmailHtml(old, SHOP, 'fr', null), /undefined|NaN|null/);
  const pdf = await pdfText(await renderPdf(zPdfDefinition(old, SHOP, 'fr', null)));
  t.match(pdf, /2 ventes\s+7 000 FCFA/);
});

t.test('the PDF holds the shop with its accents and identifiers, the same figures as the mail, and page x / y', async (t) => {
  const text = await pdfText(await renderPdf(zPdfDefinition(stored(), SHOP, 'fr', null)));
  t.match(text, 'Quincaillerie Ébène');
  t.match(text, 'NIU M051812345678P');
  t.match(text, 'RCCM RC/DLA/2019/B/1234');
  t.match(text, 'Z n° 12 du 21/11/2026');
  t.match(text, /4 ventes\s+937 900 FCFA/);
  t.match(text, /Total net TTC\s+932 900 FCFA/);
  t.match(text, /dont CAC 10 % \(de la TVA\)\s+13 688 FCFA/);
  t.match(text, /Awa Ndiaye \(3 ventes\)\s+900 000 FCFA/);
  t.match(text, 'Page 1 / 1');
  t.notMatch(text, /joint|GET \//, 'the PDF speaks of itself, not of a mail');
});

t.test('a shop\'s logo heads the mail, scaled into 200 x 80 px and never enlarged, and the PDF', async (t) => {
  const logo = (width: number, height: number) => ({ media_type: 'image/png', width, height, content: png(width, height) });
  t.match(renderZEmailHtml(stored(), SHOP, 'fr', logo(600, 120)), '<img src="cid:logo" alt="" width="200" height="40"');
  t.match(renderZEmailHtml(stored(), SHOP, 'fr', logo(100, 200)), '<img src="cid:logo" alt="" width="40" height="80"');
  t.match(renderZEmailHtml(stored(), SHOP, 'fr', logo(60, 30)), '<img src="cid:logo" alt="" width="60" height="30"');
  t.strictSame(await pdfImages(await renderPdf(zPdfDefinition(stored(), SHOP, 'fr', logo(60, 30)))), [[60, 30]]);
});

// The mail itself, sealed and sent for real.

/** A day of a hardware shop: two cashiers, a credit sale, a void, a refund, a settlement, an expense; sealed and mailed. */
async function sealedDay(t: Test, locale: 'fr' | 'en', shopName: string) {
  const owner = await registerShop(api, { shop_name: shopName });
  await setShop(api, owner, { locale, email: 'contact@ebene.cm', payment_method_labels: { carrier2_money: 'Orange Money Pro' } });
  const cashier = await addStaff(api, owner, 'cashier');
  const cement = await createProduct(api, owner.token, { name: 'Ciment 50 kg', price_xaf: 5_000, vat_rate: 19.25 }, 1_000);
  const sand = await createProduct(api, owner.token, { name: 'Sable', price_xaf: 2_000, vat_rate: 0 }, 1_000);
  const customer = await createCustomer(api, owner.token, { credit_ceiling_xaf: 100_000 });
  await openShift(api, owner.token);
  const a = await sell(api, owner.token, { items: [{ product_id: cement.id, quantity: 2 }, { product_id: sand.id, quantity: 1 }], payments: [{ method: 'cash', amount_xaf: 15_000 }] });
  await sell(api, cashier.token, { items: [{ product_id: cement.id, quantity: 1 }], payments: [{ method: 'carrier2_money', amount_xaf: 5_000, reference: 'OM1' }] });
  await sell(api, cashier.token, { customer_id: customer.id, items: [{ product_id: cement.id, quantity: 3 }], payments: [{ method: 'credit', amount_xaf: 10_000 }, { method: 'cash', amount_xaf: 5_000 }] });
  const d = await sell(api, owner.token, { items: [{ product_id: cement.id, quantity: 1 }], payments: [{ method: 'cash', amount_xaf: 5_000 }] });
  t.equal((await voidSale(api, owner.token, d.id)).status, 200);
  t.equal((await refundSale(api, owner.token, a.id, { method: 'cash', items: [{ sale_item_id: a.items[0].id, quantity: 1 }] })).status, 201);
  t.equal((await api.request('POST', `/customers/${customer.id}/payments`, { token: owner.token, body: { amount_xaf: 4_000, method: 'carrier1_momo' } })).status, 201);
  t.equal((await api.request('POST', '/expenses', { token: owner.token, body: { category: 'transport', amount_xaf: 1_500, payment_method: 'cash' } })).status, 201);
  await backdate(api, owner.shop.id, 1);
  await seal(api);
  const day = await shopDay(api, owner.shop.id, -1);
  const z = (await api.request('GET', `/reports/z?date=${day}`, { token: owner.token })).body.data;
  const mail = await mailbox.next(owner.email);
  return { owner, a, d, day, z, mail, ...mimeParts(mail.raw) };
}

t.test('the sealed Z mail: the shop\'s name as sender, its e-mail to answer, the day\'s figures at a glance and the Z as a PDF', async (t) => {
  const { a, d, day, z, mail, headers, parts } = await sealedDay(t, 'fr', 'Quincaillerie Ébène');
  t.equal(mail.subject, `Quincaillerie Ébène : Z n° 1 du ${formatDate(day)}`);
  t.equal(headers.get('from'), `Quincaillerie Ébène <${senderAddress}>`);
  t.equal(headers.get('reply-to'), 'contact@ebene.cm');
  t.strictSame(parts.map((part) => part.headers.get('content-type')!.split(';')[0]), ['text/plain', 'text/html', 'application/pdf']);

  const text = mail.text;
  t.match(text, new RegExp(`^Premier reçu : n° ${a.receipt_no}$`, 'm'));
  t.match(text, new RegExp(`^Dernier reçu : n° ${d.receipt_no}$`, 'm'));
  t.match(text, /^4 ventes : 37 000 FCFA$/m);
  t.match(text, /^1 annulation : -5 000 FCFA$/m);
  t.match(text, /^1 remboursement : -5 000 FCFA$/m);
  t.match(text, /^Total net TTC : 27 000 FCFA$/m);
  t.match(text, /^Espèces : 12 000 FCFA$/m, 'paid less change, the void and the refund');
  t.match(text, /^MTN MoMo : 4 000 FCFA$/m, 'the settlement');
  t.match(text, /^Orange Money Pro : 5 000 FCFA$/m, 'the shop\'s name of the method');
  t.match(text, /^Total encaissé : 21 000 FCFA$/m);
  t.match(text, /^Vendu à crédit sur les comptes clients \(non encaissé\) : 10 000 FCFA$/m);
  const rate = z.vat_per_rate.find((row: any) => row.rate === 19.25);
  const parts1925 = cameroonVatParts(rate.vat_xaf);
  t.equal(parts1925.vat_xaf + parts1925.cac_xaf, rate.vat_xaf);
  const xaf = (amount: number) => `${String(amount).replace(/\B(?=(\d{3})+(?!\d))/g, ' ')} FCFA`;
  t.match(text, `TVA 19,25 % : ${xaf(rate.vat_xaf)}\n  dont TVA 17,5 % : ${xaf(parts1925.vat_xaf)}\n  dont CAC 10 % (de la TVA) : ${xaf(parts1925.cac_xaf)}`);
  t.match(text, /^Ventes exonérées de TVA : 2 000 FCFA$/m);
  t.match(text, /^Awa Ndiaye \(2 ventes\) : 17 000 FCFA$/m);
  t.match(text, /^A cashier \(2 ventes\) : 20 000 FCFA$/m);
  t.match(text, /^1 dépense : 1 500 FCFA$/m);
  t.notMatch(text, /GET \//);
  t.notMatch(parts[1]!.body, /GET \//);
  t.match(parts[1]!.body, /<td[^>]*>4 ventes<\/td><td[^>]*>37 000 FCFA<\/td>/);

  const fileName = `z-1-${day}.pdf`;
  t.match(parts[2]!.headers.get('content-disposition'), `attachment; filename=${fileName}`);
  const pdf = attachment(mail.raw, fileName);
  t.equal(pdf.subarray(0, 5).toString('latin1'), '%PDF-');
  const printed = await pdfText(pdf);
  t.match(printed, 'Quincaillerie Ébène');
  t.match(printed, `Z n° 1 du ${formatDate(day)}`);
  t.match(printed, /4 ventes\s+37 000 FCFA/);
  t.match(printed, /Total net TTC\s+27 000 FCFA/);
  t.match(printed, /Vendu à crédit sur les comptes clients \(non encaissé\)\s+10 000 FCFA/);
  t.match(printed, /Grand total cumulé \(tous les Z\)\s+27 000 FCFA/);
  t.match(printed, 'Page 1 / 1');
});

t.test('an English shop gets its Z in English, mail and PDF', async (t) => {
  const { day, mail, parts } = await sealedDay(t, 'en', 'Ébène Hardware');
  t.equal(mail.subject, `Ébène Hardware: Z no. 1 of ${formatDate(day)}`);
  t.match(mail.text, /^4 sales: 37,000 FCFA$/m);
  t.match(mail.text, /^Money taken in$/im);
  t.match(mail.text, /^Sold on credit to customer accounts \(not taken in\): 10,000 FCFA$/m);
  t.match(mail.text, /^Awa Ndiaye \(2 sales\): 17,000 FCFA$/m);
  t.match(mail.text, 'The full Z is attached as a PDF');
  t.notMatch(mail.text, /ventes|Encaissements|Espèces/);
  t.match(parts[1]!.body, '<html lang="en">');
  const printed = await pdfText(attachment(mail.raw, `z-1-${day}.pdf`));
  t.match(printed, /Net total incl\. VAT\s+27,000 FCFA/);
  t.match(printed, 'Page 1 / 1');
});

t.test('a shop with a logo: the mail shows it from an inline part named by its cid, and the PDF draws it', async (t) => {
  const owner = await registerShop(api, { shop_name: 'Quincaillerie Ébène' });
  const product = await createProduct(api, owner.token, { name: 'Ciment 50 kg', price_xaf: 5_000, vat_rate: 19.25 }, 10);
  const image = png(120, 48);
  await api.ownerSql`
    insert into shop_logos (shop_id, media_type, content, width, height, sha256)
    values (${owner.shop.id}, 'image/png', ${image}, 120, 48, encode(sha256(${image}::bytea), 'hex'))`;
  await sell(api, owner.token, { items: [{ product_id: product.id, quantity: 1 }], payments: [{ method: 'cash', amount_xaf: 5_000 }] });
  await backdate(api, owner.shop.id, 1);
  await seal(api);
  const day = await shopDay(api, owner.shop.id, -1);
  const mail = await mailbox.next(owner.email);
  const { headers, parts } = mimeParts(mail.raw);
  t.equal(headers.get('reply-to'), undefined, 'a shop without an e-mail is not answered at a guess');
  const inline = parts.find((part) => part.headers.get('content-type')?.startsWith('image/png'));
  t.ok(inline, 'the logo is a part of the mail');
  t.equal(inline?.headers.get('content-id'), '<logo>');
  t.match(parts.find((part) => part.headers.get('content-type')?.startsWith('text/html'))!.body, '<img src="cid:logo" alt="" width="120" height="48"');
  t.strictSame(await pdfImages(attachment(mail.raw, `z-1-${day}.pdf`)), [[120, 48]]);
});
