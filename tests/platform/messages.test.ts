import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import t, { type Test } from 'tap';
import { errors } from '../../api/errors.ts';
import { hasFrench, localise } from '../../api/lib/messages.ts';
import { addStaff, createProduct, registerShop, type ShopFixture } from '../support/fixtures.ts';
import { pairDevice } from '../sync/sync-fixtures.ts';
import { EN, FR, INVALID_DATA } from '../support/replies.ts';
import { startService, type Reply } from '../support/service.ts';

const api = await startService(t);
const ROOT = path.resolve(import.meta.dirname, '../..');

const line = (unitPrice: number) => ({ name: 'Article libre', quantity: 1, unit_price_xaf: unitPrice, vat_rate: 0 });
const cash = (amount: number) => [{ method: 'cash', amount_xaf: amount }];

async function setLocale(token: string, locale: 'fr' | 'en'): Promise<void> {
  const reply = await api.request('PUT', '/profile', { token, body: { locale } });
  if (reply.status !== 200) throw new Error(`set locale failed: ${reply.status} ${JSON.stringify(reply.body)}`);
}

/** A shop whose owner speaks `locale` (French is the default: no change is made). */
async function shopIn(locale: 'fr' | 'en'): Promise<ShopFixture> {
  const shop = await registerShop(api);
  if (locale === 'en') await setLocale(shop.token, 'en');
  return shop;
}

/** A 422 on one input: its message and that input's messages. */
function refusal(t: Test, reply: Reply, field: string, code: string): string[] {
  t.equal(reply.status, 422, `422 ${JSON.stringify(reply.body)}`);
  t.equal(reply.body.code, code);
  return reply.body.errors?.[field] ?? [];
}

t.test('a French user gets French 403, 404, 409 and 422 answers, field messages included', async (t) => {
  const owner = await shopIn('fr');
  const cashier = await addStaff(api, owner, 'cashier');

  const forbidden = await api.request('POST', '/products', { token: cashier.token, body: { name: 'Savon', price_xaf: 500 } });
  t.strictSame([forbidden.status, forbidden.body], [403, FR.FORBIDDEN], '403');
  t.equal(forbidden.headers.get('content-language'), 'fr', 'the answer says it is French');

  const missing = await api.request('GET', `/products/${randomUUID()}`, { token: owner.token });
  t.strictSame([missing.status, missing.body], [404, FR.NOT_FOUND], '404');

  const invalid = await api.request('POST', '/products', { token: owner.token, body: { price_xaf: -1 } });
  t.equal(invalid.status, 422);
  t.equal(invalid.body.message, INVALID_DATA.fr, '422 message');
  t.strictSame(invalid.body.errors.name, ['Ce champ est obligatoire.'], 'a required field, in French');
  t.strictSame(invalid.body.errors.price_xaf, ['Doit être supérieur ou égal à 0.'], 'a bound, in French');

  const opened = await api.request('POST', '/shift/open', { token: cashier.token, body: { opening_float_xaf: 0 } });
  t.equal(opened.status, 201);
  const again = await api.request('POST', '/shift/open', { token: cashier.token, body: { opening_float_xaf: 0 } });
  t.strictSame([again.status, again.body], [409, { message: "Vous avez déjà une session de caisse ouverte : fermez-la avant d'en ouvrir une autre.", code: 'shift_already_open' }], '409');

  const product = await createProduct(api, owner.token, { price_xaf: 1000 }, 46);
  const tooMany = await api.request('POST', '/sales', { token: cashier.token, body: { items: [{ product_id: product.id, quantity: 50 }], payments: cash(50_000) } });
  t.strictSame(refusal(t, tooMany, 'items.0.quantity', 'insufficient_stock'), ['Seulement 46 en stock.'], 'a business rule on one input, in French');
  t.equal(tooMany.body.message, INVALID_DATA.fr);
});

