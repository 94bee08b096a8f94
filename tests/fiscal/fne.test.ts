import t from 'tap';
import { loadConfig } from '../../api/config.ts';
import { FNE_PAYMENT_METHODS, FNE_TAX_GROUPS, fne } from '../../api/fiscal/providers/fne.ts';
import type { CertificationLine, CertificationRequest, Certified, DeliveryOutcome, DeliveryState, Journal } from '../../api/fiscal/providers/types.ts';
import { FNE_API_KEY, FNE_NCC, startFakeFne, type FakeFne } from '../support/fake-fne.ts';

/**
 * Cote d'Ivoire's FNE connector against the fake of the DGI's documented API (tests/support/fake-fne.ts):
 * what it sends, how it reads each answer, and how its journal keeps a record whose answer was lost from
 * ever being sent again (FNE has no look-up: the owner settles it). No database: the journal is in memory.
 */
const connector = (fake: FakeFne) => fne(loadConfig({ ...fake.env, FISCAL_TIMEOUT_MS: '300' }));

/** A line at a VAT-included unit price, its VAT computed as the shop computes it. */
const line = (lineNo: number, name: string, quantity: string, unitPriceXaf: number, vatRate: '0' | '9' | '18', extra: Partial<CertificationLine> = {}): CertificationLine => {
  const totalXaf = extra.totalXaf ?? Math.round(Number(quantity) * unitPriceXaf);
  return {
    lineNo, code: `SKU-${lineNo}`, name, quantity, unitPriceXaf, totalXaf,
    vatXaf: totalXaf - Math.round(totalXaf / (1 + Number(vatRate) / 100)), vatRate, taxGroup: FNE_TAX_GROUPS[vatRate]!, ...extra,
  };
};

let serial = 0;
/** A walk-in sale at the Plateau shop: 2 bags of rice at 11 800 (18 %), 3 bottles of oil at 1 090 (9 %), paid cash. */
const sale = (extra: Partial<CertificationRequest> = {}): CertificationRequest => {
  const lines = extra.lines ?? [line(1, 'Riz parfumé 5 kg', '2', 11800, '18'), line(2, 'Huile 1 l', '3', 1090, '9')];
  const totalXaf = lines.reduce((sum, l) => sum + l.totalXaf, 0);
  serial++;
  return {
    recordId: `shop-1:${serial}`, kind: 'sale', number: `T-${serial}`, issuedAt: new Date().toISOString(), shopName: 'Boutique Plateau',
    credentials: { taxpayerNo: FNE_NCC, apiToken: FNE_API_KEY, pointOfSale: '23', establishment: 'Plateau Rue du Commerce' },
    operator: { id: '7', name: 'Aya Koné' },
    customer: null,
    lines,
    payments: [{ type: 'cash', amountXaf: totalXaf }],
    totalXaf,
    vatXaf: lines.reduce((sum, l) => sum + l.vatXaf, 0),
    original: null,
    ...extra,
  };
};
const creditNote = (of: Pick<Certified, 'authorityNo' | 'providerRef' | 'lineRefs'>, lines: CertificationLine[]) => {
  const totalXaf = lines.reduce((sum, l) => sum + l.totalXaf, 0);
  return sale({ kind: 'credit_note', lines, totalXaf, payments: [{ type: 'cash', amountXaf: totalXaf }], original: of });
};

/** The journal as the outbox keeps it: every state noted, the last one what the next delivery starts from. */
const journal = (failing = false) => {
  const notes: DeliveryState[] = [];
  const kept: Journal & { notes: DeliveryState[]; state: () => DeliveryState } = {
    notes,
    state: () => notes.at(-1) ?? {},
    async note(state) {
      if (failing) throw new Error('database gone');
      notes.push(structuredClone(state));
    },
  };
  return kept;
};
const detailOf = (outcome: DeliveryOutcome) => ('detail' in outcome ? outcome.detail : '');

