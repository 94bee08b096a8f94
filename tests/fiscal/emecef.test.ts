import t, { type Test } from 'tap';
import { loadConfig } from '../../api/config.ts';
import { EMECEF_PAYMENT_TYPES, EMECEF_TAX_GROUPS, emecef, emecefTime } from '../../api/fiscal/providers/emecef.ts';
import type { CertificationLine, CertificationRequest, DeliveryOutcome, DeliveryState, Journal } from '../../api/fiscal/providers/types.ts';
import { EMECEF_IFU, EMECEF_NIM, EMECEF_TOKEN, startFakeEmecef, type FakeEmecef } from '../support/fake-emecef.ts';

/**
 * Benin's e-MECeF connector against the fake of the DGI's documented e-MCF API (tests/support/fake-emecef.ts):
 * what it sends, how it reads each answer, and how a delivery goes on from its journal so that nothing
 * is ever certified twice. No database: the journal is kept in memory here.
 */
const connector = (fake: FakeEmecef) => emecef(loadConfig({ ...fake.env, FISCAL_TIMEOUT_MS: '300' }));

let serial = 0;
const line = (lineNo: number, name: string, quantity: string, unitPriceXaf: number, vatRate: '0' | '18', extra: Partial<CertificationLine> = {}): CertificationLine => {
  const totalXaf = extra.totalXaf ?? Math.round(Number(quantity) * unitPriceXaf);
  const rate = Number(vatRate);
  return {
    lineNo, code: `SKU-${lineNo}`, name, quantity, unitPriceXaf, totalXaf,
    vatXaf: totalXaf - Math.round(totalXaf / (1 + rate / 100)), vatRate, taxGroup: EMECEF_TAX_GROUPS[vatRate]!, ...extra,
  };
};
/** The document's example sale: 2 orange juices at 1 800 (18 %), 3 milks at 450 (exempt), paid cash. */
const sale = (extra: Partial<CertificationRequest> = {}): CertificationRequest => {
  const lines = extra.lines ?? [line(1, "Jus d'orange", '2', 1800, '18'), line(2, 'Lait 1/1 EX', '3', 450, '0')];
  const totalXaf = lines.reduce((sum, l) => sum + l.totalXaf, 0);
  serial++;
  return {
    recordId: `shop-1:${serial}`, kind: 'sale', number: `T-${serial}`, issuedAt: new Date().toISOString(), shopName: 'Boutique Ganhi',
    credentials: { taxpayerNo: EMECEF_IFU, apiToken: EMECEF_TOKEN, pointOfSale: EMECEF_NIM, establishment: null },
    operator: { id: '7', name: 'Jacques' },
    customer: null,
    lines,
    payments: [{ type: 'ESPECES', amountXaf: totalXaf }],
    totalXaf,
    vatXaf: lines.reduce((sum, l) => sum + l.vatXaf, 0),
    original: null,
    ...extra,
  };
};
const creditNote = (of: { authorityNo: string; providerRef: string | null }, lines: CertificationLine[]) => {
  const totalXaf = lines.reduce((sum, l) => sum + l.totalXaf, 0);
  return sale({ kind: 'credit_note', lines, totalXaf, payments: [{ type: 'ESPECES', amountXaf: totalXaf }], original: { ...of, lineRefs: null } });
};

/** The journal as the outbox keeps it: every state noted, the last one what the next delivery starts from. */
const journal = (dieAt?: string) => {
  const notes: DeliveryState[] = [];
  const kept: Journal & { notes: DeliveryState[]; state: () => DeliveryState } = {
    notes,
    state: () => notes.at(-1) ?? {},
    async note(state) {
      // A worker killed as it journals this stage: the write never lands, nothing after it happens.
      if (dieAt && state.stage === dieAt) throw new Error('worker killed');
      notes.push(structuredClone(state));
    },
  };
  return kept;
};
const stages = (notes: DeliveryState[]) => notes.map((state) => state.stage ?? '{}');
const detailOf = (outcome: DeliveryOutcome) => ('detail' in outcome ? outcome.detail : '');

