// An organization's model providers: admins connect them (console, admin CLI; never API keys),
// agents name their models as `<slug>/<model id>`. The API key is sealed before it is stored
// and never returned; the base URL passes the integration URL guard when written and per call.
import { Prisma } from "@/generated/prisma/client";
import type { CreateModelProviderInput, ModelProvider, UpdateModelProviderInput } from "@/schemas/org/integration";
import type { Actor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { AppError, invalidRequest, isUniqueViolation } from "@/server/errors";
import { changesBetween, recorded, recordEvent, SECRET_CHANGED } from "./events";
import { requireIntegrationUrl } from "@/server/integration-urls";
import { dropStaleEmbeddings } from "@/server/jobs/embedding";
import { sealSecret } from "@/server/secret-box";
import { pick } from "@/lib/pick";

const NOT_FOUND = "No model provider with that id in this organization.";
const SLUG_TAKEN = "The organization already has a provider with this slug.";

type ProviderRow = Prisma.ModelProviderGetPayload<object>;

function toModelProvider(row: ProviderRow): ModelProvider {
  return {
    ...pick(row, ["id", "slug", "name"]),
    kind: row.kind as ModelProvider["kind"],
    baseUrl: row.baseUrl,
    hasApiKey: row.apiKeyCiphertext !== null,
    models: row.models as ModelProvider["models"],
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

function checkShape(kind: string, baseUrl: string | null | undefined, models: { id: string; kind: string }[]): void {
  if (kind === "openai-compatible" && !baseUrl)
    throw invalidRequest([{ path: "baseUrl", message: "Required for an OpenAI-compatible provider" }]);
  const problems = models.flatMap((model, index) => [
    ...(kind === "anthropic" && model.kind === "embedding"
      ? [{ path: `models.${index}.kind`, message: "Anthropic offers no embedding models" }]
      : []),
    ...(models.findIndex((other) => other.id === model.id && other.kind === model.kind) !== index
      ? [{ path: `models.${index}.id`, message: "Listed twice" }]
      : []),
  ]);
  if (problems.length > 0) throw invalidRequest(problems);
}

export const listModelProviders = guarded(
  { may: "settings" },
  async function listModelProviders(db: Db, actor: Actor): Promise<ModelProvider[]> {
    const rows = await db.modelProvider.findMany({
      where: { organizationId: actor.organizationId },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    });
    return rows.map(toModelProvider);
  },
);

export const createModelProvider = guarded(
  { may: "settings" },
  async function createModelProvider(db: Db, actor: Actor, input: CreateModelProviderInput): Promise<ModelProvider> {
    checkShape(input.kind, input.baseUrl, input.models);
    if (input.baseUrl) await requireIntegrationUrl(input.baseUrl, "baseUrl");
    const apiKeyCiphertext = input.apiKey ? sealSecret(input.apiKey, "apiKey") : null;
    try {
      const create = (tx: Pick<Db, "modelProvider">) =>
        tx.modelProvider.create({
          data: {
            organizationId: actor.organizationId,
            slug: input.slug,
            name: input.name,
            kind: input.kind,
            baseUrl: input.baseUrl ?? null,
            apiKeyCiphertext,
            models: input.models,
          },
        });
      const row = await recorded(db, actor, create, (created) => ({
        action: "model_provider.create",
        target: { type: "model_provider", id: created.id, label: created.name },
        changes: {
          kind: [null, created.kind],
          baseUrl: [null, created.baseUrl],
          ...(apiKeyCiphertext ? { apiKey: [null, SECRET_CHANGED] as const } : {}),
        },
      }));
      return toModelProvider(row);
    } catch (error) {
      if (isUniqueViolation(error)) throw new AppError("conflict", SLUG_TAKEN);
      throw error;
    }
  },
);

async function ownProvider(db: Db, actor: Actor, providerId: string): Promise<ProviderRow> {
  const row = await db.modelProvider.findFirst({ where: { id: providerId, organizationId: actor.organizationId } });
  if (!row) throw new AppError("not_found", NOT_FOUND);
  return row;
}

export const updateModelProvider = guarded(
  { may: "settings" },
  async function updateModelProvider(db: Db, actor: Actor, input: UpdateModelProviderInput): Promise<ModelProvider> {
    const row = await ownProvider(db, actor, input.providerId);
    const baseUrl = input.baseUrl === undefined ? row.baseUrl : input.baseUrl;
    checkShape(row.kind, baseUrl, input.models ?? (row.models as { id: string; kind: string }[]));
    if (input.baseUrl) await requireIntegrationUrl(input.baseUrl, "baseUrl");
    const apiKeyCiphertext =
      input.apiKey === undefined ? undefined : input.apiKey === null ? null : sealSecret(input.apiKey, "apiKey");
    const update = (tx: Pick<Db, "modelProvider">) =>
      tx.modelProvider.update({
        where: { id: row.id, organizationId: actor.organizationId },
        data: {
          ...(input.name !== undefined ? { name: input.name } : {}),
          ...(input.baseUrl !== undefined ? { baseUrl: input.baseUrl } : {}),
          ...(apiKeyCiphertext !== undefined ? { apiKeyCiphertext } : {}),
          ...(input.models !== undefined ? { models: input.models } : {}),
        },
      });
    const changes = {
      ...changesBetween(row, input, ["name", "baseUrl", "models"]),
      ...(apiKeyCiphertext !== undefined ? { apiKey: [SECRET_CHANGED, SECRET_CHANGED] as const } : {}),
    };
    const updated = await recorded(db, actor, update, (after) => ({
      action: "model_provider.update",
      target: { type: "model_provider", id: after.id, label: after.name },
      changes,
    }));
    // The organization's embedding model may have changed (a new provider, added last, cannot change it).
    await dropStaleEmbeddings(db, actor.organizationId);
    return toModelProvider(updated);
  },
);

/** Agents naming its models fall back to the built-in model until their drafts are changed. */
export const deleteModelProvider = guarded(
  { may: "settings" },
  async function deleteModelProvider(db: Db, actor: Actor, input: { providerId: string }): Promise<ModelProvider> {
    const row = await ownProvider(db, actor, input.providerId);
    await db.$transaction([
      db.modelProvider.delete({ where: { id: row.id, organizationId: actor.organizationId } }),
      recordEvent(db, actor, {
        action: "model_provider.delete",
        target: { type: "model_provider", id: row.id, label: row.name },
      }),
    ]);
    await dropStaleEmbeddings(db, actor.organizationId);
    return toModelProvider(row);
  },
);
