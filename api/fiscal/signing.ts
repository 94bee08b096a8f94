/**
 * The Ed25519 key that signs fiscal archives (CONTRACT section 13), and a signer that signs a message
 * as it is written, so that an archive of any size is signed without being held in memory.
 *
 * The key follows APP_KEY: its 32-byte seed is HKDF-SHA256 of APP_KEY with the info below, derived
 * once per process. A new APP_KEY is a new key pair: the archives signed before keep verifying with
 * the public key they carry (and that GET /fiscal/public-key answered then), so keep that key with them.
 */
import { createHash, createPrivateKey, createPublicKey, hkdfSync, type KeyObject, randomBytes } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';

const KEY_INFO = 'pos fiscal archive ed25519';

/** A PKCS #8 Ed25519 private key is this DER prefix followed by the 32-byte seed (RFC 8410, section 7). */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** The order of the Ed25519 base point (RFC 8032, section 5.1). */
const L = 2n ** 252n + 27742317777372353535851937790883648493n;

export interface SigningKey {
  /** The raw 32-byte public key (RFC 8032's encoding of A). */
  publicKey: Buffer;
  /** The secret scalar `a` of the seed, clamped (RFC 8032, section 5.1.5). */
  scalar: bigint;
}

const littleEndian = (bytes: Uint8Array): bigint => BigInt(`0x${Buffer.from(bytes).reverse().toString('hex') || '0'}`);

function littleEndian32(value: bigint): Buffer {
  return Buffer.from(value.toString(16).padStart(64, '0'), 'hex').reverse();
}

/** The secret scalar of a seed: the first half of SHA-512(seed), clamped (RFC 8032, section 5.1.5, steps 1 to 3). */
function clampedScalar(seed: Uint8Array): bigint {
  const half = createHash('sha512').update(seed).digest().subarray(0, 32);
  half[0]! &= 248;
  half[31]! &= 127;
  half[31]! |= 64;
  return littleEndian(half);
}

/** The raw public key of a seed, computed by node's own (constant-time) Ed25519: `clampedScalar(seed)·B`, encoded. */
function publicKeyOfSeed(seed: Uint8Array): Buffer {
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  return Buffer.from(privateKey.export({ format: 'jwk' }).x!, 'base64url');
}

/** The key pair of a seed. */
export function signingKeyOfSeed(seed: Uint8Array): SigningKey {
  if (seed.length !== 32) throw new Error('An Ed25519 seed is 32 bytes.');
  return { publicKey: publicKeyOfSeed(seed), scalar: clampedScalar(seed) };
}

const keys = new Map<string, SigningKey>();

/** The archive key of this APP_KEY, derived once per process. */
export function archiveKey(appKey: string): SigningKey {
  let key = keys.get(appKey);
  if (!key) keys.set(appKey, (key = signingKeyOfSeed(new Uint8Array(hkdfSync('sha256', appKey, '', KEY_INFO, 32)))));
  return key;
}

/** A raw 32-byte Ed25519 public key as node's crypto takes it, for `crypto.verify(null, message, key, signature)`. */
export function publicKeyObject(raw: Uint8Array): KeyObject {
  if (raw.length !== 32) throw new Error('An Ed25519 public key is 32 bytes.');
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(raw).toString('base64url') }, format: 'jwk' });
}

export interface StreamingSigner {
  /** Adds the next bytes of the message. */
  update(bytes: Uint8Array): void;
  /** The 64-byte signature of every byte given (R || S); the signer is spent. */
  sign(): Buffer;
}

/**
 * An Ed25519 signer of a message given in pieces, whose signature any standard verifier accepts
 * (node's `crypto.verify(null, message, publicKey, signature)`, libsodium, RFC 8032's `verify`).
 *
 * An Ed25519 signature of M is R || S with R = r·B, k = SHA-512(R || A || M) mod L and
 * S = (r + k·a) mod L. RFC 8032 (section 5.1.6) derives the nonce r from the key and the message,
 * r = SHA-512(prefix || M), so that signing needs no randomness; but then M must be read twice, once for
 * r and once for k, and node's `crypto.sign` takes M whole. The verifier checks S·B = R + k·A only,
 * which holds for any r with R = r·B: a secret, fresh, uniformly random r gives a valid signature, as
 * in Schnorr's original scheme. So r is drawn before the first byte: 64 bytes of the system's CSPRNG
 * reduced modulo L (uniform to within 2^-260; a nonce with any bias would, over enough signatures,
 * give the key away to lattice and Fourier attacks), and R = r·B computed by @noble/curves (audited,
 * constant-time scalar multiplication: node's crypto offers none for a scalar of our own). M then only
 * feeds the SHA-512 of k, byte by byte as the archive is written, and S is computed at the end.
 *
 * r must never be reused or guessed (two signatures with one r give away a): it is new for each
 * signer and forgotten with it.
 */
export function streamingSigner(key: SigningKey): StreamingSigner {
  let r = 0n;
  while (r === 0n) r = littleEndian(randomBytes(64)) % L;
  const R = Buffer.from(ed25519.Point.BASE.multiply(r).toBytes());
  const k = createHash('sha512').update(R).update(key.publicKey);
  let spent = false;
  return {
    update(bytes) {
      if (spent) throw new Error('This signer has signed already.');
      k.update(bytes);
    },
    sign() {
      if (spent) throw new Error('This signer has signed already.');
      spent = true;
      const S = (r + (littleEndian(k.digest()) % L) * key.scalar) % L;
      return Buffer.concat([R, littleEndian32(S)]);
    },
  };
}