t.test('a sale is certified with the code MECeF/DGI, its QR code and counters, journalled at each stage', async (t) => {
  const fake = await startFakeEmecef(t);
  const kept = journal();
  const outcome = await connector(fake).deliver(sale(), {}, kept);
  t.equal(fake.confirmed.length, 1);
  const invoice = fake.confirmed[0]!;
  t.match(invoice.codeMECeFDGI, /^[A-Z0-9]{4}(-[A-Z0-9]{4}){5}$/);
  t.strictSame(outcome, {
    outcome: 'certified',
    authorityNo: invoice.codeMECeFDGI,
    signature: `${EMECEF_NIM} 1/1 FV ${invoice.dateTime}`,
    qr: invoice.qrCode,
    certifiedAt: emecefTime(invoice.dateTime),
    providerRef: invoice.codeMECeFDGI.replace(/-/g, ''),
    lineRefs: null,
  });
  t.ok(Math.abs(Date.parse((outcome as { certifiedAt: string }).certifiedAt) - Date.now()) < 5_000, "e-MCF's Benin time read as UTC+1");
  t.strictSame(invoice.body, {
    ifu: EMECEF_IFU,
    type: 'FV',
    items: [
      { code: 'SKU-1', name: "Jus d'orange", price: 1800, quantity: 2, taxGroup: 'B' },
      { code: 'SKU-2', name: 'Lait 1/1 EX', price: 450, quantity: 3, taxGroup: 'A' },
    ],
    operator: { id: '7', name: 'Jacques' },
    payment: [{ name: 'ESPECES', amount: 4950 }],
  }, "the document's example request; no client for an anonymous sale");
  t.strictSame(stages(kept.notes), ['submitting', 'submitted', 'confirming', 'certified']);
  t.equal(kept.notes[1]!.uid, invoice.uid);
  t.equal(fake.pending().length, 0);
});

t.test("e-MCF's time (dd/mm/yyyy hh:mm:ss, Benin's UTC+1) is read as ISO", async (t) => {
  t.equal(emecefTime('23/11/2020 13:17:08'), '2020-11-23T12:17:08.000Z');
  t.equal(emecefTime('01/01/2021 00:30:00'), '2020-12-31T23:30:00.000Z');
  t.equal(emecefTime('2020-11-23 13:17:08'), null);
});

t.test("a credit note (FA) names its sale by the 24 characters of the sale's code MECeF/DGI", async (t) => {
  const fake = await startFakeEmecef(t);
  const provider = connector(fake);
  const original = await provider.deliver(sale(), {}, journal());
  if (original.outcome !== 'certified') return t.fail(`the sale: ${original.outcome}`);
  t.equal(original.providerRef!.length, 24);
  const outcome = await provider.deliver(creditNote(original, [line(1, "Jus d'orange", '1', 1800, '18')]), {}, journal());
  t.equal(outcome.outcome, 'certified');
  const note = fake.confirmed[1]!;
  t.equal(note.body.type, 'FA');
  t.equal(note.body.reference, original.providerRef);
  t.equal(note.counters, '1/2 FA');
  t.match(outcome, { authorityNo: note.codeMECeFDGI, signature: `${EMECEF_NIM} 1/2 FA ${note.dateTime}` });
});

t.test('tax groups and payment types follow the tables: 0 % is A, 18 % is B, no other rate has a group; unknown methods are AUTRE', async (t) => {
  const fake = await startFakeEmecef(t);
  const provider = connector(fake);
  const groups: Record<string, string | null> = { '0': 'A', '18': 'B', '18.00': 'B', '0.0': 'A', '19.25': null, '5.5': null, '10': null, '': null, 'abc': null, '-18': null };
  for (const [rate, group] of Object.entries(groups)) t.equal(provider.taxGroupFor(rate), group, `${rate || '(empty)'} -> ${group}`);
  const types = { cash: 'ESPECES', carrier1_momo: 'MOBILEMONEY', carrier2_money: 'MOBILEMONEY', card: 'CARTEBANCAIRE', bank: 'VIREMENT', credit: 'CREDIT', voucher: 'AUTRE', toString: 'AUTRE' };
  for (const [method, type] of Object.entries(types)) t.equal(provider.paymentTypeFor(method), type, `${method} -> ${type}`);
  t.strictSame(EMECEF_TAX_GROUPS, { '0': 'A', '18': 'B' });
  t.equal(Object.keys(EMECEF_PAYMENT_TYPES).length, 6);
});