t.test("a B2C sale is certified with FNE's reference, its verification URL as the QR and FNE's line ids", async (t) => {
  const fake = await startFakeFne(t);
  const kept = journal();
  const outcome = await connector(fake).deliver(sale(), {}, kept);
  t.equal(fake.invoices.length, 1);
  const invoice = fake.invoices[0]!;
  t.match(invoice.reference, new RegExp(`^${FNE_NCC}\\d{2}\\d{9}$`));
  t.match(invoice.token, new RegExp(`^${fake.url}/fr/verification/[0-9a-f-]{36}$`));
  t.strictSame(outcome, {
    outcome: 'certified',
    authorityNo: invoice.reference,
    signature: invoice.token.split('/').at(-1),
    qr: invoice.token,
    certifiedAt: invoice.date,
    providerRef: invoice.id,
    lineRefs: { '1': invoice.items[0]!.id, '2': invoice.items[1]!.id },
  });
  t.strictSame(invoice.body, {
    invoiceType: 'sale',
    paymentMethod: 'cash',
    template: 'B2C',
    isRne: false,
    clientCompanyName: 'Client comptoir',
    clientPhone: '',
    clientEmail: '',
    clientSellerName: 'Aya Koné',
    pointOfSale: '23',
    establishment: 'Plateau Rue du Commerce',
    foreignCurrency: '',
    foreignCurrencyRate: 0,
    items: [
      { taxes: ['TVA'], reference: 'SKU-1', description: 'Riz parfumé 5 kg', quantity: 2, amount: 10000, discount: 0 },
      { taxes: ['TVAB'], reference: 'SKU-2', description: 'Huile 1 l', quantity: 3, amount: 1000, discount: 0 },
    ],
    discount: 0,
  }, 'no clientNcc for a walk-in customer');
  t.match(kept.state(), { stage: 'certified' }, 'the certification journalled');
});

t.test('a sale to a business (a taxpayer number) goes as B2B with its NCC, name and contacts', async (t) => {
  const fake = await startFakeFne(t);
  const customer = { name: 'KPMG COTE D’IVOIRE', taxpayerNo: '9502363N', phone: '0709080765', email: 'info@kpmg.ci', address: null };
  t.equal((await connector(fake).deliver(sale({ customer }), {}, journal())).outcome, 'certified');
  t.match(fake.invoices[0]!.body, { template: 'B2B', clientNcc: '9502363N', clientCompanyName: 'KPMG COTE D’IVOIRE', clientPhone: '0709080765', clientEmail: 'info@kpmg.ci' });
  const person = { name: 'Awa', taxpayerNo: null, phone: null, email: 'awa@example.ci', address: null };
  await connector(fake).deliver(sale({ customer: person }), {}, journal());
  t.match(fake.invoices[1]!.body, { template: 'B2C', clientCompanyName: 'Awa', clientPhone: '', clientEmail: 'awa@example.ci' });
  t.notOk('clientNcc' in fake.invoices[1]!.body);
});

t.test('a shop without point of sale or establishment sends point of sale 1 and its name', async (t) => {
  const fake = await startFakeFne(t);
  const credentials = { taxpayerNo: FNE_NCC, apiToken: FNE_API_KEY, pointOfSale: null, establishment: '  ' };
  t.equal((await connector(fake).deliver(sale({ credentials }), {}, journal())).outcome, 'certified');
  t.match(fake.invoices[0]!.body, { pointOfSale: '1', establishment: 'Boutique Plateau' });
});

