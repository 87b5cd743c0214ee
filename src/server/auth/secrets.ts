import { createHash, randomBytes } from "node:crypto";

/** A random token with 256 bits of entropy, URL-safe. */
export function randomToken(prefix = ""): string {
  return prefix + randomBytes(32).toString("base64url");
}

/** High-entropy secrets (API keys, session tokens) are stored as SHA-256; passwords use argon2. */
export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}
