import t from 'tap';
import { LOGO_CID } from '../../api/receipts/email.ts';
import { registerShop, uniqueEmail, waitFor } from '../support/fixtures.ts';
import { mimeParts, startMailbox, startMailWorker } from '../support/mailbox.ts';
import { startService } from '../support/service.ts';
import { createCustomer, receiptJobs, sell, setShop } from '../sales/sale-fixtures.ts';
import { png } from '../shop/image-files.ts';
import { attachmentBytes, pdfImages, pdfText } from './pdf-reader.ts';

/**
 * POST /sales/{id}/receipt/email and the receipt e-mailed at the sale, through a real graphile-worker
 * and a real SMTP server: what the customer receives, and that one receipt goes to one address once
 * a minute whoever asks (the sale itself, a request, two requests at once).
 */
const api = await startService(t);
const mailbox = await startMailbox(t);
await startMailWorker(t, api, mailbox);

const line = (unitPrice: number) => ({ name: 'Savon de Marseille', quantity: 2, unit_price_xaf: unitPrice, vat_rate: 19.25 });
const cash = (amount: number) => [{ method: 'cash', amount_xaf: amount }];
const emailReceipt = (token: string, saleId: string, body?: Record<string, unknown>) =>
  api.request('POST', `/sales/${saleId}/receipt/email`, { token, ...(body ? { body } : {}) });
const mailsTo = (address: string) => mailbox.received.filter((mail) => mail.to.includes(address.toLowerCase())).length;

/** Every queued receipt job has run (graphile-worker deletes a job once it succeeded). */
const allSent = (saleId: string) => waitFor(async () => (await receiptJobs(api, saleId)).length === 0, 'the receipt jobs to run');

async function shopWithCustomer(shopFields: Record<string, unknown> = {}) {
  const owner = await registerShop(api, { shop_name: 'Boutique Awa' });
  if (Object.keys(shopFields).length) await setShop(api, owner, shopFields);
  const email = uniqueEmail('client');
  const customer = await createCustomer(api, owner.token, { name: 'Jean Mbarga', email });
  return { owner, customer, email };
}

t.test('a sale to a customer with an e-mail mails the phone receipt from the shop\'s name, answered at the shop\'s e-mail, the invoice attached as a PDF', async (t) => {
  const { owner, customer, email } = await shopWithCustomer({ email: 'contact@boutique-awa.cm' });
  const sale = await sell(api, owner.token, { customer_id: customer.id, items: [line(2500)], payments: cash(5000) });
  const mail = await mailbox.next(email);
  const { headers, parts } = mimeParts(mail.raw);
  t.equal(mail.subject, `Reçu n° ${sale.receipt_no} - Boutique Awa`);
  t.equal(headers.get('from'), `Boutique Awa <${/<([^>]+)>/.exec(api.config.MAIL_FROM)![1]}>`, 'the shop\'s name at the service\'s address');
  t.equal(headers.get('reply-to'), 'contact@boutique-awa.cm');
  t.strictSame(parts.map((part) => part.headers.get('content-type')!.split(';')[0]), ['text/plain', 'text/html', 'application/pdf']);
  const [text, html, invoice] = parts;
  t.match(text!.body, `Reçu n° ${sale.receipt_no}`);
  t.match(text!.body, '*TOTAL : 5 000 FCFA*', 'the chat-style text receipt: amounts at line ends, no column padding');
  t.match(html!.body, '<meta name="viewport" content="width=device-width, initial-scale=1">');
  t.match(html!.body, 'max-width:480px');
  t.match(html!.body, `Reçu n° ${sale.receipt_no}</h1>`);
  t.notOk(/FACTURE/.test(html!.body), 'the body is the receipt, not the invoice');
  t.match(invoice!.headers.get('content-disposition'), new RegExp(`^attachment; filename=facture-${sale.receipt_no}\\.pdf`));
  const pdf = attachmentBytes(mail.raw, `facture-${sale.receipt_no}.pdf`);
  t.equal(pdf.subarray(0, 5).toString('latin1'), '%PDF-');
  const printed = pdfText(pdf);
  t.ok(printed.includes(`Facture n° ${sale.receipt_no}`) && printed.includes('Savon de Marseille') && printed.includes('5 000 FCFA'), 'the invoice, its line and its total');
  t.notOk(/cid:/.test(html!.body), 'a shop without a logo: no inline image');
});

