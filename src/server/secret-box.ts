// Credentials organizations store (model provider API keys, MCP connection headers) are sealed
// with AES-256-GCM under ATRIUM_SECRET_KEY before they reach the database, and opened only when
// a run needs them. A sealed value names the key it was sealed with (a short fingerprint), so
// that after a rotation values sealed with ATRIUM_SECRET_KEY_PREVIOUS still open until
// `secrets rotate` has sealed them again with the new key.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { link, mkdir, readFile, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { env, provideEnv, type Env } from "@/env";
import { AppError, invalidRequest } from "@/server/errors";

const VERSION = "v1";

interface SealingKey {
  fingerprint: string;
  key: Buffer;
}

function sealingKey(secret: string): SealingKey {
  // Any string of 32+ characters: hashing gives the 256-bit key whatever its encoding.
  const key = createHash("sha256").update(`atrium-secret-box:${secret}`).digest();
  return { key, fingerprint: createHash("sha256").update(key).digest("hex").slice(0, 8) };
}

function currentKey(): SealingKey | null {
  const secret = env().ATRIUM_SECRET_KEY;
  return secret ? sealingKey(secret) : null;
}

function readableKeys(): SealingKey[] {
  const config = env();
  return [config.ATRIUM_SECRET_KEY, config.ATRIUM_SECRET_KEY_PREVIOUS]
    .filter((s): s is string => Boolean(s))
    .map(sealingKey);
}

/** Where the embedded default keeps the key it generated: beside its database, readable by its owner only. */
export function secretKeyFile(dataDir: string): string {
  return path.join(dataDir, "secret-key");
}

/**
 * The key of the embedded default (no DATABASE_URL: one machine, DATA_DIR its own): without
 * ATRIUM_SECRET_KEY, the first start generates one (256 random bits) into DATA_DIR/secret-key
 * (mode 0600), says so once in the log, and every start uses it. With DATABASE_URL (several
 * processes, which must share one key) the operator sets it; until then storing credentials is
 * refused and the start says so. Returns the key in use, if any.
 */
export async function provideSecretKey(
  config: Pick<Env, "DATABASE_URL" | "ATRIUM_SECRET_KEY" | "dataDir">,
  log: { info(message: string): void; warn(message: string): void },
): Promise<string | undefined> {
  if (config.ATRIUM_SECRET_KEY) return config.ATRIUM_SECRET_KEY;
  if (config.DATABASE_URL) {
    log.warn(
      "ATRIUM_SECRET_KEY is not set: webhook endpoints, SSO connections, model provider keys and MCP headers cannot be stored until it is (docs/operations.md)",
    );
    return undefined;
  }
  const file = secretKeyFile(config.dataDir);
  let key = await readFile(file, "utf8").then(
    (text) => text.trim(),
    (error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return undefined;
      throw error;
    },
  );
  if (key === undefined) {
    await mkdir(config.dataDir, { recursive: true });
    const generated = randomBytes(32).toString("base64url");
    // Written whole beside it, then linked into place: a second process starting at the same
    // moment finds either no key or the first one's whole key, never a file still being written.
    const written = `${file}.${process.pid}.${randomBytes(4).toString("hex")}`;
    await writeFile(written, `${generated}\n`, { mode: 0o600, flag: "wx" });
    const created = await link(written, file)
      .then(
        () => true,
        (error: NodeJS.ErrnoException) => {
          if (error.code === "EEXIST") return false;
          throw error;
        },
      )
      .finally(() => unlink(written));
    key = created ? generated : (await readFile(file, "utf8")).trim();
    if (created)
      log.info(
        `ATRIUM_SECRET_KEY is not set: generated one in ${file} (mode 0600) to seal stored credentials; keep that file with the database, or set ATRIUM_SECRET_KEY`,
      );
  }
  if (key.length < 32)
    throw new Error(`${file} holds no usable key (32 characters or more); delete it or set ATRIUM_SECRET_KEY`);
  provideEnv({ ATRIUM_SECRET_KEY: key });
  return key;
}

/** Whether credentials can be stored on this installation. */
export function canSealSecrets(): boolean {
  return currentKey() !== null;
}

/** Seals a credential; refuses, naming the setting, when the installation has no key. */
export function sealSecret(plain: string, field: string): string {
  const sealing = currentKey();
  if (!sealing) {
    throw invalidRequest([
      {
        path: field,
        message: "This installation cannot store credentials: the operator has not set ATRIUM_SECRET_KEY",
      },
    ]);
  }
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", sealing.key, iv);
  const sealed = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return [
    VERSION,
    sealing.fingerprint,
    iv.toString("base64"),
    cipher.getAuthTag().toString("base64"),
    sealed.toString("base64"),
  ].join(":");
}

/** Opens a sealed credential; throws (a server fault, never shown with the value) when no key fits. */
export function openSecret(sealed: string): string {
  const [version, fingerprint, iv, tag, body] = sealed.split(":");
  const sealing = readableKeys().find((candidate) => candidate.fingerprint === fingerprint);
  if (version !== VERSION || !sealing || !iv || !tag || body === undefined) {
    throw new AppError(
      "server_error",
      "A stored credential cannot be opened with this installation's ATRIUM_SECRET_KEY (or ATRIUM_SECRET_KEY_PREVIOUS).",
    );
  }
  const decipher = createDecipheriv("aes-256-gcm", sealing.key, Buffer.from(iv, "base64"));
  decipher.setAuthTag(Buffer.from(tag, "base64"));
  return Buffer.concat([decipher.update(Buffer.from(body, "base64")), decipher.final()]).toString("utf8");
}

/** Whether a sealed value needs sealing again with the current key (after a rotation). */
export function sealedWithOldKey(sealed: string): boolean {
  const sealing = currentKey();
  return sealing !== null && sealed.split(":")[1] !== sealing.fingerprint;
}