t.test('tax groups follow the table (18 TVA, 9 TVAB, 0 TVAD, no other) and items go at their unit price excluding VAT', async (t) => {
  const fake = await startFakeFne(t);
  const provider = connector(fake);
  const groups: Record<string, string | null> = { '18': 'TVA', '18.00': 'TVA', '9': 'TVAB', '9.0': 'TVAB', '0': 'TVAD', '0.00': 'TVAD', '19.25': null, '10': null, '': null, abc: null, '-18': null };
  for (const [rate, group] of Object.entries(groups)) t.equal(provider.taxGroupFor(rate), group, `${rate || '(empty)'} -> ${group}`);
  const lines = [
    line(1, 'Riz parfumé 5 kg', '2', 11800, '18'),
    line(2, 'Huile 1 l', '3', 1090, '9'),
    line(3, 'Manioc', '3', 500, '0', { code: null }),
    line(4, 'Savon', '3', 1000, '18'),
    line(5, 'Sucre', '2', 1180, '18', { totalXaf: 2124 }),
    line(6, 'Tissu wax (m)', '1.5', 2360, '18'),
  ];
  const request = sale({ lines });
  t.equal((await provider.deliver(request, {}, journal())).outcome, 'certified');
  const invoice = fake.invoices[0]!;
  t.strictSame(invoice.body.items.map((item: any) => [item.taxes, item.reference, item.quantity, item.amount, item.discount]), [
    [['TVA'], 'SKU-1', 2, 10000, 0],
    [['TVAB'], 'SKU-2', 3, 1000, 0],
    [['TVAD'], '3', 3, 500, 0],
    [['TVA'], 'SKU-4', 3, 847.33, 0],
    [['TVA'], 'SKU-5', 2, 900, 0],
    [['TVA'], 'SKU-6', 1.5, 2000, 0],
  ], 'a discounted line goes at its price after the discount; a line without code by its number');
  t.equal(invoice.amount, request.totalXaf, "FNE's total (VAT included) is ours");
  t.equal(invoice.vatAmount, request.vatXaf, "FNE's VAT is ours");
});

t.test('payment methods follow the table, and the method that paid most names the invoice', async (t) => {
  const fake = await startFakeFne(t);
  const provider = connector(fake);
  const methods = { cash: 'cash', carrier1_momo: 'mobile-money', carrier2_money: 'mobile-money', card: 'card', bank: 'transfer', credit: 'deferred', voucher: 'cash', toString: 'cash' };
  for (const [method, type] of Object.entries(methods)) t.equal(provider.paymentTypeFor(method), type, `${method} -> ${type}`);
  t.equal(Object.keys(FNE_PAYMENT_METHODS).length, 6);
  const paid = async (payments: CertificationRequest['payments']) => {
    await provider.deliver(sale({ payments }), {}, journal());
    return fake.invoices.at(-1)!.body.paymentMethod;
  };
  t.equal(await paid([{ type: 'cash', amountXaf: 5000 }, { type: 'mobile-money', amountXaf: 25670 }]), 'mobile-money');
  t.equal(await paid([{ type: 'card', amountXaf: 20000 }, { type: 'cash', amountXaf: 10670 }]), 'card');
  t.equal(await paid([{ type: 'transfer', amountXaf: 15335 }, { type: 'cash', amountXaf: 15335 }]), 'transfer', 'a tie: the first');
  t.equal(await paid([{ type: 'mobile-money', amountXaf: 8000 }, { type: 'cash', amountXaf: 12000 }, { type: 'mobile-money', amountXaf: 10670 }]), 'mobile-money', 'two operators of mobile money count together');
  t.equal(await paid([]), 'cash', 'cash when nothing was paid');
});

