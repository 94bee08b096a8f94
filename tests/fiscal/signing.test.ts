import { createPrivateKey, randomBytes, sign, verify } from 'node:crypto';
import t from 'tap';
import { archiveKey, publicKeyObject, signingKeyOfSeed, streamingSigner } from '../../api/fiscal/signing.ts';
import { TEST_APP_KEY } from '../support/env.ts';

/**
 * The archive signer (api/fiscal/signing.ts): a message given in pieces is signed in one pass, and the
 * signature is a standard Ed25519 one, checked here with node's own verifier.
 */

const key = archiveKey(TEST_APP_KEY);
const publicKey = publicKeyObject(key.publicKey);

/** Signs `message` with a new signer, fed in pieces of `piece` bytes. */
function signInPieces(message: Buffer, piece: number): Buffer {
  const signer = streamingSigner(key);
  for (let at = 0; at < message.length; at += piece) signer.update(message.subarray(at, at + piece));
  return signer.sign();
}

const MESSAGES = [Buffer.alloc(0), Buffer.from('a'), Buffer.from('{"chain_no":1}\n'), randomBytes(1_000), randomBytes(200_003)];

t.test('a message signed in pieces verifies with the standard Ed25519 verifier', async (t) => {
  for (const message of MESSAGES) {
    for (const piece of [1, 7, 500, 1 << 20]) {
      if (piece === 1 && message.length > 1_000) continue;
      const signature = signInPieces(message, piece);
      t.equal(signature.length, 64, `${message.length} bytes in pieces of ${piece}: 64 bytes`);
      t.ok(verify(null, message, publicKey, signature), `${message.length} bytes in pieces of ${piece}: verifies`);
    }
  }
});

t.test('a changed byte of the message or of the signature fails verification', async (t) => {
  const message = randomBytes(4_096);
  const signature = signInPieces(message, 500);
  for (const at of [0, 1_000, 4_095]) {
    const changed = Buffer.from(message);
    changed[at]! ^= 0x01;
    t.notOk(verify(null, changed, publicKey, signature), `message byte ${at} flipped`);
  }
  for (const at of [0, 31, 32, 63]) {
    const forged = Buffer.from(signature);
    forged[at]! ^= 0x01;
    t.notOk(verify(null, message, publicKey, forged), `signature byte ${at} flipped`);
  }
  t.notOk(verify(null, Buffer.concat([message, Buffer.from('\n')]), publicKey, signature), 'a byte added');
  t.notOk(verify(null, message.subarray(1), publicKey, signature), 'a byte removed');
});

t.test('another key does not verify the signature', async (t) => {
  const message = randomBytes(256);
  const other = publicKeyObject(archiveKey(`${TEST_APP_KEY}-rotated`).publicKey);
  t.notOk(verify(null, message, other, signInPieces(message, 64)));
});

t.test('each signature takes a fresh nonce: the same message never signs the same way twice', async (t) => {
  const message = Buffer.from('the same archive');
  const signatures = new Set(Array.from({ length: 20 }, () => signInPieces(message, 4).toString('hex')));
  t.equal(signatures.size, 20);
  const nonces = new Set([...signatures].map((signature) => signature.slice(0, 64)));
  t.equal(nonces.size, 20, 'R differs every time');
});

t.test('the key is that of node\'s Ed25519 for the same seed, and follows APP_KEY', async (t) => {
  const seed = randomBytes(32);
  const ours = signingKeyOfSeed(seed);
  const node = createPrivateKey({ key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]), format: 'der', type: 'pkcs8' });
  const message = Buffer.from('signed by node');
  t.ok(verify(null, message, publicKeyObject(ours.publicKey), sign(null, message, node)), 'node\'s own signature verifies with our public key');
  t.equal(archiveKey(TEST_APP_KEY).publicKey.toString('base64'), key.publicKey.toString('base64'), 'the same APP_KEY gives the same key');
  t.not(archiveKey(`${TEST_APP_KEY}-rotated`).publicKey.toString('base64'), key.publicKey.toString('base64'), 'another APP_KEY another key');
});

t.test('a signer signs once', async (t) => {
  const signer = streamingSigner(key);
  signer.update(Buffer.from('x'));
  signer.sign();
  t.throws(() => signer.sign());
  t.throws(() => signer.update(Buffer.from('y')));
});