t.test("a discounted line, or a fractional quantity whose amount was rounded, goes as one unit at its total: e-MCF's totals are ours", async (t) => {
  const fake = await startFakeEmecef(t);
  const lines = [
    line(1, 'Riz 25 kg', '1', 15000, '0'),
    line(2, 'Savon', '2', 1000, '18', { totalXaf: 1800 }),
    line(3, 'Tissu wax (m)', '1.333', 250, '18'),
    line(4, 'Fromage (kg)', '1.250', 4000, '18'),
    line(5, 'X'.repeat(200), '3', 100, '18', { totalXaf: 250, code: null }),
  ];
  const request = sale({ lines, payments: [{ type: 'MOBILEMONEY', amountXaf: 10000 }, { type: 'ESPECES', amountXaf: 12383 }] });
  const outcome = await connector(fake).deliver(request, {}, journal());
  t.equal(outcome.outcome, 'certified', 'certified: the totals agree');
  const items = fake.confirmed[0]!.body.items;
  t.strictSame(items.slice(0, 4), [
    { code: 'SKU-1', name: 'Riz 25 kg', price: 15000, quantity: 1, taxGroup: 'A' },
    { code: 'SKU-2', name: 'Savon (2 x 1000)', price: 1800, quantity: 1, taxGroup: 'B', originalPrice: 2000, priceModification: 'Remise' },
    { code: 'SKU-3', name: 'Tissu wax (m) (1.333 x 250)', price: 333, quantity: 1, taxGroup: 'B' },
    { code: 'SKU-4', name: 'Fromage (kg)', price: 4000, quantity: 1.25, taxGroup: 'B' },
  ]);
  t.equal(items[4].name.length, 120, 'a long name cut to leave its quantity and price');
  t.match(items[4], { name: /^X+… \(3 x 100\)$/, price: 250, quantity: 1, originalPrice: 300, priceModification: 'Remise' });
  t.notOk('code' in items[4], 'no code for a product without one');
  t.strictSame(fake.confirmed[0]!.body.payment, [{ name: 'MOBILEMONEY', amount: 10000 }, { name: 'ESPECES', amount: 12383 }]);
  t.equal(fake.confirmed[0]!.total, request.totalXaf);
});

t.test("the customer goes as e-MCF's client: IFU, name, phone or else e-mail, address", async (t) => {
  const fake = await startFakeEmecef(t);
  const provider = connector(fake);
  await provider.deliver(sale({ customer: { name: 'SUPERMARCHE SARL', taxpayerNo: '3201900000002', phone: '+229 97 00 00 00', email: 'achats@sm.bj', address: 'Boulevard 23, Cotonou' } }), {}, journal());
  await provider.deliver(sale({ customer: { name: 'Awa', taxpayerNo: null, phone: null, email: 'awa@example.bj', address: null } }), {}, journal());
  t.strictSame(fake.confirmed.map((invoice) => invoice.body.client), [
    { ifu: '3201900000002', name: 'SUPERMARCHE SARL', contact: '+229 97 00 00 00', address: 'Boulevard 23, Cotonou' },
    { name: 'Awa', contact: 'awa@example.bj' },
  ]);
});

t.test('a lost POST answer: the next delivery cancels the request left pending and certifies once', async (t) => {
  const fake = await startFakeEmecef(t);
  const provider = connector(fake);
  const request = sale();
  const kept = journal();
  fake.failNext('post', 'keep-and-hang');
  const first = await provider.deliver(request, {}, kept);
  t.match(first, { outcome: 'not_sent', detail: /timed out/ });
  const left = fake.pending();
  t.equal(left.length, 1, 'e-MCF holds the request pending');
  t.strictSame(stages(kept.notes), ['submitting']);
  const second = await provider.deliver(request, kept.state(), kept);
  t.equal(second.outcome, 'certified');
  t.strictSame(fake.cancelled, [left[0]!.uid], 'the pending request cancelled');
  t.equal(fake.confirmed.length, 1, 'certified once');
  t.equal(fake.calls('post'), 2);
});