t.test("a credit note refunds the original's FNE line ids and quantities", async (t) => {
  const fake = await startFakeFne(t);
  const provider = connector(fake);
  const original = await provider.deliver(sale(), {}, journal());
  if (original.outcome !== 'certified') return t.fail(`the sale: ${original.outcome}`);
  const kept = journal();
  const outcome = await provider.deliver(creditNote(original, [line(2, 'Huile 1 l', '2', 1090, '9'), line(1, 'Riz parfumé 5 kg', '1', 11800, '18')]), {}, kept);
  t.equal(fake.creditNotes.length, 1);
  const note = fake.creditNotes[0]!;
  t.equal(note.invoiceId, original.providerRef);
  t.strictSame(note.items, [{ id: original.lineRefs!['2'], quantity: 2 }, { id: original.lineRefs!['1'], quantity: 1 }]);
  t.match(note.reference, new RegExp(`^A${FNE_NCC}\\d{2}\\d{8}$`));
  t.match(outcome, { outcome: 'certified', authorityNo: note.reference, qr: note.token, signature: note.token.split('/').at(-1), providerRef: null, lineRefs: null });
  t.equal(fake.invoices.length, 1, 'no invoice for a credit note');
});

t.test("a credit note without the original's FNE ids is rejected without calling FNE", async (t) => {
  const fake = await startFakeFne(t);
  const provider = connector(fake);
  const lines = [line(1, 'Riz parfumé 5 kg', '1', 11800, '18')];
  const kept = journal();
  const noIds = await provider.deliver(creditNote({ authorityNo: `${FNE_NCC}25000000001`, providerRef: 'e2b2d8da-a532-4c08-9182-f5b428ca468d', lineRefs: null }, lines), {}, kept);
  t.match(noIds, { outcome: 'rejected', reason: 'original_not_refundable', detail: /line ids/ });
  const noInvoice = await provider.deliver(creditNote({ authorityNo: `${FNE_NCC}25000000001`, providerRef: null, lineRefs: { '1': 'x' } }, lines), {}, kept);
  t.match(noInvoice, { outcome: 'rejected', reason: 'original_not_refundable' });
  const otherLine = await provider.deliver(creditNote({ authorityNo: `${FNE_NCC}25000000001`, providerRef: 'e2b2', lineRefs: { '2': 'x' } }, lines), {}, kept);
  t.match(otherLine, { outcome: 'rejected', reason: 'original_not_refundable', detail: /line 1/ });
  t.equal(fake.calls('refund'), 0);
  t.strictSame(kept.notes, [], 'nothing journalled: nothing was sent');
});

t.test("a 400 is rejected with FNE's message, and nothing is left journalled", async (t) => {
  const fake = await startFakeFne(t);
  const provider = connector(fake);
  const kept = journal();
  const blank = await provider.deliver(sale({ lines: [line(1, '', '1', 1180, '18')] }), {}, kept);
  t.strictSame(blank, { outcome: 'rejected', reason: 'fne_bad_request', detail: 'Description is required' });
  t.strictSame(kept.state(), {});
  const original = await provider.deliver(sale(), {}, journal());
  if (original.outcome !== 'certified') return t.fail('the sale');
  const tooMany = await provider.deliver(creditNote(original, [line(1, 'Riz parfumé 5 kg', '3', 11800, '18')]), {}, journal());
  t.match(tooMany, { outcome: 'rejected', reason: 'fne_bad_request', detail: /exceeds the quantity left/ });
  t.equal(fake.creditNotes.length, 0);
  t.equal(fake.invoices.length, 1, 'only the sale');
});

t.test('an original invoice FNE does not know (404 on the refund) is rejected', async (t) => {
  const fake = await startFakeFne(t);
  const outcome = await connector(fake).deliver(creditNote({ authorityNo: 'x', providerRef: '00000000-0000-0000-0000-000000000000', lineRefs: { '1': 'y' } }, [line(1, 'Riz', '1', 11800, '18')]), {}, journal());
  t.match(outcome, { outcome: 'rejected', reason: 'original_not_found', detail: /Invoice not found/ });
});

