/**
 * Shared links: a short random token stored with its shop, its sale or quote and its expiry
 * (`shared_links`), so that a link plus a short message fits one SMS. The public side finds the shop
 * from the token (`shared_link_find`, SECURITY DEFINER), then reads the record inside that shop's
 * row-level security, as any request of the shop would.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { Sql, Tx } from '../db.ts';
import { deriveSecret, safeEqual } from '../lib/secrets.ts';

/** How long a shared link works: long enough for a customer to open it from WhatsApp or SMS days later. */
export const SHARE_LINK_DAYS = 7;

/**
 * How long the link in a receipt's QR code works, from the sale: a paper receipt is what a customer
 * brings back for a return or a guarantee claim, which in a hardware shop runs a year. The page shows
 * no more than the paper itself does.
 */
export const RECEIPT_LINK_DAYS = 365;

/** 12 base62 characters: 62^12 is about 2^71, beyond guessing at any rate the public limit allows. */
export const TOKEN_LENGTH = 12;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 4 x 62: a byte at or above it is skipped, so that every character is equally likely (no modulo bias). */
const UNBIASED_BYTES = 4 * BASE62.length;

const isShareToken = (token: string) => token.length === TOKEN_LENGTH && [...token].every((ch) => BASE62.includes(ch));

/** TOKEN_LENGTH characters of BASE62 from the bytes `block(0)`, `block(1)`... give. */
function base62(block: (index: number) => Buffer): string {
  let token = '';
  for (let index = 0; token.length < TOKEN_LENGTH; index++) {
    for (const byte of block(index)) {
      if (byte < UNBIASED_BYTES) token += BASE62[byte % BASE62.length];
      if (token.length === TOKEN_LENGTH) break;
    }
  }
  return token;
}

/** A fresh token for POST /sales/{id}/share and POST /quotes/{id}/share. */
export const newShareToken = () => base62(() => randomBytes(16));

const secrets = new Map<string, Buffer>();

/** deriveSecret, once per key and purpose. */
function secretFor(appKey: string, purpose: string): Buffer {
  const name = `${purpose}\n${appKey}`;
  let secret = secrets.get(name);
  if (!secret) secrets.set(name, (secret = deriveSecret(appKey, purpose)));
  return secret;
}

/**
 * The token of a sale's receipt link, the same at every print (a reprint gives the same bytes): an
 * HMAC of the sale's id under a key of its own, so that nobody can work it out from the id alone.
 */
export function receiptLinkToken(appKey: string, saleId: string): string {
  const key = secretFor(appKey, 'receipt qr links');
  return base62((index) => createHmac('sha256', key).update(`${saleId}:${index}`).digest());
}

/** The expiry of a link shared now: whole seconds, as every link has shown it since the signed form. */
export function shareExpiry(now = new Date()): Date {
  return new Date((Math.floor(now.getTime() / 1000) + SHARE_LINK_DAYS * 86_400) * 1000);
}

/** What a link opens: one shop's sale or quote. */
export type SharedRecord = { shopId: string } & ({ saleId: string; quoteId: null } | { saleId: null; quoteId: string });

/**
 * Records a link to the transaction's shop's sale or quote; the caller has read the record in that
 * shop. A random token never meets another (2^-71 per pair), so a clash is left to fail as the
 * primary key's error rather than retried.
 */
export async function recordSharedLink(tx: Tx, token: string, record: { saleId: string } | { quoteId: string }, expiresAt: Date): Promise<void> {
  const saleId = 'saleId' in record ? record.saleId : null;
  const quoteId = 'quoteId' in record ? record.quoteId : null;
  await tx`insert into shared_links (token, shop_id, sale_id, quote_id, expires_at) values (${token}, app_shop_id(), ${saleId}, ${quoteId}, ${expiresAt})`;
}

/**
 * Records the link of the sale's receipt once, whenever the receipt is printed: the token from the
 * sale's id, the expiry from its date, so every print records the same row. A sale the transaction's
 * shop does not have records nothing.
 */
export async function recordReceiptLink(tx: Tx, token: string, saleId: string): Promise<void> {
  await tx`
    insert into shared_links (token, shop_id, sale_id, expires_at)
    select ${token}, s.shop_id, s.id, s.created_at + make_interval(days => ${RECEIPT_LINK_DAYS}) from sales s where s.id = ${saleId}
    on conflict (token) do nothing`;
}

/**
 * The shop and record a token names, in a transaction with no shop yet (the caller then enters the
 * shop's tenancy); null for a token unknown or expired, and for anything that is no token at all.
 * A signed token of the earlier form (`<payload>.<signature>`) still opens its sale until it expires.
 */
export async function findSharedLink(tx: Tx | Sql, appKey: string, token: string): Promise<SharedRecord | null> {
  if (token.includes('.')) return verifySignedToken(appKey, token);
  if (!isShareToken(token)) return null;
  const [link] = await tx<{ shop_id: string; sale_id: string | null; quote_id: string | null }[]>`select shop_id, sale_id, quote_id from shared_link_find(${token})`;
  if (!link) return null;
  return link.sale_id ? { shopId: link.shop_id, saleId: link.sale_id, quoteId: null } : { shopId: link.shop_id, saleId: null, quoteId: link.quote_id! };
}

// The signed form, made until short links replaced it: a link sent by WhatsApp or SMS in the 7 days
// before stays in customers' phones, so it is still read (never made) until the last one expires.

const UUID_BYTES = 16;
const PAYLOAD_BYTES = 2 * UUID_BYTES + 4;
const signatureOf = (appKey: string, payload: string) => createHmac('sha256', secretFor(appKey, 'sale share links')).update(payload).digest('base64url');

function uuidOf(bytes: Buffer): string {
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * `<payload>.<signature>`, both base64url: the shop's and the sale's ids as bytes and the expiry in
 * Unix seconds, signed with HMAC-SHA256. The signature is compared as text in constant time: base64url
 * decoding forgives stray characters, so comparing decoded bytes would accept more than one spelling.
 */
function verifySignedToken(appKey: string, token: string, now = new Date()): SharedRecord | null {
  const parts = token.split('.');
  if (parts.length !== 2) return null;
  const [text, signature] = parts as [string, string];
  if (!safeEqual(signature, signatureOf(appKey, text))) return null;
  const payload = Buffer.from(text, 'base64url');
  if (payload.length !== PAYLOAD_BYTES) return null;
  if (payload.readUInt32BE(2 * UUID_BYTES) * 1000 <= now.getTime()) return null;
  return { shopId: uuidOf(payload.subarray(0, UUID_BYTES)), saleId: uuidOf(payload.subarray(UUID_BYTES, 2 * UUID_BYTES)), quoteId: null };
}
