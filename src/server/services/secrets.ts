// Key rotation for stored credentials: after the operator moves the old key to
// ATRIUM_SECRET_KEY_PREVIOUS and sets a new ATRIUM_SECRET_KEY, every credential sealed with an
// older key is opened and sealed again with the new one (admin CLI `secrets rotate`). Then the
// previous key can be removed.
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import { canSealSecrets, openSecret, sealedWithOldKey, sealSecret } from "@/server/secret-box";

export async function rotateSecrets(db: Db): Promise<{ resealed: number }> {
  if (!canSealSecrets()) throw new AppError("invalid_request", "Set ATRIUM_SECRET_KEY (and the old key as ATRIUM_SECRET_KEY_PREVIOUS) before rotating.");
  let resealed = 0;
  const providers = await db.modelProvider.findMany({ where: { apiKeyCiphertext: { not: null } }, select: { id: true, apiKeyCiphertext: true } });
  for (const row of providers) {
    if (!sealedWithOldKey(row.apiKeyCiphertext!)) continue;
    await db.modelProvider.update({ where: { id: row.id }, data: { apiKeyCiphertext: sealSecret(openSecret(row.apiKeyCiphertext!), "apiKey") } });
    resealed++;
  }
  const connections = await db.mcpConnection.findMany({ where: { headersCiphertext: { not: null } }, select: { id: true, headersCiphertext: true } });
  for (const row of connections) {
    if (!sealedWithOldKey(row.headersCiphertext!)) continue;
    await db.mcpConnection.update({ where: { id: row.id }, data: { headersCiphertext: sealSecret(openSecret(row.headersCiphertext!), "headers") } });
    resealed++;
  }
  const ssoConnections = await db.ssoConnection.findMany({ select: { id: true, clientSecretCiphertext: true } });
  for (const row of ssoConnections) {
    if (!sealedWithOldKey(row.clientSecretCiphertext)) continue;
    await db.ssoConnection.update({ where: { id: row.id }, data: { clientSecretCiphertext: sealSecret(openSecret(row.clientSecretCiphertext), "clientSecret") } });
    resealed++;
  }
  return { resealed };
}
