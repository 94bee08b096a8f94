/**
 * Bearer tokens: a token is taken on its claims only while its signature is ours and it has not
 * expired, also once this process has already accepted the same string (it keeps the tokens it
 * checked, by app key, until they expire).
 */
import t from 'tap';
import { signAccessToken, verifyAccessToken } from '../../api/auth/tokens.ts';

const APP_KEY = 'tokens-test-app-key-0123456789abcdef0123456789';
const OTHER_KEY = 'tokens-test-other-key-0123456789abcdef012345678';
const claims = { userId: crypto.randomUUID(), sessionId: crypto.randomUUID(), shopId: crypto.randomUUID() };

t.test('a token of ours is accepted, again and again, with its claims', async (t) => {
  const token = await signAccessToken(APP_KEY, claims, new Date(Date.now() + 60_000));
  t.strictSame(await verifyAccessToken(APP_KEY, token), claims);
  t.strictSame(await verifyAccessToken(APP_KEY, token), claims, 'the second time too');
});

t.test('the same string is refused under another app key, after being accepted under ours', async (t) => {
  const token = await signAccessToken(APP_KEY, claims, new Date(Date.now() + 60_000));
  t.ok(await verifyAccessToken(APP_KEY, token));
  t.equal(await verifyAccessToken(OTHER_KEY, token), null);
});

t.test('a token is refused once expired, though it was accepted before', async (t) => {
  const token = await signAccessToken(APP_KEY, claims, new Date(Date.now() + 1_000));
  t.strictSame(await verifyAccessToken(APP_KEY, token), claims);
  // exp is in whole seconds: at most a second and a bit later it has passed.
  await new Promise((resolve) => setTimeout(resolve, 2_100));
  t.equal(await verifyAccessToken(APP_KEY, token), null);
});

t.test('a token whose payload was changed is refused', async (t) => {
  const token = await signAccessToken(APP_KEY, claims, new Date(Date.now() + 60_000));
  await verifyAccessToken(APP_KEY, token);
  const [header, , signature] = token.split('.');
  const forged = Buffer.from(JSON.stringify({ sub: crypto.randomUUID(), sid: claims.sessionId, shop: claims.shopId, iss: 'pos-api', exp: 9_999_999_999 })).toString('base64url');
  t.equal(await verifyAccessToken(APP_KEY, `${header}.${forged}.${signature}`), null);
});