t.test('a refused API key (401), a 500, a 503 and a refused connection are not_sent, certify nothing, and leave the journal empty', async (t) => {
  const fake = await startFakeFne(t);
  const provider = connector(fake);
  const request = sale();
  const wrongKey = sale({ credentials: { ...request.credentials, apiToken: 'wrong-api-key' } });
  const tries: [string, () => Promise<unknown>, CertificationRequest][] = [
    ['401', async () => {}, wrongKey],
    ['500', async () => fake.failNext('sign', 500), request],
    ['503', async () => fake.failNext('sign', 503), request],
    ['connection refused', () => fake.setDown(true), request],
  ];
  for (const [what, arrange, attempt] of tries) {
    await arrange();
    const kept = journal();
    const outcome = await provider.deliver(attempt, {}, kept);
    t.equal(outcome.outcome, 'not_sent', `${what}: not_sent`);
    t.strictSame(kept.notes.map((state) => state.stage ?? '{}'), ['sending', '{}'], `${what}: the journal starts over`);
  }
  t.equal(fake.invoices.length, 0, 'nothing certified');
  await fake.setDown(false);
  t.equal(fake.calls('sign'), 3);
  t.equal((await provider.deliver(request, {}, journal())).outcome, 'certified', 'sent again once FNE is back');
  t.equal(fake.invoices.length, 1);
});

t.test('the not_sent details say why: the refused API key, the unavailable endpoint, the refused connection', async (t) => {
  const fake = await startFakeFne(t);
  const provider = connector(fake);
  const request = sale();
  t.match(await provider.deliver(sale({ credentials: { ...request.credentials, apiToken: 'wrong' } }), {}, journal()), { detail: /refused the API key \(401\): nothing was certified/ });
  fake.failNext('sign', 500);
  t.match(await provider.deliver(request, {}, journal()), { detail: /HTTP 500 \(endpoint not available\)/ });
  await fake.setDown(true);
  t.match(await provider.deliver(request, {}, journal()), { detail: /unreachable \(ECONNREFUSED\)/ });
});

t.test('a lost answer (FNE certified it, never answered) is unknown, and the next delivery sends nothing: one invoice at FNE', async (t) => {
  const fake = await startFakeFne(t);
  const provider = connector(fake);
  const request = sale();
  const kept = journal();
  fake.failNext('sign', 'keep-and-hang');
  const first = await provider.deliver(request, {}, kept);
  t.match(first, { outcome: 'unknown', detail: /timed out.*may have certified it/ });
  t.equal(fake.invoices.length, 1, 'FNE certified it');
  t.match(kept.state(), { stage: 'sending' });
  for (let attempt = 0; attempt < 2; attempt++) {
    const again = await provider.deliver(request, kept.state(), kept);
    t.strictSame(again, { outcome: 'unknown', detail: 'a request was sent and its answer lost; FNE offers no look-up: settle it by hand' });
  }
  t.equal(fake.calls('sign'), 1, 'sent once');
  t.equal(fake.invoices.length, 1, 'certified once');
  t.match(kept.state(), { stage: 'sending' }, 'the journal left for the owner to settle');
});

t.test('a hang, a reset, a 502, a 504 or a 200 that is not an invoice are unknown and never sent again', async (t) => {
  const fake = await startFakeFne(t);
  const provider = connector(fake);
  for (const fault of ['hang', 'reset', 502, 504, 'keep-and-garble'] as const) {
    fake.failNext('sign', fault);
    const request = sale();
    const kept = journal();
    const started = Date.now();
    const outcome = await provider.deliver(request, {}, kept);
    t.equal(outcome.outcome, 'unknown', `${fault}: unknown`);
    t.ok(Date.now() - started < 3_000, `${fault}: the timeout holds`);
    t.strictSame(kept.notes.map((state) => state.stage), ['sending'], `${fault}: the journal says sent`);
    t.equal((await provider.deliver(request, kept.state(), kept)).outcome, 'unknown', `${fault}: the next delivery sends nothing`);
  }
  t.equal(fake.calls('sign'), 5);
  t.equal(fake.invoices.length, 1, 'only the garbled answer was certified');
});

