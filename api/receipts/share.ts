import { createHmac } from 'node:crypto';
import { deriveSecret, safeEqual } from '../lib/secrets.ts';

/** How long a shared link works: long enough for a customer to open it from WhatsApp or SMS days later. */
export const SHARE_LINK_DAYS = 7;

/** What a share link names. Whether it still works also depends on the sale: a voided one revokes it. */
export interface ShareClaims {
  shopId: string;
  saleId: string;
  expiresAt: Date;
}

const UUID_BYTES = 16;
const EXPIRY_BYTES = 4;
const PAYLOAD_BYTES = 2 * UUID_BYTES + EXPIRY_BYTES;

const keys = new Map<string, Buffer>();

function signingKey(appKey: string): Buffer {
  let key = keys.get(appKey);
  if (!key) keys.set(appKey, (key = deriveSecret(appKey, 'sale share links')));
  return key;
}

const signatureOf = (appKey: string, payload: string) => createHmac('sha256', signingKey(appKey)).update(payload).digest('base64url');

const uuidBytes = (uuid: string) => Buffer.from(uuid.replace(/-/g, ''), 'hex');

function uuidOf(bytes: Buffer): string {
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * `<payload>.<signature>`, both base64url: the payload is the shop's and the sale's ids as bytes and
 * the expiry in Unix seconds (36 bytes), the signature an HMAC-SHA256 of the payload's text, short
 * enough for an SMS.
 */
export function signShareToken(appKey: string, claims: ShareClaims): string {
  const payload = Buffer.alloc(PAYLOAD_BYTES);
  uuidBytes(claims.shopId).copy(payload, 0);
  uuidBytes(claims.saleId).copy(payload, UUID_BYTES);
  payload.writeUInt32BE(Math.floor(claims.expiresAt.getTime() / 1000), 2 * UUID_BYTES);
  const text = payload.toString('base64url');
  return `${text}.${signatureOf(appKey, text)}`;
}

/**
 * The claims of a link we signed that has not expired; null for anything else, whatever went wrong.
 * The signature is compared as text in constant time: base64url decoding forgives stray characters,
 * so comparing decoded bytes would accept more than one spelling of a signature.
 */
export function verifyShareToken(appKey: string, token: string, now = new Date()): ShareClaims | null {
  const parts = token.split('.');
  if (parts.length !== 2) return null;
  const [text, signature] = parts as [string, string];
  if (!safeEqual(signature, signatureOf(appKey, text))) return null;
  const payload = Buffer.from(text, 'base64url');
  if (payload.length !== PAYLOAD_BYTES) return null;
  const expiresAt = new Date(payload.readUInt32BE(2 * UUID_BYTES) * 1000);
  if (expiresAt.getTime() <= now.getTime()) return null;
  return { shopId: uuidOf(payload.subarray(0, UUID_BYTES)), saleId: uuidOf(payload.subarray(UUID_BYTES, 2 * UUID_BYTES)), expiresAt };
}

/** The expiry of a link issued now: whole seconds, as the token carries it. */
export function shareExpiry(now = new Date()): Date {
  return new Date((Math.floor(now.getTime() / 1000) + SHARE_LINK_DAYS * 86_400) * 1000);
}
