import t from 'tap';
import { createProduct, staffedShop, waitFor } from '../support/fixtures.ts';
import { startMailbox, startMailWorker } from '../support/mailbox.ts';
import { startService } from '../support/service.ts';
import { CRONTAB } from '../../worker/worker.ts';

const api = await startService(t);
const mailbox = await startMailbox(t);
await startMailWorker(t, api, mailbox);

/**
 * The daily digest runs in a real graphile-worker: alerts__daily_digest (hourly on the crontab) claims
 * each shop's day after 07:00 local time and queues alerts__send_digest, which mails the owners and
 * managers. The shops of these tests are put in a time zone where it is now about noon (or, for the
 * early-morning test, about 03:00), whatever the hour the tests run at.
 */

/** An IANA zone (fixed offset) whose local hour is now about `hour`. */
function zoneAt(hour: number): string {
  const offset = ((hour - new Date().getUTCHours() + 36) % 24) - 12; // -12..11
  return offset === 0 ? 'Etc/GMT' : offset > 0 ? `Etc/GMT-${offset}` : `Etc/GMT+${-offset}`;
}

async function digestShop(locale: 'fr' | 'en', hour = 12) {
  const shop = await staffedShop(api);
  await api.ownerSql`update shops set timezone = ${zoneAt(hour)}, locale = ${locale} where id = ${shop.owner.shop.id}`;
  return shop;
}

/** Runs the hourly task once and waits until it and the digests it queued are done. */
async function runDigest(times = 1): Promise<void> {
  for (let i = 0; i < times; i++) await api.ownerSql`select graphile_worker.add_job('alerts__daily_digest', '{}'::json)`;
  await waitFor(async () => {
    const [row] = await api.ownerSql<{ n: number }[]>`
      select count(*)::int as n from graphile_worker.jobs where task_identifier in ('alerts__daily_digest', 'alerts__send_digest')`;
    return row!.n === 0;
  }, 'the digest jobs');
}

const mailsTo = (email: string) => mailbox.received.filter((mail) => mail.to.includes(email));

t.test('the digest task is on the crontab, hourly, with a pinned id', async (t) => {
  t.match(CRONTAB, /^5 \* \* \* \* alerts__daily_digest \?id=alerts_daily_digest$/m);
});

t.test('a shop with alerts: its owners and managers get one digest in French, the cashier none', async (t) => {
  const { owner, manager, cashier } = await digestShop('fr');
  await createProduct(api, owner.token, { name: 'Savon de Marseille' });
  await runDigest();
  const mail = await mailbox.next(owner.email);
  t.match(mail.subject, /alerte/);
  t.match(mail.text, /En rupture \(1\)/);
  t.match(mail.text, /Savon de Marseille : 0/, 'French punctuation');
  t.match((await mailbox.next(manager.email)).subject, /alerte/);
  t.strictSame(mailsTo(cashier.email), [], 'cashiers are not written to');
});

t.test('in English for an English-speaking shop, with expired and expiring batches', async (t) => {
  const { owner } = await digestShop('en');
  const product = await createProduct(api, owner.token, { name: 'Eye drops' });
  const [today] = await api.ownerSql<{ day: string }[]>`select (now() at time zone timezone)::date::text as day from shops where id = ${owner.shop.id}`;
  await api.request('POST', '/purchases', {
    token: owner.token,
    body: { items: [{ product_id: product.id, quantity: 3, unit_cost_xaf: 100, batch_number: 'EX-1', expiry_date: today!.day }] },
  });
  await runDigest();
  const mail = await mailbox.next(owner.email);
  t.match(mail.subject, /stock alert/);
  t.match(mail.text, /Expiring within 30 days \(1\)/);
  t.match(mail.text, /Eye drops: 3 \(EX-1\), expires on /, "English punctuation");
});

t.test('once a day: run again, or twice at once, the digest is not sent again', async (t) => {
  const { owner } = await digestShop('fr');
  await createProduct(api, owner.token, { name: 'Riz parfumé' });
  await runDigest();
  await mailbox.next(owner.email);
  await runDigest(2);
  await new Promise((resolve) => setTimeout(resolve, 500));
  t.equal(mailsTo(owner.email).length, 1, 'one mail');
  const [row] = await api.ownerSql<{ n: number }[]>`select count(*)::int as n from alert_digests where shop_id = ${owner.shop.id}`;
  t.equal(row!.n, 1, 'one claimed day');
});

t.test('nothing to say, nothing sent; before 07:00 local time the day is not yet claimed', async (t) => {
  const quiet = await digestShop('fr');
  const early = await digestShop('fr', 3);
  await createProduct(api, early.owner.token, { name: 'Lait en poudre' });
  await runDigest();
  await new Promise((resolve) => setTimeout(resolve, 500));
  t.strictSame(mailsTo(quiet.owner.email), [], 'a shop without alerts gets no mail');
  t.strictSame(mailsTo(early.owner.email), [], 'too early');
  const claimed = await api.ownerSql<{ shop_id: string }[]>`select shop_id from alert_digests where shop_id in (${quiet.owner.shop.id}, ${early.owner.shop.id})`;
  t.strictSame(claimed.map((row) => row.shop_id), [quiet.owner.shop.id], 'the quiet shop\'s day is done, the early one\'s is not');
});
