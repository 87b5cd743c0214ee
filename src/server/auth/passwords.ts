// Password hashing with argon2, loaded on the first sign-in or password set: its native library
// is about 10 MB of a server's memory that answering the API never needs.
const argon2 = () => import("@node-rs/argon2");

export async function hashPassword(password: string): Promise<string> {
  return (await argon2()).hash(password);
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  return (await argon2()).verify(passwordHash, password).catch(() => false);
}