t.test('a worker killed after the POST (submitted journalled) confirms without posting again', async (t) => {
  const fake = await startFakeEmecef(t);
  const provider = connector(fake);
  const request = sale();
  const dying = journal('confirming');
  const first = await provider.deliver(request, {}, dying);
  t.match(first, { outcome: 'not_sent', detail: /could not be journalled/ });
  t.equal(fake.calls('confirm'), 0, 'no confirm without its journal');
  const state = dying.state();
  t.match(state, { stage: 'submitted', uid: fake.pending()[0]!.uid });
  const kept = journal();
  const second = await provider.deliver(request, state, kept);
  t.equal(second.outcome, 'certified');
  t.equal(fake.calls('post'), 1, 'posted once');
  t.equal(fake.calls('status'), 1, 'no status check: a submitted request is confirmed straight away');
  t.equal(fake.confirmed.length, 1);
  t.equal(fake.confirmed[0]!.uid, state.uid);
  t.strictSame(stages(kept.notes), ['confirming', 'certified']);
});

t.test('a confirm that never reached e-MCF, its answer lost, is recovered by confirming again: one invoice at e-MCF', async (t) => {
  const fake = await startFakeEmecef(t);
  const provider = connector(fake);
  const request = sale();
  const kept = journal();
  fake.failNext('confirm', 'hang');
  const first = await provider.deliver(request, {}, kept);
  t.match(first, { outcome: 'unknown', detail: /confirm: timed out/ });
  t.match(kept.state(), { stage: 'confirming' });
  fake.failNext('confirm', 503);
  t.match(await provider.deliver(request, kept.state(), kept), { outcome: 'unknown', detail: /HTTP 503/ }, 'a 503 on the second confirm is unknown too');
  const third = await provider.deliver(request, kept.state(), kept);
  t.equal(third.outcome, 'certified');
  t.equal(fake.confirmed.length, 1);
  t.equal(fake.calls('post'), 1, 'never posted again');
});

t.test('a confirm answered 20 after a lost confirm is unknown, never posted again', async (t) => {
  const fake = await startFakeEmecef(t);
  const provider = connector(fake);
  const request = sale();
  const kept = journal();
  fake.failNext('confirm', 'keep-and-hang');
  t.equal((await provider.deliver(request, {}, kept)).outcome, 'unknown');
  t.equal(fake.confirmed.length, 1, 'e-MCF certified it; its answer was lost');
  for (let attempt = 0; attempt < 2; attempt++) {
    const again = await provider.deliver(request, kept.state(), kept);
    t.match(again, { outcome: 'unknown', detail: /error 20.*most likely certified it/ });
  }
  t.equal(fake.calls('post'), 1, 'never posted again');
  t.equal(fake.calls('status'), 1);
  t.equal(fake.confirmed.length, 1);
  t.match(kept.state(), { stage: 'confirming' });
});

t.test('an expired pending request (the first confirm answered 20) is sent afresh', async (t) => {
  const fake = await startFakeEmecef(t);
  const provider = connector(fake);
  const request = sale();
  const dying = journal('confirming');
  await provider.deliver(request, {}, dying);
  fake.advance(2 * 60_000 + 1_000);
  t.equal(fake.pending().length, 0, 'e-MCF dropped it after 2 minutes');
  const kept = journal();
  const second = await provider.deliver(request, dying.state(), kept);
  t.match(second, { outcome: 'not_sent', detail: /expired/ });
  t.strictSame(kept.state(), {}, 'the journal starts over');
  t.equal((await provider.deliver(request, kept.state(), kept)).outcome, 'certified');
  t.equal(fake.calls('post'), 2);
  t.equal(fake.confirmed.length, 1);
});

t.test("e-MCF's refusal is rejected with its code and text, and leaves nothing pending", async (t) => {
  const fake = await startFakeEmecef(t);
  const provider = connector(fake);
  const unknownOriginal = await provider.deliver(creditNote({ authorityNo: 'AAAA-BBBB-CCCC-DDDD-EEEE-FFFF', providerRef: 'AAAABBBBCCCCDDDDEEEEFFFF' }, [line(1, 'Savon', '1', 1000, '18')]), {}, journal());
  t.strictSame(unknownOriginal, {
    outcome: 'rejected', reason: 'emecef_11',
    detail: "La référence de la facture originale n'est pas valide (la facture originale est introuvable)",
  });
  const short = await provider.deliver(creditNote({ authorityNo: 'AAAA-BBBB', providerRef: 'AAAABBBB' }, [line(1, 'Savon', '1', 1000, '18')]), {}, journal());
  t.match(short, { outcome: 'rejected', reason: 'emecef_5' });
  const original = await provider.deliver(sale(), {}, journal());
  if (original.outcome !== 'certified') return t.fail('the sale');
  const tooMuch = await provider.deliver(creditNote(original, [line(1, 'Lait 1/1 EX', '20', 450, '0')]), {}, journal());
  t.match(tooMuch, { outcome: 'rejected', reason: 'emecef_12' });
  const noSale = await provider.deliver(creditNote({ authorityNo: '', providerRef: null }, [line(1, 'Savon', '1', 1000, '18')]), {}, journal());
  t.match(noSale, { outcome: 'rejected', reason: 'original_not_certified' });
  t.equal(fake.confirmed.length, 1, 'only the sale');
  t.equal(fake.pending().length, 0);
});

