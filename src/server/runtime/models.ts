// Which models an organization's agents can use: the built-in offline model (always), the
// operator's default provider (set by environment, ids as configured) and the organization's own
// providers (ids `<provider slug>/<model id>`). Organization providers are read per call, scoped
// by organization in the query, with their credential opened only for the call.
import { env } from "@/env";
import type { Db } from "@/server/db";
import { deploymentFetch, guardedFetch } from "@/server/integration-urls";
import { openSecret } from "@/server/secret-box";
import {
  BUILTIN_MODEL_ID,
  type ChatModel,
  type CompletionModel,
  type EmbeddingModel,
  type ModelInfo,
} from "./model-types";
import type { ProviderConnection, ProviderKind } from "./provider-model";
import { KeptAtEpoch, lookupEpochSql } from "@/server/lookup-epoch";

export type {
  AnswerInput,
  ChatModel,
  CompletionModel,
  EmbeddingModel,
  Grade,
  ModelInfo,
  ModelTool,
  Passage,
  RouteCandidate,
  Turn,
} from "./model-types";
export { BUILTIN_MODEL_ID } from "./model-types";

const BUILTIN: ModelInfo = {
  id: BUILTIN_MODEL_ID,
  name: "Atrium offline (extractive, no network)",
  provider: "builtin",
  acceptsImages: false,
};

export interface OfferedModel {
  id: string;
  kind: "chat" | "embedding";
  /** Set in the provider's configuration; unset, an Anthropic model reads images and an OpenAI-compatible one does not. */
  images?: boolean;
}

/** Whether a provider's chat model reads images: as configured, else what its kind is known for. */
function readsImages(row: ProviderRow, model: OfferedModel): boolean {
  return model.images ?? row.kind === "anthropic";
}

/** The client, or a transaction (a publish checks its agent's model inside its own). */
type ProviderReader = Pick<Db, "modelProvider">;

export interface ProviderRow {
  slug: string;
  name: string;
  kind: string;
  baseUrl: string | null;
  apiKeyCiphertext: string | null;
  models: unknown;
}

function offered(row: ProviderRow): OfferedModel[] {
  return Array.isArray(row.models) ? (row.models as OfferedModel[]) : [];
}

function envModels(): ModelInfo[] {
  const config = env();
  return config.MODEL_PROVIDER_BASE_URL
    ? config.MODEL_PROVIDER_MODELS.map((id) => ({
        id,
        name: id,
        provider: config.MODEL_PROVIDER_NAME,
        acceptsImages: config.MODEL_PROVIDER_IMAGE_MODELS.includes(id),
      }))
    : [];
}

function envConnection(): ProviderConnection {
  const config = env();
  return {
    name: config.MODEL_PROVIDER_NAME,
    kind: "openai-compatible",
    baseURL: config.MODEL_PROVIDER_BASE_URL,
    apiKey: config.MODEL_PROVIDER_API_KEY,
    fetch: deploymentFetch,
  };
}

function connectionOf(row: ProviderRow): ProviderConnection {
  return {
    name: row.slug,
    kind: row.kind as ProviderKind,
    baseURL: row.baseUrl ?? undefined,
    apiKey: row.apiKeyCiphertext ? openSecret(row.apiKeyCiphertext) : undefined,
    fetch: guardedFetch,
  };
}