t.test('an English user gets the CONTRACT\'s English texts, even when the request asks for French', async (t) => {
  const owner = await shopIn('en');
  const frenchPlease = { 'accept-language': 'fr-CM, fr;q=0.9' };

  const missing = await api.request('GET', `/products/${randomUUID()}`, { token: owner.token, headers: frenchPlease });
  t.strictSame([missing.status, missing.body], [404, EN.NOT_FOUND], '404 in English');
  t.equal(missing.headers.get('content-language'), 'en');

  const invalid = await api.request('POST', '/products', { token: owner.token, headers: frenchPlease, body: { price_xaf: -1 } });
  t.equal(invalid.body.message, INVALID_DATA.en);
  t.strictSame(invalid.body.errors.name, ['This field is required.']);

  const malformed = await api.request('POST', '/products', { token: owner.token, headers: frenchPlease, rawBody: '{"name": ' });
  t.strictSame([malformed.status, malformed.body], [400, EN.MALFORMED_JSON], 'malformed JSON in English');

  await api.ownerSql`update shops set trial_ends_at = now() - interval '1 day', subscription_ends_at = null where id = ${owner.shop.id}`;
  const unpaid = await api.request('POST', '/categories', { token: owner.token, headers: frenchPlease, body: { name: 'Boissons' } });
  t.strictSame([unpaid.status, unpaid.body], [402, EN.SUBSCRIPTION_REQUIRED], '402 in English');
});

t.test('a change of locale applies to the next answer, a read included', async (t) => {
  const owner = await shopIn('fr');
  const path = `/products/${randomUUID()}`;
  t.strictSame((await api.request('GET', path, { token: owner.token })).body, FR.NOT_FOUND, 'French first');
  await setLocale(owner.token, 'en');
  t.strictSame((await api.request('GET', path, { token: owner.token })).body, EN.NOT_FOUND, 'English at once');
  await setLocale(owner.token, 'fr');
  t.strictSame((await api.request('GET', path, { token: owner.token })).body, FR.NOT_FOUND, 'French again');
});

t.test('with no user, the request\'s Accept-Language decides: fr-CM is French', async (t) => {
  for (const header of ['fr-CM', 'fr-FR,en;q=0.8', 'en;q=0.5, fr;q=0.9', 'de, fr-CM;q=0.3']) {
    const reply = await api.request('GET', '/auth/me', { headers: { 'accept-language': header } });
    t.strictSame([reply.status, reply.body], [401, FR.UNAUTHENTICATED], header);
  }
  const login = await api.request('POST', '/auth/login', { headers: { 'accept-language': 'fr-CM' }, body: { email: 'nobody@example.cm', password: 'wrong-password' } });
  t.strictSame([login.status, login.body], [401, FR.INVALID_CREDENTIALS], 'wrong credentials');
  const invalid = await api.request('POST', '/auth/register', { headers: { 'accept-language': 'fr-CM' }, body: {} });
  t.equal(invalid.body.message, INVALID_DATA.fr);
  t.strictSame(invalid.body.errors.shop_name, ['Ce champ est obligatoire.']);
});

t.test('with no user, an Accept-Language of English or of neither language, or none, is answered in English', async (t) => {
  for (const header of [undefined, 'en-US', 'de-DE', 'fr;q=0, en', 'en-GB, fr;q=0.5', '*']) {
    const reply = await api.request('GET', '/auth/me', header === undefined ? {} : { headers: { 'accept-language': header } });
    t.strictSame([reply.status, reply.body], [401, EN.UNAUTHENTICATED], String(header));
    t.equal(reply.headers.get('content-language'), 'en');
  }
});

t.test('a token whose session is over is answered in the request\'s language, not its user\'s', async (t) => {
  const owner = await shopIn('fr');
  t.equal((await api.request('GET', '/auth/me', { token: owner.token })).status, 200);
  t.equal((await api.request('POST', '/auth/logout', { token: owner.token })).status, 204);
  t.strictSame((await api.request('GET', '/auth/me', { token: owner.token })).body, EN.UNAUTHENTICATED);
  t.strictSame((await api.request('GET', '/auth/me', { token: owner.token, headers: { 'accept-language': 'fr' } })).body, FR.UNAUTHENTICATED);
});

