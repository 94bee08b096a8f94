import t from 'tap';
import { createCustomer, openShift, sell, voidSale } from '../sales/sale-fixtures.ts';
import { createProduct, registerShop } from '../support/fixtures.ts';
import { startService } from '../support/service.ts';
import { settleOnAccount, visibleText } from './receipt-fixtures.ts';

/** The invoice reads whether a credit sale is paid from the customer's account as it stands, settlements included. */

const api = await startService(t);
const owner = await registerShop(api);
const product = await createProduct(api, owner.token, { price_xaf: 2500 }, 100);

const invoiceText = async (saleId: string, locale: 'fr' | 'en' = 'fr') => {
  const reply = await api.request('GET', `/sales/${saleId}/invoice?locale=${locale}`, { token: owner.token });
  if (reply.status !== 200) throw new Error(`invoice failed: ${reply.status}`);
  return { html: reply.body as string, text: visibleText(reply.body as string) };
};

const creditSale = (customerId: string, cash: number) =>
  sell(api, owner.token, {
    customer_id: customerId,
    items: [{ product_id: product.id, quantity: 2 }],
    payments: [...(cash ? [{ method: 'cash', amount_xaf: cash }] : []), { method: 'credit', amount_xaf: 5000 - cash }],
  });

t.test('an invoice paid in full at the till is stamped paid', async (t) => {
  const sale = await sell(api, owner.token, { items: [{ product_id: product.id, quantity: 1 }], payments: [{ method: 'cash', amount_xaf: 2500 }] });
  const { html } = await invoiceText(sale.id);
  t.match(html, '<p class="stamp paid">Payée</p>');
  t.match((await invoiceText(sale.id, 'en')).html, '<p class="stamp paid">Paid</p>');
});

t.test('a credit sale is unpaid until something is paid, then shows the balance due, then is paid once settled', async (t) => {
  const customer = await createCustomer(api, owner.token, { credit_ceiling_xaf: 100_000 });
  const partly = await creditSale(customer.id, 2000);
  const unpaid = await creditSale(customer.id, 0);

  t.match((await invoiceText(partly.id)).html, '<p class="stamp partly_paid">Reste dû : 3 000 FCFA</p>', 'partly paid at the till');
  const before = await invoiceText(unpaid.id);
  t.match(before.html, '<p class="stamp unpaid">Non payée</p>', 'nothing paid');
  t.ok(before.text.includes('Reste dû (compte client) 5 000 FCFA'));
  t.match((await invoiceText(unpaid.id, 'en')).html, '<p class="stamp unpaid">Unpaid</p>');

  // Settlements go to the oldest debt first: the first sale is settled in full, the second in part.
  await settleOnAccount(api, owner.token, customer.id, 4000);
  const settled = await invoiceText(partly.id);
  t.match(settled.html, '<p class="stamp paid">Payée</p>', 'settled since: paid');
  t.ok(settled.text.includes('Réglé depuis sur le compte client 3 000 FCFA'), 'what was settled since');
  t.notOk(settled.text.includes('Reste dû'), 'nothing left due');
  const part = await invoiceText(unpaid.id);
  t.match(part.html, '<p class="stamp partly_paid">Reste dû : 4 000 FCFA</p>', 'paid in part by a settlement');
  t.ok(part.text.includes('Réglé depuis sur le compte client 1 000 FCFA'));
  t.ok(part.text.includes('Reste dû (compte client) 4 000 FCFA'));
  t.match((await invoiceText(unpaid.id, 'en')).html, '<p class="stamp partly_paid">Balance due: 4,000 FCFA</p>');
});

t.test('a voided credit sale carries no payment stamp and no balance due', async (t) => {
  const customer = await createCustomer(api, owner.token, { credit_ceiling_xaf: 100_000 });
  const sale = await creditSale(customer.id, 1000);
  await openShift(api, owner.token);
  t.equal((await voidSale(api, owner.token, sale.id)).status, 200);
  const { html, text } = await invoiceText(sale.id);
  t.match(text, 'VENTE ANNULÉE');
  t.notOk(html.includes('class="stamp'), 'no stamp');
  t.notOk(text.includes('Reste dû'), 'nothing due on a voided sale');
});
