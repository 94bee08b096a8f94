import t, { type Test } from 'tap';
import { attachmentBytes, pdfText } from './pdf-reader.ts';
import { createCustomer, openShift, sell, voidSale } from '../sales/sale-fixtures.ts';
import { createProduct, registerShop, uniqueEmail } from '../support/fixtures.ts';
import { mimeParts, startMailbox, startMailWorker } from '../support/mailbox.ts';
import { startService } from '../support/service.ts';
import { readEscPos, settleOnAccount, textLines, visibleText } from './receipt-fixtures.ts';

/**
 * CONTRACT section 12: "Balance due" on every document of a credit sale is the sale's debt now,
 * settlements included. Each document is read as the customer gets it: the invoice (A4, A3), the
 * ESC/POS bytes decoded (80 and 58 mm), the text receipt (fixed and chat), what a shared link opens
 * with no token (the phone page, the receipt page, the printable invoice, the text receipt in both
 * styles), and the receipt e-mail through a real SMTP server (its text part, its HTML part and the
 * invoice attached).
 */
const api = await startService(t);
const mailbox = await startMailbox(t);
await startMailWorker(t, api, mailbox);
const owner = await registerShop(api);

/** The tester's sale: 679 550 FCFA on the customer's account, 250 000 paid on account since. */
const SOLD_XAF = 679_550;
const SETTLED_XAF = 250_000;
const product = await createProduct(api, owner.token, { price_xaf: SOLD_XAF }, 100);

const customer = () => createCustomer(api, owner.token, { credit_ceiling_xaf: 10_000_000 });
const creditSale = (customerId: string) =>
  sell(api, owner.token, { customer_id: customerId, items: [{ product_id: product.id, quantity: 1 }], payments: [{ method: 'credit', amount_xaf: SOLD_XAF }] });

const settle = (customerId: string, amount: number) => settleOnAccount(api, owner.token, customerId, amount);