t.test('numbers in messages are written the caller\'s way: 46 (never 46.000), 1 046 / 1,046, 2,5 / 2.5', async (t) => {
  const cases: Array<[number, string, string]> = [
    [46, 'Seulement 46 en stock.', 'Only 46 in stock.'],
    [1046, 'Seulement 1 046 en stock.', 'Only 1,046 in stock.'],
    [2.5, 'Seulement 2,5 en stock.', 'Only 2.5 in stock.'],
  ];
  for (const locale of ['fr', 'en'] as const) {
    const owner = await shopIn(locale);
    for (const [onHand, fr, en] of cases) {
      const product = await createProduct(api, owner.token, { price_xaf: 10 }, onHand);
      const reply = await api.request('POST', '/sales', { token: owner.token, body: { items: [{ product_id: product.id, quantity: onHand + 1 }], payments: cash(100_000) } });
      t.strictSame(refusal(t, reply, 'items.0.quantity', 'insufficient_stock'), [locale === 'fr' ? fr : en], `${locale}: ${onHand} in stock`);
    }
  }
});

t.test('amounts in messages are written the caller\'s way: 149 750 FCFA / 149,750 FCFA', async (t) => {
  for (const locale of ['fr', 'en'] as const) {
    const owner = await shopIn(locale);
    const short = await api.request('POST', '/sales', { token: owner.token, body: { items: [line(150_000)], payments: cash(250) } });
    t.strictSame(refusal(t, short, 'payments', 'payment_insufficient'), [
      locale === 'fr'
        ? 'Il manque 149 750 FCFA aux paiements : seul un client nommé peut acheter à crédit.'
        : 'The payments are 149,750 FCFA short: only a named customer may buy on credit.',
    ], `${locale}: payment_insufficient`);

    const customer = await api.request('POST', '/customers', { token: owner.token, body: { name: 'Client à crédit', credit_ceiling_xaf: 100_000 } });
    t.equal(customer.status, 201);
    const over = await api.request('POST', '/sales', { token: owner.token, body: { customer_id: customer.body.data.id, items: [line(149_750)] } });
    t.strictSame(refusal(t, over, 'customer_id', 'credit_limit_exceeded'), [
      locale === 'fr'
        ? 'Le solde passerait à 149 750 FCFA, au-delà du plafond de crédit de 100 000 FCFA.'
        : 'This would bring the balance to 149,750 FCFA, over the credit ceiling of 100,000 FCFA.',
    ], `${locale}: credit_limit_exceeded`);
  }
});

t.test('a refused record of a sync push carries its messages in the caller\'s language', async (t) => {
  const owner = await shopIn('fr');
  const unknownProduct = { id: randomUUID(), items: [{ product_id: randomUUID(), quantity: 1 }], payments: cash(1000) };
  const french = await api.request('POST', '/sync/push', { token: owner.token, body: { sales: [unknownProduct] } });
  t.equal(french.status, 200);
  t.match(french.body.data.results[0], { status: 'rejected', code: 'validation_failed', message: INVALID_DATA.fr }, 'the user\'s French');
  t.strictSame(french.body.data.results[0].errors['items.0.product_id'], [localise('No such product in this shop.', 'fr')], 'its field message too');

  const device = await pairDevice(api, owner.token);
  const english = await api.request('POST', '/device/sync/push', {
    headers: { authorization: `Device ${device.token}`, 'accept-language': 'en-GB' },
    body: { sales: [{ ...unknownProduct, id: randomUUID() }] },
  });
  t.equal(english.status, 200);
  t.match(english.body.data.results[0], { status: 'rejected', message: INVALID_DATA.en }, 'a till has no user: its request\'s language');
  t.strictSame(english.body.data.results[0].errors['items.0.product_id'], ['No such product in this shop.']);
});

t.test('an English message with no French text goes out in English', async (t) => {
  t.equal(localise('A message nobody translated.', 'fr'), 'A message nobody translated.');
  t.equal(localise('A message nobody translated.', 'en'), 'A message nobody translated.');
});

