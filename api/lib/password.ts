import bcrypt from 'bcryptjs';

export function hashPassword(password: string, rounds: number): Promise<string> {
  return bcrypt.hash(password, rounds);
}

export function verifyPassword(password: string, hash: string): Promise<boolean> {
  return bcrypt.compare(password, hash);
}

const dummyHashes = new Map<number, string>();

/** Compared against when no account matches, so that a wrong e-mail costs as long as a wrong password. */
export function dummyHash(rounds: number): string {
  let hash = dummyHashes.get(rounds);
  if (!hash) {
    hash = bcrypt.hashSync('not-a-real-password', rounds);
    dummyHashes.set(rounds, hash);
  }
  return hash;
}