t.test('totals that differ from ours are cancelled and rejected, and the journal never says submitted', async (t) => {
  const fake = await startFakeEmecef(t);
  const request = sale();
  const kept = journal();
  const outcome = await connector(fake).deliver({ ...request, totalXaf: request.totalXaf + 1 }, {}, kept);
  t.match(outcome, { outcome: 'rejected', reason: 'totals_mismatch', detail: /4950.*4951/ });
  t.equal(fake.cancelled.length, 1);
  t.equal(fake.pending().length, 0);
  t.equal(fake.confirmed.length, 0);
  t.strictSame(stages(kept.notes), ['submitting']);
});

t.test('the authority down (connection refused) is not_sent, and the record is certified once it is back', async (t) => {
  const fake = await startFakeEmecef(t);
  const provider = connector(fake);
  const request = sale();
  await fake.setDown(true);
  const outcome = await provider.deliver(request, {}, journal());
  t.match(outcome, { outcome: 'not_sent', detail: /unreachable \(ECONNREFUSED\)/ });
  await fake.setDown(false);
  t.equal((await provider.deliver(request, {}, journal())).outcome, 'certified');
  t.equal(fake.confirmed.length, 1);
});

t.test('a first confirm refused at the door (connection refused) is not_sent and journalled back to submitted', async (t) => {
  const fake = await startFakeEmecef(t);
  const provider = connector(fake);
  const request = sale();
  const kept = journal();
  const downAtConfirm: Journal = {
    async note(state) {
      await kept.note(state);
      if (state.stage === 'confirming') await fake.setDown(true);
    },
  };
  t.match(await provider.deliver(request, {}, downAtConfirm), { outcome: 'not_sent', detail: /ECONNREFUSED/ });
  t.strictSame(stages(kept.notes), ['submitting', 'submitted', 'confirming', 'submitted']);
  await fake.setDown(false);
  t.equal((await provider.deliver(request, kept.state(), kept)).outcome, 'certified');
  t.equal(fake.calls('post'), 1);
  t.equal(fake.confirmed.length, 1);
});

t.test('a 500, a 503, a reset or a hang on the POST is not_sent: at most a request is left pending, never certified', async (t) => {
  const fake = await startFakeEmecef(t);
  const provider = connector(fake);
  const request = sale();
  for (const fault of [500, 503, 'reset', 'hang', 'keep-and-hang'] as const) {
    fake.failNext('post', fault);
    const started = Date.now();
    const outcome = await provider.deliver(request, {}, journal());
    t.equal(outcome.outcome, 'not_sent', `${fault}: not_sent`);
    t.ok(Date.now() - started < 3_000, `${fault}: the timeout holds`);
  }
  t.equal(fake.confirmed.length, 0);
  t.equal(fake.pending().length, 1, 'the kept request left pending');
  t.equal((await provider.deliver(request, {}, journal())).outcome, 'certified');
  t.equal(fake.confirmed.length, 1);
  t.equal(fake.pending().length, 0);
});

t.test('a failed status check or cancel of a pending request is not_sent and posts nothing', async (t) => {
  const fake = await startFakeEmecef(t);
  const provider = connector(fake);
  fake.failNext('post', 'keep-and-hang');
  await provider.deliver(sale(), {}, journal());
  for (const [route, fault] of [['status', 500], ['status', 'hang'], ['status', 'reset'], ['cancel', 503], ['cancel', 'hang']] as const) {
    fake.failNext(route, fault);
    t.match(await provider.deliver(sale(), {}, journal()), { outcome: 'not_sent', detail: route === 'status' ? /status/ : /cancel/ }, `${route} ${fault}`);
  }
  t.equal(fake.calls('post'), 1, 'nothing posted after the first');
});