t.test('a lost refund answer is unknown too, and the credit note is never sent again', async (t) => {
  const fake = await startFakeFne(t);
  const provider = connector(fake);
  const original = await provider.deliver(sale(), {}, journal());
  if (original.outcome !== 'certified') return t.fail('the sale');
  const note = creditNote(original, [line(1, 'Riz parfumé 5 kg', '1', 11800, '18')]);
  const kept = journal();
  fake.failNext('refund', 'keep-and-hang');
  t.match(await provider.deliver(note, {}, kept), { outcome: 'unknown', detail: /FNE refund: timed out/ });
  t.equal((await provider.deliver(note, kept.state(), kept)).outcome, 'unknown');
  t.equal(fake.calls('refund'), 1);
  t.equal(fake.creditNotes.length, 1);
});

t.test('a journalled certification is answered again without calling FNE', async (t) => {
  const fake = await startFakeFne(t);
  const provider = connector(fake);
  const request = sale();
  const kept = journal();
  const first = await provider.deliver(request, {}, kept);
  t.equal(first.outcome, 'certified');
  t.strictSame(await provider.deliver(request, kept.state(), kept), first);
  t.equal(fake.calls('sign'), 1);
});

t.test('a delivery that cannot journal before sending sends nothing and is not_sent', async (t) => {
  const fake = await startFakeFne(t);
  const outcome = await connector(fake).deliver(sale(), {}, journal(true));
  t.match(outcome, { outcome: 'not_sent', detail: /could not be journalled/ });
  t.equal(fake.calls('sign'), 0);
});

t.test('the line ids are kept only when FNE answers one item per line', async (t) => {
  // An answer whose items cannot be matched to our lines by position: still certified, its credit notes refused later.
  const fake = await startFakeFne(t);
  const realFetch = globalThis.fetch;
  t.teardown(() => void (globalThis.fetch = realFetch));
  globalThis.fetch = (input, init) => {
    const body = JSON.parse(String(init!.body));
    body.items.push({ taxes: ['TVA'], reference: 'SKU-3', description: 'Sucre', quantity: 1, amount: 1000, discount: 0 });
    return realFetch(input, { ...init, body: JSON.stringify(body) });
  };
  const outcome = await connector(fake).deliver(sale(), {}, journal());
  globalThis.fetch = realFetch;
  t.equal(fake.invoices[0]!.items.length, 3, 'FNE answered three items for our two lines');
  t.match(outcome, { outcome: 'certified', authorityNo: fake.invoices[0]!.reference, providerRef: fake.invoices[0]!.id, lineRefs: null });
});

t.test('the API key never appears in a detail', async (t) => {
  const fake = await startFakeFne(t);
  const provider = connector(fake);
  const details: string[] = [];
  const collect = (outcome: DeliveryOutcome) => details.push(detailOf(outcome));
  const wrongKey = 'wrong-api-key-secret-9999';
  const request = sale();
  collect(await provider.deliver(sale({ credentials: { ...request.credentials, apiToken: wrongKey } }), {}, journal()));
  for (const fault of [500, 502, 503, 'hang', 'reset', 'keep-and-garble'] as const) {
    fake.failNext('sign', fault);
    collect(await provider.deliver(sale(), {}, journal()));
  }
  collect(await provider.deliver(sale({ lines: [line(1, '', '1', 1180, '18')] }), {}, journal()));
  collect(await provider.deliver(sale(), { stage: 'sending' }, journal()));
  collect(await provider.deliver(creditNote({ authorityNo: 'x', providerRef: null, lineRefs: null }, [line(1, 'Riz', '1', 11800, '18')]), {}, journal()));
  await fake.setDown(true);
  collect(await provider.deliver(sale(), {}, journal()));
  t.equal(details.filter(Boolean).length, 11, 'every outcome has a detail');
  for (const detail of details) t.notOk(detail.includes(FNE_API_KEY) || detail.includes(wrongKey), `no API key in "${detail}"`);
});
