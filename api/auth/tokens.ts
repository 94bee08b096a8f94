import { jwtVerify, SignJWT } from 'jose';
import { deriveSecret } from '../lib/secrets.ts';

const ALGORITHM = 'HS256';
const ISSUER = 'pos-api';

/** What a bearer token carries. The session row it names decides whether it is still good. */
export interface TokenClaims {
  userId: string;
  sessionId: string;
  shopId: string | null;
}

const signingKeys = new Map<string, Promise<CryptoKey>>();

/**
 * The HMAC key of the app key, imported once: given raw bytes, jose imports them into WebCrypto at
 * every sign and verify: a seventh of the busy CPU of the API under load (bench, --cpu-prof).
 */
function signingKey(appKey: string): Promise<CryptoKey> {
  let key = signingKeys.get(appKey);
  if (!key) {
    key = crypto.subtle.importKey('raw', new Uint8Array(deriveSecret(appKey, 'jwt signing')), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
    signingKeys.set(appKey, key);
  }
  return key;
}

export async function signAccessToken(appKey: string, claims: TokenClaims, expiresAt: Date): Promise<string> {
  return new SignJWT({ sid: claims.sessionId, shop: claims.shopId })
    .setProtectedHeader({ alg: ALGORITHM })
    .setSubject(claims.userId)
    .setIssuer(ISSUER)
    .setIssuedAt()
    .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
    .sign(await signingKey(appKey));
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Tokens whose signature this process has checked, by app key, until they expire; the oldest go first. */
const verified = new Map<string, Map<string, { claims: TokenClaims; expiresAtMs: number }>>();
const VERIFIED_MAX = 10_000;

/**
 * The claims of a well-signed, unexpired token of ours; null for anything else. A till sends the same
 * token with every request: once its signature has been checked, the same string is taken on its
 * claims until it expires (verifying again in WebCrypto was a tenth of the API's CPU per sale). What
 * a token may do is still decided by its session, read at every request.
 */
export async function verifyAccessToken(appKey: string, token: string): Promise<TokenClaims | null> {
  let known = verified.get(appKey);
  const hit = known?.get(token);
  if (hit) {
    if (hit.expiresAtMs > Date.now()) return hit.claims;
    known!.delete(token);
  }
  try {
    const { payload } = await jwtVerify(token, await signingKey(appKey), { algorithms: [ALGORITHM], issuer: ISSUER });
    const { sub, sid, shop, exp } = payload;
    if (typeof sub !== 'string' || !UUID.test(sub) || typeof sid !== 'string' || !UUID.test(sid)) return null;
    if (shop !== null && (typeof shop !== 'string' || !UUID.test(shop))) return null;
    const claims: TokenClaims = { userId: sub, sessionId: sid, shopId: shop };
    if (typeof exp === 'number') {
      if (!known) verified.set(appKey, (known = new Map()));
      if (known.size >= VERIFIED_MAX) known.delete(known.keys().next().value!);
      known.set(token, { claims, expiresAtMs: exp * 1000 });
    }
    return claims;
  } catch {
    return null;
  }
}