async function get(path: string): Promise<any> {
  const reply = await api.request('GET', path, { token: owner.token });
  if (reply.status !== 200) throw new Error(`GET ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body;
}

const escPosText = async (saleId: string, width: 58 | 80) =>
  textLines(readEscPos(Buffer.from((await get(`/sales/${saleId}/receipt?width=${width}`)).data.base64, 'base64')))
    .map((line) => line.text)
    .join('\n');

async function emailed(saleId: string): Promise<{ text: string; html: string; invoice: string }> {
  const address = uniqueEmail('balance');
  const reply = await api.request('POST', `/sales/${saleId}/receipt/email`, { token: owner.token, body: { email: address } });
  if (reply.status !== 202) throw new Error(`e-mail failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  const { raw } = await mailbox.next(address);
  const [text, html] = mimeParts(raw).parts;
  const invoice = attachmentBytes(raw, /filename=(facture-\d+\.pdf)/.exec(raw)![1]!);
  return { text: text!.body, html: html!.body, invoice: pdfText(invoice).replace(/\s+/g, ' ') };
}

/** Every document of the sale, as text; the shared pages only while the sale can be shared (not voided). */
async function documentsOf(saleId: string, { shared = true } = {}): Promise<Record<string, string>> {
  const documents: Record<string, string> = {
    'A4 invoice': visibleText(await get(`/sales/${saleId}/invoice`)),
    'A3 invoice': visibleText(await get(`/sales/${saleId}/invoice?format=a3`)),
    'ESC/POS receipt, 80 mm': await escPosText(saleId, 80),
    'ESC/POS receipt, 58 mm': await escPosText(saleId, 58),
    'text receipt, fixed': (await get(`/sales/${saleId}/receipt/text?style=fixed`)).data.text,
    'text receipt, chat': (await get(`/sales/${saleId}/receipt/text?style=chat`)).data.text,
  };
  if (shared) {
    const reply = await api.request('POST', `/sales/${saleId}/share`, { token: owner.token });
    if (reply.status !== 201) throw new Error(`share failed: ${reply.status}`);
    const { url, receipt_url, invoice_url } = reply.body.data as { url: string; receipt_url: string; invoice_url: string };
    const open = async (address: string) => (await api.raw('GET', new URL(address, url).pathname + new URL(address, url).search)).body;
    const token = new URL(url).pathname.split('/').pop()!;
    documents['shared page'] = visibleText(await open(url));
    documents['shared receipt page'] = visibleText(await open(receipt_url));
    documents['shared invoice'] = visibleText(await open(invoice_url));
    documents['shared text receipt, chat'] = (await open(`/api/v1/shared/${token}/receipt/text`)).data.text;
    documents['shared text receipt, fixed'] = (await open(`/api/v1/shared/${token}/receipt/text?style=fixed`)).data.text;
  }
  const mail = await emailed(saleId);
  documents['e-mail, text part'] = mail.text;
  documents['e-mail, HTML part'] = visibleText(mail.html);
  documents['e-mail, invoice attached (PDF)'] = mail.invoice;
  return documents;
}

const amountsAfter = (label: string, text: string) =>
  [...text.replace(/\s+/g, ' ').matchAll(new RegExp(`${label}\\s*:?\\s*(\\d[\\d ]*) FCFA`, 'g'))].map((match) => Number(match[1]!.replace(/ /g, '')));

/** Every amount a document prints as due: the balance line, the invoice's stamp (`Reste dû : ...`), the phone page's `Reste dû`. */
const DUE = 'Reste dû(?: \\(compte client\\))?';
const dueShown = (text: string) => [...new Set(amountsAfter(`(?:${DUE})`, text))];
const settledShown = (text: string) => [...new Set(amountsAfter('Réglé depuis sur le compte(?: client)?', text))];

function everyDocument(t: Test, documents: Record<string, string>, check: (t: Test, text: string, name: string) => void): void {
  for (const [name, text] of Object.entries(documents)) check(t, text, name);
}

t.test('every document of a credit sale shows the sale\'s debt now as its balance due, settlements included', async (t) => {
  const buyer = await customer();
  const sale = await creditSale(buyer.id);
  everyDocument(t, await documentsOf(sale.id), (t, text, name) => t.same(dueShown(text), [SOLD_XAF], `${name}: all of it due before any settlement`));

  await settle(buyer.id, SETTLED_XAF);
  const documents = await documentsOf(sale.id);
  t.equal(Object.keys(documents).length, 14, 'fourteen documents');
  everyDocument(t, documents, (t, text, name) => {
    t.same(dueShown(text), [SOLD_XAF - SETTLED_XAF], `${name}: 679 550 - 250 000 due`);
    t.same(settledShown(text), [SETTLED_XAF], `${name}: what was settled since`);
  });
});

t.test('a credit sale settled in full shows no balance due on any document, only what was settled', async (t) => {
  const buyer = await customer();
  const sale = await creditSale(buyer.id);
  await settle(buyer.id, SOLD_XAF);
  const documents = await documentsOf(sale.id);
  everyDocument(t, documents, (t, text, name) => {
    t.notMatch(text, new RegExp(DUE), `${name}: no balance due`);
    t.same(settledShown(text), [SOLD_XAF], `${name}: settled in full`);
  });
  t.match(documents['A4 invoice'], 'Payée', 'the invoice is stamped paid');
});

t.test('another customer\'s settlement does not change a sale\'s balance due', async (t) => {
  const [buyer, other] = [await customer(), await customer()];
  const sale = await creditSale(buyer.id);
  const otherSale = await creditSale(other.id);
  await settle(other.id, SETTLED_XAF);
  everyDocument(t, await documentsOf(sale.id), (t, text, name) => {
    t.same(dueShown(text), [SOLD_XAF], `${name}: still all due`);
    t.same(settledShown(text), [], `${name}: nothing settled`);
  });
  t.same(dueShown(visibleText(await get(`/sales/${otherSale.id}/invoice`))), [SOLD_XAF - SETTLED_XAF], 'the other customer\'s sale is the one settled');
});

t.test('a voided credit sale shows no balance due on any document', async (t) => {
  const buyer = await customer();
  const sale = await creditSale(buyer.id);
  await openShift(api, owner.token);
  t.equal((await voidSale(api, owner.token, sale.id)).status, 200);
  everyDocument(t, await documentsOf(sale.id, { shared: false }), (t, text, name) => {
    t.notMatch(text, new RegExp(DUE), `${name}: no balance due`);
    t.same(settledShown(text), [], `${name}: nothing settled`);
  });
  t.equal((await api.request('POST', `/sales/${sale.id}/share`, { token: owner.token })).status, 409, 'and it has no shared pages');
});