t.test('a shop with a logo shows it in the e-mail from an inline part, and prints it on the attached invoice', async (t) => {
  const { owner, customer, email } = await shopWithCustomer();
  const logo = png({ width: 180, height: 60 });
  await api.ownerSql`insert into shop_logos (shop_id, media_type, content, width, height, sha256) values (${owner.shop.id}, 'image/png', ${logo}, 180, 60, 'test')`;
  const sale = await sell(api, owner.token, { customer_id: customer.id, items: [line(1000)], payments: cash(2000) });
  const mail = await mailbox.next(email);
  const { parts } = mimeParts(mail.raw);
  const html = parts.find((part) => part.headers.get('content-type')!.startsWith('text/html'))!;
  t.match(html.body, `src="cid:${LOGO_CID}"`);
  const image = parts.find((part) => part.headers.get('content-type')!.startsWith('image/png'));
  t.ok(image, 'the logo travels as a part of its own');
  t.equal(image?.headers.get('content-id'), `<${LOGO_CID}>`, 'named by the content id the HTML shows');
  t.match(image?.headers.get('content-disposition') ?? '', /^inline/, 'inline, not a file offered to the reader');
  t.equal(pdfImages(attachmentBytes(mail.raw, `facture-${sale.receipt_no}.pdf`)).length, 1, 'the invoice prints the logo');
});

t.test('a shop without an e-mail is answered at its owner\'s address', async (t) => {
  const { owner, customer, email } = await shopWithCustomer();
  await sell(api, owner.token, { customer_id: customer.id, items: [line(1000)], payments: cash(2000) });
  const { headers } = mimeParts((await mailbox.next(email)).raw);
  t.equal(headers.get('reply-to'), owner.email);
});

t.test('a receipt e-mailed at the sale is not sent again to the same address within a minute: the answer says it was already sent', async (t) => {
  const { owner, customer, email } = await shopWithCustomer();
  const sale = await sell(api, owner.token, { customer_id: customer.id, items: [line(1000)], payments: cash(2000) });
  await mailbox.next(email);
  await allSent(sale.id);

  const again = await emailReceipt(owner.token, sale.id);
  t.equal(again.status, 200);
  t.strictSame(Object.keys(again.body.data).sort(), ['already_sent', 'email', 'queued', 'sent_at']);
  t.match(again.body.data, { queued: false, already_sent: true, email });
  t.ok(Date.now() - Date.parse(again.body.data.sent_at) < 60_000, 'sent within the minute');
  const sameInCapitals = await emailReceipt(owner.token, sale.id, { email: email.toUpperCase() });
  t.equal(sameInCapitals.status, 200, 'the same address in capitals is the same mailbox');
  t.match(sameInCapitals.body.data, { queued: false, already_sent: true });
  t.equal((await receiptJobs(api, sale.id)).length, 0, 'nothing queued');
  await new Promise((resolve) => setTimeout(resolve, 1000));
  t.equal(mailsTo(email), 1, 'one mail');
});

t.test('a receipt is sent to another address at once, even within the minute', async (t) => {
  const { owner, customer, email } = await shopWithCustomer();
  const sale = await sell(api, owner.token, { customer_id: customer.id, items: [line(1000)], payments: cash(2000) });
  await mailbox.next(email);
  const other = uniqueEmail('comptable');
  const reply = await emailReceipt(owner.token, sale.id, { email: other });
  t.equal(reply.status, 202);
  t.strictSame(reply.body.data, { queued: true, already_sent: false, email: other });
  t.equal((await mailbox.next(other)).subject, `Reçu n° ${sale.receipt_no} - Boutique Awa`);
});