/** The organization's providers, oldest first, through Prisma: a transaction can read them too (publish checks). */
function providerRows(db: ProviderReader, organizationId: string, slug?: string): Promise<ProviderRow[]> {
  return db.modelProvider.findMany({
    where: { organizationId, ...(slug ? { slug } : {}) },
    select: { slug: true, name: true, kind: true, baseUrl: true, apiKeyCiphertext: true, models: true },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
}

/**
 * The same rows by a prepared statement on the pool, for the request paths that read them every
 * time (GET /models, every retrieval of a run), where a Prisma query costs several times the CPU;
 * with the organization's lookup epoch read in the same snapshot.
 */
async function pooledProviderRows(db: Db, organizationId: string): Promise<{ rows: ProviderRow[]; epoch: string }> {
  const { rows } = await db.pool.query<{ providers: ProviderRow[]; epoch: string }>({
    name: "atrium_model_providers",
    text: `select ${providerRowsJson("$1")} as providers, ${lookupEpochSql("$1")} as epoch`,
    values: [organizationId],
  });
  return { rows: rows[0]!.providers, epoch: rows[0]!.epoch };
}

/** The providers of up to 10,000 organizations, each at the epoch it was read at. */
const keptProviders = new KeptAtEpoch<ProviderRow[]>(10_000);

/**
 * The organization's providers, kept by the process at the lookup epoch they were read at: used
 * again only by a request whose key check read that same epoch (`epoch`), so a provider added,
 * changed or removed (which moves the epoch on at its commit) is seen by the next request in every
 * process. Without an epoch (console, portal, background work) they are read.
 */
async function keptProviderRows(db: Db, organizationId: string, epoch: string | undefined): Promise<ProviderRow[]> {
  const known = keptProviders.get(db, organizationId, epoch);
  if (known) return known;
  const read = await pooledProviderRows(db, organizationId);
  return keptProviders.keep(db, organizationId, read.rows, read.epoch);
}

/**
 * The organization's providers (`organization`: the statement's parameter for its id) as one json
 * array of ProviderRow, oldest first: read alone above, or beside something else, as a run's first
 * statement does (runtime/load.ts), saving the run a statement of their own.
 */
export function providerRowsJson(organization: string): string {
  return `(select coalesce(json_agg(json_build_object('slug', slug, 'name', name, 'kind', kind, 'baseUrl', base_url,
    'apiKeyCiphertext', api_key_ciphertext, 'models', models) order by created_at, id), '[]'::json)
    from model_providers where organization_id = ${organization})`;
}

/** The models every organization has: the built-in one and the operator's (no query). */
export function defaultModels(): ModelInfo[] {
  return [BUILTIN, ...envModels()];
}

function withChatModels(rows: ProviderRow[]): ModelInfo[] {
  const own = rows.flatMap((row) =>
    offered(row)
      .filter((model) => model.kind === "chat")
      .map((model) => ({
        id: `${row.slug}/${model.id}`,
        name: `${row.name}: ${model.id}`,
        provider: row.slug,
        acceptsImages: readsImages(row, model),
      })),
  );
  return [...defaultModels(), ...own];
}

/** Every model an organization's agents may name: the built-in one, the operator's, then the organization's chat models. */
export async function availableModels(db: ProviderReader, organizationId: string): Promise<ModelInfo[]> {
  return withChatModels(await providerRows(db, organizationId));
}

/**
 * availableModels outside a transaction, on the pool: what GET /models answers. `epoch`: the
 * organization's lookup epoch the request's key check read, when it had one.
 */
export async function listAvailableModels(db: Db, organizationId: string, epoch?: string): Promise<ModelInfo[]> {
  return withChatModels(await keptProviderRows(db, organizationId, epoch));
}

/** Whether an agent may name this model in the organization (the built-in and operator's models need no query). */
export async function isAvailableModel(db: ProviderReader, organizationId: string, id: string): Promise<boolean> {
  if (id === BUILTIN_MODEL_ID || envModels().some((model) => model.id === id)) return true;
  return (await organizationModel(db, organizationId, id)) !== null;
}

/** `known`: the organization's providers when already read (a run's, with its app: runtime/load.ts). */
async function organizationModel(
  db: ProviderReader,
  organizationId: string,
  id: string,
  known?: readonly ProviderRow[],
): Promise<{ row: ProviderRow; upstreamId: string; acceptsImages: boolean } | null> {
  const slash = id.indexOf("/");
  if (slash <= 0) return null;
  const slug = id.slice(0, slash);
  const [row] = known
    ? known.filter((candidate) => candidate.slug === slug)
    : await providerRows(db, organizationId, slug);
  const upstreamId = id.slice(slash + 1);
  const model = row && offered(row).find((offer) => offer.kind === "chat" && offer.id === upstreamId);
  return model ? { row, upstreamId, acceptsImages: readsImages(row, model) } : null;
}

// The model modules, loaded when first used and then kept: each import() goes through the module
// loader again (tens of µs), and a turn asks for a model once per member.
const importOffline = () => import("./offline-model");
const importProvider = () => import("./provider-model");
let offline: ReturnType<typeof importOffline> | undefined;
let provider: ReturnType<typeof importProvider> | undefined;
const offlineModule = () => (offline ??= importOffline());
const providerModule = () => (provider ??= importProvider());

/**
 * The model for an id the organization may use; unknown ids (a provider since removed) fall back
 * to the built-in model. `known`: the organization's providers when already read.
 */
export async function modelFor(
  db: Db,
  organizationId: string,
  id: string | undefined,
  known?: readonly ProviderRow[],
): Promise<ChatModel> {
  if (id && id !== BUILTIN_MODEL_ID) {
    const fromEnv = envModels().find((model) => model.id === id);
    if (fromEnv) {
      const { providerModel } = await providerModule();
      return providerModel(fromEnv, envConnection(), id);
    }
    const own = await organizationModel(db, organizationId, id, known);
    if (own) {
      const { providerModel } = await providerModule();
      return providerModel(
        { id, name: `${own.row.name}: ${own.upstreamId}`, provider: own.row.slug, acceptsImages: own.acceptsImages },
        connectionOf(own.row),
        own.upstreamId,
      );
    }
  }
  const { offlineModel } = await offlineModule();
  return offlineModel;
}

/** A run's model: from the providers read with its app when it has them, without a statement of its own. */
export function runModel(
  ctx: { db: Db; organizationId: string; providers?: readonly ProviderRow[] },
  id: string | undefined,
): Promise<ChatModel> {
  return modelFor(ctx.db, ctx.organizationId, id, ctx.providers);
}

/**
 * The organization's embedding model: the first embedding model of its providers, oldest
 * provider first; null when it has none (retrieval then stays full-text). `rows`: the
 * organization's providers when already read.
 */
export async function embeddingModelFor(
  db: Db,
  organizationId: string,
  rows?: ProviderRow[],
): Promise<EmbeddingModel | null> {
  const choice = embeddingChoice(rows ?? (await pooledProviderRows(db, organizationId)).rows);
  if (!choice) return null;
  const { providerEmbedding } = await providerModule();
  return providerEmbedding(connectionOf(choice.row), choice.modelId);
}

/** The key of the organization's embedding model (its `modelKey`), null when it has none; no credential is opened. */
export async function embeddingModelKey(db: ProviderReader, organizationId: string): Promise<string | null> {
  const choice = embeddingChoice(await providerRows(db, organizationId));
  return choice ? `${choice.row.slug}/${choice.modelId}` : null;
}

function embeddingChoice(rows: ProviderRow[]): { row: ProviderRow; modelId: string } | null {
  for (const row of rows) {
    const model = offered(row).find((m) => m.kind === "embedding");
    if (model && row.kind === "openai-compatible") return { row, modelId: model.id };
  }
  return null;
}

/**
 * The chat model that reranks the organization's search results: the first chat model of its
 * providers, oldest provider first (as for embeddings); null when it has none. The operator's
 * models are not the organization's to spend on its searches.
 */
export async function rerankModelFor(rows: ProviderRow[]): Promise<CompletionModel | null> {
  const row = rows.find(hasChatModel);
  if (!row) return null;
  const { providerCompletion } = await providerModule();
  return providerCompletion(connectionOf(row), offered(row).find((m) => m.kind === "chat")!.id);
}

/** Whether the provider offers a chat model (one that can rerank). */
export function hasChatModel(row: ProviderRow): boolean {
  return offered(row).some((m) => m.kind === "chat");
}