t.test("e-MCF's limit of pending requests (error 1) is not a rejection: the pending requests are cancelled and the record goes again", async (t) => {
  const fake = await startFakeEmecef(t);
  const provider = connector(fake);
  fake.setMaxPending(0);
  const outcome = await provider.deliver(sale(), {}, journal());
  t.match(outcome, { outcome: 'not_sent', detail: /error 1: Le nombre maximum/ });
  t.equal(fake.calls('status'), 2, 'the status checked again to cancel what is pending');
  fake.setMaxPending(10);
  t.equal((await provider.deliver(sale(), {}, journal())).outcome, 'certified');
});

t.test("e-MCF's catch-all error 99 (\"erreur lors du traitement\") is not_sent, to be sent again; its 400 is rejected", async (t) => {
  // The fake refuses an item it cannot read with 99, the annex's catch-all.
  const fake = await startFakeEmecef(t);
  const provider = connector(fake);
  const broken = sale({ lines: [line(1, '', '1', 1000, '18')] });
  t.match(await provider.deliver(broken, {}, journal()), { outcome: 'not_sent', detail: /error 99: Erreur lors du traitement/ });
  fake.failNext('post', 400);
  t.match(await provider.deliver(sale(), {}, journal()), { outcome: 'rejected', reason: 'emecef_http_400' });
});

t.test('a refused token (401) is not_sent and says so; on a second confirm it is unknown', async (t) => {
  const fake = await startFakeEmecef(t);
  const provider = connector(fake);
  const wrong = sale({ credentials: { taxpayerNo: EMECEF_IFU, apiToken: 'eyJ.expired.token', pointOfSale: null, establishment: null } });
  t.strictSame(await provider.deliver(wrong, {}, journal()), { outcome: 'not_sent', detail: 'e-MECeF refused the token (401)' });
  t.equal(fake.calls('post'), 0);
  const request = sale();
  const kept = journal();
  fake.failNext('confirm', 'hang');
  await provider.deliver(request, {}, kept);
  t.match(await provider.deliver({ ...request, credentials: wrong.credentials }, kept.state(), kept), { outcome: 'unknown', detail: /refused the token \(401\)/ });
});

t.test('a journalled certification is answered again without calling e-MCF', async (t) => {
  const fake = await startFakeEmecef(t);
  const provider = connector(fake);
  const request = sale();
  const kept = journal();
  const first = await provider.deliver(request, {}, kept);
  const calls = ['status', 'post', 'confirm', 'cancel'].map((route) => fake.calls(route as 'status'));
  t.strictSame(await provider.deliver(request, kept.state(), kept), first);
  t.strictSame(['status', 'post', 'confirm', 'cancel'].map((route) => fake.calls(route as 'status')), calls);
});

t.test('the token never appears in any detail', async (t) => {
  const fake = await startFakeEmecef(t);
  const provider = connector(fake);
  const details: string[] = [];
  const collect = (outcome: DeliveryOutcome) => details.push(detailOf(outcome));
  const lost = journal();
  for (const [route, fault] of [['post', 'keep-and-hang'], ['cancel', 'reset'], ['status', 500], ['post', 503], ['confirm', 'keep-and-hang']] as const) {
    fake.failNext(route, fault);
    collect(await provider.deliver(sale(), {}, route === 'confirm' ? lost : journal()));
  }
  collect(await provider.deliver(sale(), lost.state(), lost));
  collect(await provider.deliver(sale({ totalXaf: 1 }), {}, journal()));
  collect(await provider.deliver(sale({ credentials: { taxpayerNo: EMECEF_IFU, apiToken: 'x', pointOfSale: null, establishment: null } }), {}, journal()));
  await fake.setDown(true);
  collect(await provider.deliver(sale(), {}, journal()));
  t.ok(details.filter(Boolean).length >= 8, 'details collected');
  noToken(t, details);
});

const noToken = (t: Test, details: string[]) => {
  for (const detail of details) t.notOk(detail.includes(EMECEF_TOKEN) || detail.includes('emecef-token-secret'), `no token in "${detail}"`);
};
