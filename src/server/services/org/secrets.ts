// Key rotation for stored credentials: after the operator moves the old key to
// ATRIUM_SECRET_KEY_PREVIOUS and sets a new ATRIUM_SECRET_KEY, every credential sealed with an
// older key is opened and sealed again with the new one (admin CLI `secrets rotate`). Then the
// previous key can be removed. Webhook signing secrets stored readable before sealing are sealed
// here too, and at every start (sealWebhookSecrets).
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import { openWebhookSecret, WEBHOOK_SECRET_PREFIX } from "@/server/jobs/webhook-delivery";
import { canSealSecrets, openSecret, sealedWithOldKey, sealSecret } from "@/server/secret-box";

export async function rotateSecrets(db: Db): Promise<{ resealed: number }> {
  if (!canSealSecrets())
    throw new AppError(
      "invalid_request",
      "Set ATRIUM_SECRET_KEY (and the old key as ATRIUM_SECRET_KEY_PREVIOUS) before rotating.",
    );
  let resealed = 0;
  const providers = await db.modelProvider.findMany({
    where: { apiKeyCiphertext: { not: null } },
    select: { id: true, apiKeyCiphertext: true },
  });
  for (const row of providers) {
    if (!sealedWithOldKey(row.apiKeyCiphertext!)) continue;
    // Unscoped: the operator's key rotation covers every organization.
    await db.modelProvider.update({
      where: { id: row.id },
      data: { apiKeyCiphertext: sealSecret(openSecret(row.apiKeyCiphertext!), "apiKey") },
    });
    resealed++;
  }
  const connections = await db.mcpConnection.findMany({
    where: { headersCiphertext: { not: null } },
    select: { id: true, headersCiphertext: true },
  });
  for (const row of connections) {
    if (!sealedWithOldKey(row.headersCiphertext!)) continue;
    // Unscoped: the operator's key rotation covers every organization.
    await db.mcpConnection.update({
      where: { id: row.id },
      data: { headersCiphertext: sealSecret(openSecret(row.headersCiphertext!), "headers") },
    });
    resealed++;
  }
  const ssoConnections = await db.ssoConnection.findMany({
    where: { clientSecretCiphertext: { not: null } },
    select: { id: true, clientSecretCiphertext: true },
  });
  for (const row of ssoConnections) {
    if (!row.clientSecretCiphertext || !sealedWithOldKey(row.clientSecretCiphertext)) continue;
    // Unscoped: the operator's key rotation covers every organization.
    await db.ssoConnection.update({
      where: { id: row.id },
      data: { clientSecretCiphertext: sealSecret(openSecret(row.clientSecretCiphertext), "clientSecret") },
    });
    resealed++;
  }
  const factors = await db.memberTotp.findMany({ select: { memberId: true, secretCiphertext: true } });
  for (const row of factors) {
    if (!sealedWithOldKey(row.secretCiphertext)) continue;
    // Unscoped: the operator's key rotation covers every organization.
    await db.memberTotp.updateMany({
      where: { memberId: row.memberId, secretCiphertext: row.secretCiphertext },
      data: { secretCiphertext: sealSecret(openSecret(row.secretCiphertext), "secret") },
    });
    resealed++;
  }
  const endpoints = await db.webhookEndpoint.findMany({ select: { id: true, secret: true, previousSecret: true } });
  for (const row of endpoints) {
    const stale = [row.secret, row.previousSecret].some(
      (value) => value !== null && !value.startsWith(WEBHOOK_SECRET_PREFIX) && sealedWithOldKey(value),
    );
    if (!stale) continue;
    const reseal = (value: string | null) => (value === null ? null : sealSecret(openWebhookSecret(value), "secret"));
    // Unscoped: the operator's key rotation covers every organization.
    await db.webhookEndpoint.updateMany({
      where: { id: row.id, secret: row.secret },
      data: { secret: reseal(row.secret)!, previousSecret: reseal(row.previousSecret) },
    });
    resealed++;
  }
  const portals = await db.portal.findMany({
    where: { embedSecret: { not: null } },
    select: { id: true, embedSecret: true, embedPreviousSecret: true },
  });
  for (const row of portals) {
    const stale = [row.embedSecret, row.embedPreviousSecret].some((value) => value !== null && sealedWithOldKey(value));
    if (!stale) continue;
    const reseal = (value: string | null) => (value === null ? null : sealSecret(openSecret(value), "secret"));
    // Unscoped: the operator's key rotation covers every organization.
    await db.portal.updateMany({
      where: { id: row.id, embedSecret: row.embedSecret },
      data: { embedSecret: reseal(row.embedSecret), embedPreviousSecret: reseal(row.embedPreviousSecret) },
    });
    resealed++;
  }
  return { resealed: resealed + (await sealWebhookSecrets(db)) };
}

/**
 * Seals the webhook signing secrets stored readable before they were sealed (each process runs
 * this at start, src/cli/http-server.ts): a no-op without ATRIUM_SECRET_KEY or when none is left.
 * Each row changes only if it still holds what was read, so processes starting together agree.
 */
export async function sealWebhookSecrets(db: Db): Promise<number> {
  if (!canSealSecrets()) return 0;
  const readable = await db.webhookEndpoint.findMany({
    where: {
      OR: [
        { secret: { startsWith: WEBHOOK_SECRET_PREFIX } },
        { previousSecret: { startsWith: WEBHOOK_SECRET_PREFIX } },
      ],
    },
    select: { id: true, secret: true, previousSecret: true },
  });
  let sealed = 0;
  const seal = (value: string | null) =>
    value !== null && value.startsWith(WEBHOOK_SECRET_PREFIX) ? sealSecret(value, "secret") : value;
  for (const row of readable) {
    // Unscoped: the operator's key rotation covers every organization.
    const { count } = await db.webhookEndpoint.updateMany({
      where: { id: row.id, secret: row.secret, previousSecret: row.previousSecret },
      data: { secret: seal(row.secret)!, previousSecret: seal(row.previousSecret) },
    });
    sealed += count;
  }
  return sealed;
}