t.test('a minute after it was sent, a receipt is sent again to the same address', async (t) => {
  const { owner, customer, email } = await shopWithCustomer();
  const sale = await sell(api, owner.token, { customer_id: customer.id, items: [line(1000)], payments: cash(2000) });
  await mailbox.next(email);
  await api.ownerSql`update receipt_emails set queued_at = queued_at - interval '61 seconds' where sale_id = ${sale.id}`;
  const reply = await emailReceipt(owner.token, sale.id, { locale: 'en' });
  t.equal(reply.status, 202);
  t.strictSame(reply.body.data, { queued: true, already_sent: false, email });
  t.equal((await mailbox.next(email)).subject, `Receipt no. ${sale.receipt_no} - Boutique Awa`);
  const third = await emailReceipt(owner.token, sale.id);
  t.equal(third.status, 200, 'and then not again within the minute');
});

t.test('a receipt asked for twice by requests within a minute is sent once', async (t) => {
  const { owner } = await shopWithCustomer();
  const sale = await sell(api, owner.token, { items: [line(1000)], payments: cash(2000) });
  const address = uniqueEmail('walkin');
  t.equal((await emailReceipt(owner.token, sale.id, { email: address })).status, 202);
  t.equal((await emailReceipt(owner.token, sale.id, { email: address })).status, 200);
  await mailbox.next(address);
  await allSent(sale.id);
  t.equal(mailsTo(address), 1);
});

t.test('two requests at once for the same receipt and address send one mail', async (t) => {
  const { owner } = await shopWithCustomer();
  const sale = await sell(api, owner.token, { items: [line(1000)], payments: cash(2000) });
  const address = uniqueEmail('together');
  // A transaction holds the very row both requests claim, so that both are inside their claim at once.
  const blocker = await api.ownerSql.reserve();
  try {
    await blocker`begin`;
    await blocker`insert into receipt_emails (shop_id, sale_id, email) values (${owner.shop.id}, ${sale.id}, ${address})`;
    const both = Promise.all([emailReceipt(owner.token, sale.id, { email: address }), emailReceipt(owner.token, sale.id, { email: address })]);
    await waitFor(async () => {
      const [row] = await api.ownerSql<{ n: number }[]>`
        select count(*)::int as n from pg_stat_activity
         where datname = current_database() and wait_event_type = 'Lock' and query like '%receipt_emails%'`;
      return row!.n === 2;
    }, 'both requests to wait on the claimed row');
    await blocker`rollback`;
    const replies = await both;
    t.strictSame(replies.map((reply) => reply.status).sort(), [200, 202]);
  } finally {
    blocker.release();
  }
  await mailbox.next(address);
  await allSent(sale.id);
  t.equal(mailsTo(address), 1);
});

t.test('another shop cannot e-mail a sale\'s receipt nor see what was sent', async (t) => {
  const { owner, customer, email } = await shopWithCustomer();
  const sale = await sell(api, owner.token, { customer_id: customer.id, items: [line(1000)], payments: cash(2000) });
  await mailbox.next(email);
  const intruder = await registerShop(api, { shop_name: 'Pharmacie B' });
  t.equal((await emailReceipt(intruder.token, sale.id, { email: 'spy@example.cm' })).status, 404);
  const seen = await api.appSql.begin(async (tx) => {
    await tx`select set_config('app.shop_id', ${intruder.shop.id}, true)`;
    return tx`select * from receipt_emails where sale_id = ${sale.id}`;
  });
  t.equal(seen.length, 0);
  const [owned] = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from receipt_emails where sale_id = ${sale.id}`;
  t.equal(owned!.n, 1, 'the row exists');
});