/** The body of every file under `dir` whose name ends with `extension`. */
async function sources(dir: string, extension: string): Promise<Array<{ file: string; text: string }>> {
  const entries = await readdir(path.join(ROOT, dir), { recursive: true, withFileTypes: true });
  const files = entries.filter((e) => e.isFile() && e.name.endsWith(extension)).map((e) => path.join(e.parentPath, e.name));
  return Promise.all(files.map(async (file) => ({ file: path.relative(ROOT, file), text: await readFile(file, 'utf8') })));
}

/** The text of a call's arguments: from after `open` to its closing parenthesis. */
function callArguments(text: string, open: number): string {
  let depth = 1;
  let quote: string | null = null;
  for (let i = open; i < text.length; i++) {
    const ch = text[i]!;
    if (quote) {
      if (ch === quote && text[i - 1] !== '\\') quote = null;
    } else if (ch === "'" || ch === '`' || ch === '"') quote = ch;
    else if (ch === '(') depth++;
    else if (ch === ')' && --depth === 0) return text.slice(open, i);
  }
  throw new Error('unbalanced call');
}

/** Splits SQL or TypeScript arguments at the commas outside parentheses, brackets and strings. */
function splitArguments(args: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote: string | null = null;
  let start = 0;
  for (let i = 0; i < args.length; i++) {
    const ch = args[i]!;
    if (quote) {
      if (ch === quote && args[i - 1] !== '\\') quote = null;
    } else if (ch === "'" || ch === '`' || ch === '"') quote = ch;
    else if ('([{'.includes(ch)) depth++;
    else if (')]}'.includes(ch)) depth--;
    else if (ch === ',' && depth === 0) {
      parts.push(args.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push(args.slice(start).trim());
  return parts;
}

/** The SQL string literals of an expression, quotes undone. */
const sqlLiterals = (expression: string) => [...expression.matchAll(/'((?:[^']|'')*)'/g)].map((m) => m[1]!.replace(/''/g, "'"));

/**
 * The English sentences a raise_app_error message expression can give, with a sample value where
 * the procedure puts one: `format('Only %s in stock.', ...)`, `'... is ' || status || ' and ...'`,
 * `case ... then '...' else '...' end`.
 */
function sqlMessages(expression: string): string[] {
  if (/^format\(/i.test(expression)) {
    const [template = ''] = splitArguments(callArguments(expression, expression.indexOf('(') + 1));
    return [sqlLiterals(template)[0]!.replace(/%s/g, '12').replace(/%%/g, '%')];
  }
  if (/^case\b/i.test(expression)) return sqlLiterals(expression).filter((literal) => literal.includes(' '));
  return [expression.split('||').map((part) => (part.trim().startsWith("'") ? sqlLiterals(part)[0]! : 'open')).join('')];
}

t.test('every message the database raises has a French text', async (t) => {
  let count = 0;
  for (const { file, text } of await sources('db/functions', '.sql')) {
    for (const call of text.matchAll(/raise_app_error\(/g)) {
      const args = splitArguments(callArguments(text, call.index! + call[0].length));
      if (args[0]?.startsWith('p_status')) continue; // the function itself
      for (const message of sqlMessages(args[2]!)) {
        count++;
        t.ok(hasFrench(message), `${file}: ${message}`);
        t.not(localise(message, 'fr'), message, `${file}: ${message} is translated`);
      }
    }
  }
  t.ok(count > 80, `${count} messages checked`);
});

t.test('every message the routes give invalidField, AppError, errors.conflict and errors.invalid has a French text', async (t) => {
  let count = 0;
  const literal = (argument: string | undefined): string | undefined => {
    const match = /^(['`])([\s\S]*)\1$/.exec(argument ?? '');
    return match ? match[2]!.replace(/\\'/g, "'").replace(/\$\{[^}]*\}/g, '12') : undefined;
  };
  for (const { file, text } of await sources('api', '.ts')) {
    // The OpenAPI examples illustrate answers; the messages themselves are raised elsewhere.
    if (file.endsWith('examples.ts')) continue;
    const found: string[] = [];
    for (const [call, at] of [['invalidField(', 1], ['new AppError(', 2], ['errors.conflict(', 1]] as const) {
      for (let i = text.indexOf(call); i >= 0; i = text.indexOf(call, i + 1)) {
        const message = literal(splitArguments(callArguments(text, i + call.length))[at]);
        if (message !== undefined) found.push(message);
      }
    }
    // Messages put into a field's list: `key: ['...']`, `] = ['...']`, the promotion checks' `add(key, '...')`.
    for (const m of text.matchAll(/(?:\]|:) ?=? \['([A-Z](?:[^'\\]|\\.)* (?:[^'\\]|\\.)*\.)'\]/g)) found.push(m[1]!.replace(/\\'/g, "'"));
    for (const m of text.matchAll(/\badd\([^,]+, '((?:[^'\\]|\\.)*)'\)/g)) found.push(m[1]!.replace(/\\'/g, "'"));
    // The schemas' own messages: `message: '...'` and `.refine(..., '...')` / `.regex(..., '...')`.
    // (A success's notice, `{data: {message}}`, is no error: it is not one of them.)
    for (const m of text.matchAll(/(?<!(?:data: |example\()\{ )\bmessage: '((?:[^'\\]|\\.)*)'/g)) found.push(m[1]!.replace(/\\'/g, "'"));
    for (const m of text.matchAll(/\.(?:refine|regex)\([^\n]*, '((?:[^'\\]|\\.)*\.)'\)/g)) found.push(m[1]!.replace(/\\'/g, "'"));
    for (const message of found) {
      if (file === 'api/errors.ts' && message === 'Bad request.') continue;
      if (/^(must|Invalid configuration)/.test(message)) continue; // the start-up configuration's messages, never an answer
      // /readyz speaks to load balancers and operators, in English: 'Database unavailable.', 'Shutting down.'.
      if (['Database unavailable.', 'Shutting down.', "The server's record changed since this version: reconcile with it."].includes(message)) continue;
      count++;
      t.ok(hasFrench(message), `${file}: ${message}`);
    }
  }
  t.ok(count > 60, `${count} messages checked`);
});

t.test('every code of CONTRACT section 2 has a French text, and its English text is the CONTRACT\'s', async (t) => {
  const contract = [
    ['Malformed JSON.', errors.malformedJson()], ['Unauthenticated.', errors.unauthenticated()],
    ["Identifiants de l'appareil manquants.", errors.deviceUnauthenticated()], ['These credentials do not match our records.', errors.invalidCredentials()],
    ['Subscription required.', errors.subscriptionRequired()], ['This action is unauthorized.', errors.forbidden()], ['Not found.', errors.notFound()],
    ['No pairing request with this code.', errors.pairingNotFound()], ['Payload too large.', errors.payloadTooLarge()],
    ['The given data was invalid.', errors.invalid({})], ['Too many attempts.', errors.rateLimited()], ['Server Error.', errors.serverError()],
  ] as const;
  for (const [text, error] of contract) {
    t.equal(error.message, text, `${error.code}: the CONTRACT's text`);
    t.equal(localise(text, 'en'), text, `${error.code}: in English, the CONTRACT's text`);
    t.ok(hasFrench(text), `${error.code}: a French text`);
    // The CONTRACT gives device_unauthenticated a French text: it is that text in both languages.
    if (error.code === 'device_unauthenticated') t.equal(localise(text, 'fr'), text);
    else t.not(localise(text, 'fr'), text, `${error.code}: ${localise(text, 'fr')}`);
  }
  for (const key of Object.keys(EN) as Array<keyof typeof EN>) t.equal(localise(EN[key].message, 'fr'), FR[key].message, `the tests' French ${key} is the service's`);
  t.equal(localise(INVALID_DATA.en, 'fr'), INVALID_DATA.fr);
});
