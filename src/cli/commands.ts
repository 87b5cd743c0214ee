// The admin CLI's commands, one row each, as the MCP server's tools are (src/server/mcp/tools.ts):
// the flags a command takes, the organization it acts in (as the installation's operator), the
// service input made from the flags and checked with the API's schema from src/schemas, the
// service it calls and what it prints. runCommandLine turns a command line into the one JSON
// object printed and the exit code; src/cli/admin.ts only gives it the database and the process.
import { readFile } from "node:fs/promises";
import { z } from "zod";
import { ApiKeyIdInput, CreateApiKeyInput } from "@/schemas/identity/api-key";
import { Role, SCOPES, Scope } from "@/schemas/identity/auth";
import { CreateInvitationInput, MemberIdInput } from "@/schemas/identity/member";
import { SetSamlConnectionInput, SetSsoConnectionInput } from "@/schemas/identity/sso";
import { ListReviewsInput, RejectReviewInput, ReviewIdInput } from "@/schemas/knowledge/review";
import {
  CreateMcpConnectionInput,
  CreateModelProviderInput,
  McpConnectionIdInput,
  ModelProviderIdInput,
  ProviderKind,
  Slug,
  UpdateMcpConnectionInput,
  UpdateModelProviderInput,
} from "@/schemas/org/integration";
import { ModelPriceIdInput, SetModelPriceInput } from "@/schemas/org/model-prices";
import { AccessMode, OrganizationSettings, OrganizationSettingsUpdate, Plan } from "@/schemas/org/organization";
import { CreateWebhookEndpointInput, WebhookEndpointIdInput } from "@/schemas/org/webhooks";
import { CreatePortalInput, ListMailInput, PortalSignIn, UpdatePortalInput } from "@/schemas/portal/portal";
import { CreateTierPlanInput, EndUserIdInput, TierPlanIdInput } from "@/schemas/provisioning/provisioning";
import { ListQuery, nameText, Uuid } from "@/schemas/common";
import { MAX_CREDITS, MAX_PAGE_SIZE, MAX_PASSWORD_CHARS, MAX_PLAN_CAP } from "@/schemas/limits";
import type { OperatorActor } from "@/server/auth/actor";
import { assertStorableText } from "@/server/bounds";
import type { Db } from "@/server/db";
import { AppError, invalidRequest, problemsFromIssues, toAppError, type Problem } from "@/server/errors";
import { createApiKey, revokeApiKey } from "@/server/services/identity/api-keys";
import { addMember, removeMember, resetMemberPassword } from "@/server/services/identity/members";
import { resetMemberMfa } from "@/server/services/identity/mfa";
import { setSamlConnection } from "@/server/services/identity/saml";
import { getSsoConnection, removeSsoConnection, setSsoConnection } from "@/server/services/identity/sso";
import { approveReview, listReviews, rejectReview } from "@/server/services/knowledge/reviews";
import { listMail } from "@/server/services/org/mail";
import {
  createMcpConnection,
  deleteMcpConnection,
  listMcpConnections,
  listMcpConnectionTools,
  updateMcpConnection,
} from "@/server/services/org/mcp-connections";
import { deleteModelPrice, listModelPrices, setModelPrice } from "@/server/services/org/model-prices";
import {
  createModelProvider,
  deleteModelProvider,
  listModelProviders,
  updateModelProvider,
} from "@/server/services/org/model-providers";
import { createOrganization, getOrganization, updateOrganization } from "@/server/services/org/organizations";
import { rotateSecrets } from "@/server/services/org/secrets";
import { seedDemo } from "@/server/services/org/setup";
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookEndpoints,
} from "@/server/services/org/webhooks";
import { createPortal, updatePortal } from "@/server/services/portal/portals";
import { deleteEndUser, revokeEndUser } from "@/server/services/provisioning/end-user-changes";
import { linkProcessorSubscription } from "@/server/services/provisioning/end-user-subscriptions";
import { archiveTierPlan, createTierPlan } from "@/server/services/provisioning/tier-plans";

type FlagShape = Record<string, z.ZodType>;
type FlagValues<S extends FlagShape> = z.output<z.ZodObject<S, z.core.$strict>>;

/** A row of the table as the command line runs it: `flags` checked by parseFlags, then `run`. */
export interface Command {
  flags: FlagShape;
  run(db: Db, flags: Record<string, unknown>): Promise<object>;
}

// ---------------------------------------------------------------------------------------------
// Flags

const id = z.uuid();
const bool = z.enum(["true", "false"]).transform((value) => value === "true");
const credits = z.coerce.number().int().min(0).max(MAX_CREDITS);
const cap = z.union([z.literal("none").transform(() => null), z.coerce.number().int().min(0).max(MAX_PLAN_CAP)]);
const operatorPassword = z.string().min(8).max(MAX_PASSWORD_CHARS);
const pageSize = z.coerce.number().int().min(1).max(MAX_PAGE_SIZE);
const present = z.literal(true);
const commaList = z.string().transform((value) =>
  value
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean),
);

/** `--name value` pairs and bare `--switch` flags, checked against the command's flags. */
export function parseFlags<S extends FlagShape>(spec: S, args: string[]): FlagValues<S> {
  const raw: Record<string, unknown> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith("--"))
      throw new AppError("invalid_request", `Unexpected argument "${arg}"; flags look like --name value.`);
    const name = arg.slice(2);
    const next = args[i + 1];
    if (next === undefined || next.startsWith("--")) raw[name] = true;
    else {
      raw[name] = next;
      i++;
    }
  }
  assertStorableText(raw, "--");
  const parsed = z.strictObject(spec).safeParse(raw);
  if (!parsed.success) {
    const problems = problemsFromIssues(parsed.error.issues).map((p) => ({ ...p, path: `--${p.path}` }));
    throw invalidRequest(problems);
  }
  return parsed.data;
}

// ---------------------------------------------------------------------------------------------
// The organization a command acts in

function operator(organizationId: string): OperatorActor {
  return {
    kind: "operator",
    organizationId,
    origin: { door: "cli", requestId: null, ipAddress: null, userAgent: null },
  };
}

/** The rows a command names by id (`--member`, `--key`, …), with their names in `not_found`. */
const OWNED_ROWS = {
  member: "member",
  apiKey: "API key",
  tierPlan: "tier plan",
  portal: "portal",
  endUser: "end user",
  review: "review",
  webhookEndpoint: "webhook endpoint",
  modelProvider: "model provider",
  mcpConnection: "MCP connection",
} as const;

/** Where a command acts: in the organization `--org` names, or in the one owning the row a flag names. */
type Target<S extends FlagShape> = "org" | { row: keyof typeof OWNED_ROWS; flag: keyof S & string };

/** Each of these tables has an id and an organizationId; Prisma's delegates share no callable type. */
interface OwnedRowTable {
  findUnique(args: {
    where: { id: string };
    select: { organizationId: true };
  }): Promise<{ organizationId: string } | null>;
}

async function operatorOf<S extends FlagShape>(
  db: Db,
  target: Target<S>,
  flags: Record<string, unknown>,
): Promise<OperatorActor> {
  if (target === "org") {
    const organizationId = flags.org as string;
    if (!(await db.organization.findUnique({ where: { id: organizationId }, select: { id: true } })))
      throw new AppError("not_found", `No organization ${organizationId}.`);
    return operator(organizationId);
  }
  const rowId = flags[target.flag] as string;
  const table = db[target.row] as unknown as OwnedRowTable;
  const row = await table.findUnique({ where: { id: rowId }, select: { organizationId: true } });
  if (!row) throw new AppError("not_found", `No ${OWNED_ROWS[target.row]} ${rowId}.`);
  return operator(row.organizationId);
}

// ---------------------------------------------------------------------------------------------
// The service input

/** What a command's `input` may read besides the flags: the database, and the operator it acts as. */
interface InOrganization {
  db: Db;
  actor: OperatorActor;
}

interface InputSpec<S extends FlagShape, In, I, Context = InOrganization> {
  flags: S;
  /** The API's shape of the service input; a refusal names the flags the refused fields came from. */
  schema?: z.ZodType<I, In>;
  /**
   * The flag each input field comes from: the input when there is no `input`, the flag a refusal
   * names either way (a field not listed is named by its kebab-case flag, when there is one).
   */
  fields?: { [K in keyof In]?: keyof S & string };
  /** The input made from the flags, where it is more than `fields` (after the organization is found). */
  input?: (flags: FlagValues<S>, context: Context) => In | Promise<In>;
}

const kebabCase = (field: string) => field.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);

function flagNaming(spec: { flags: FlagShape; fields?: object }, field: string): string {
  const flag = (spec.fields as Record<string, string> | undefined)?.[field] ?? kebabCase(field);
  return flag in spec.flags ? `--${flag}` : field;
}

async function serviceInput<S extends FlagShape, In, I, Context>(
  spec: InputSpec<S, In, I, Context>,
  flags: FlagValues<S>,
  context: Context,
): Promise<I> {
  const fromFields = () =>
    Object.fromEntries(
      Object.entries(spec.fields ?? {}).flatMap(([field, flag]) => {
        const value = (flags as Record<string, unknown>)[flag as string];
        return value === undefined ? [] : [[field, value]];
      }),
    ) as In;
  const raw = spec.input ? await spec.input(flags, context) : fromFields();
  if (!spec.schema) return raw as unknown as I;
  const parsed = spec.schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const problems: Problem[] = problemsFromIssues(parsed.error.issues).map((problem) => ({
    ...problem,
    path: flagNaming(spec, problem.path.split(".")[0]!),
  }));
  throw invalidRequest(problems);
}

// ---------------------------------------------------------------------------------------------
// Rows

interface CommandSpec<S extends FlagShape, In, I, R> extends InputSpec<S, In, I> {
  target: Target<S>;
  service: (db: Db, actor: OperatorActor, input: I) => Promise<R>;
  /** What it prints; the service's answer as it is when absent. */
  print?: (result: R, flags: FlagValues<S>) => object;
}

/** A command acting in one organization. */
function command<S extends FlagShape, In, I, R>(spec: CommandSpec<S, In, I, R>): Command {
  return {
    flags: spec.flags,
    async run(db, untyped) {
      const flags = untyped as FlagValues<S>;
      const actor = await operatorOf(db, spec.target, untyped);
      const result = await spec.service(db, actor, await serviceInput(spec, flags, { db, actor }));
      return spec.print ? spec.print(result, flags) : (result as object);
    },
  };
}

/** A command of the installation itself, in no organization. */
function installationCommand<S extends FlagShape, In, I, R>(
  spec: InputSpec<S, In, I, { db: Db }> & { service: (db: Db, input: I) => Promise<R>; print?: (result: R) => object },
): Command {
  return {
    flags: spec.flags,
    async run(db, untyped) {
      const result = await spec.service(db, await serviceInput(spec, untyped as FlagValues<S>, { db }));
      return spec.print ? spec.print(result) : (result as object);
    },
  };
}

/** The settings `org update` takes: flag → field of OrganizationSettingsUpdate. */
const ORGANIZATION_FLAGS = {
  plan: ["plan", Plan],
  credits: ["credits", credits],
  "review-agent-writes": ["reviewAgentWrites", bool],
  "access-mode": ["accessMode", AccessMode],
  "api-enabled": ["apiEnabled", bool],
  "apps-api-enabled": ["appsApiEnabled", bool],
  "mcp-enabled": ["mcpEnabled", bool],
  "groups-enabled": ["groupsEnabled", bool],
  "quality-checker": ["qualityChecker", bool],
  "password-sign-in": ["passwordSignIn", bool],
  "require-mfa": ["requireMfa", bool],
  "max-knowledgebases": ["maxKnowledgebases", cap],
  "max-sources-per-knowledgebase": ["maxSourcesPerKnowledgebase", cap],
} as const satisfies Record<string, readonly [keyof OrganizationSettingsUpdate, z.ZodType]>;
type OrganizationFlag = keyof typeof ORGANIZATION_FLAGS;
const organizationFlags = Object.entries(ORGANIZATION_FLAGS) as [OrganizationFlag, readonly [string, z.ZodType]][];

/** `--headers '{"Name":"value"}'` as the header list the connection schemas read. */
function headerList(json: string): { name: string; value: string }[] {
  let headers: unknown;
  try {
    headers = JSON.parse(json);
  } catch {
    headers = undefined;
  }
  const isTextRecord = (value: unknown): value is Record<string, string> =>
    Boolean(value) &&
    typeof value === "object" &&
    !Array.isArray(value) &&
    Object.values(value as object).every((item) => typeof item === "string");
  if (!isTextRecord(headers))
    throw invalidRequest([
      { path: "--headers", message: 'A JSON object of header names and values, e.g. {"Authorization":"Bearer …"}' },
    ]);
  return Object.entries(headers).map(([name, value]) => ({ name, value }));
}

/** An empty header value keeps the value stored under that name (the update schema's header without a value). */
const keepingEmptyValues = (headers: { name: string; value: string }[]) =>
  headers.map(({ name, value }) => (value === "" ? { name } : { name, value }));

type ModelKind = "chat" | "embedding";
const offered = (ids: string[] | undefined, kind: ModelKind) => (ids ?? []).map((modelId) => ({ id: modelId, kind }));

/** A key as `key create` and `seed demo` print it: the secret once, beside what identifies the key. */
const keyView = (key: { id: string; secret: string; kind: string; scopes: string[]; memberId: string | null }) => ({
  id: key.id,
  secret: key.secret,
  kind: key.kind,
  scopes: key.scopes,
  memberId: key.memberId,
});

const providerModelFlags = { models: commaList.optional(), "embedding-models": commaList.optional() };
const urlFlag = z.string();
const modelFlag = z.string().min(1).max(200);

export const COMMANDS: Record<string, Command> = {
  "org create": installationCommand({
    flags: { name: nameText, plan: Plan.optional(), credits: credits.optional() },
    schema: OrganizationSettings.pick({ name: true, plan: true, credits: true }).partial({ plan: true, credits: true }),
    fields: { name: "name", plan: "plan", credits: "credits" },
    service: createOrganization,
    print: (organization) => ({ organization }),
  }),
  "org show": command({
    flags: { org: id },
    target: "org",
    service: (db, actor) => getOrganization(db, actor),
    print: (organization) => ({ organization }),
  }),
  "org update": command({
    flags: {
      org: id,
      ...(Object.fromEntries(organizationFlags.map(([flag, [, schema]]) => [flag, schema.optional()])) as Record<
        OrganizationFlag,
        z.ZodOptional<z.ZodType>
      >),
    },
    target: "org",
    schema: OrganizationSettingsUpdate,
    fields: Object.fromEntries(organizationFlags.map(([flag, [field]]) => [field, flag])) as Partial<
      Record<keyof OrganizationSettingsUpdate, OrganizationFlag>
    >,
    service: updateOrganization,
    print: (organization) => ({ organization }),
  }),
  "member add": command({
    flags: { org: id, email: z.email(), role: Role.optional(), password: operatorPassword.optional() },
    target: "org",
    // The invitation's shape (role member by default) with the password the operator may set.
    schema: CreateInvitationInput.extend({ password: operatorPassword.optional() }),
    fields: { email: "email", role: "role", password: "password" },
    service: addMember,
    // temporaryPassword only when the person got none.
    print: ({ member, temporaryPassword }) => ({
      member: { ...member, ...(temporaryPassword ? { temporaryPassword } : {}) },
    }),
  }),
  "member remove": command({
    flags: { member: id },
    target: { row: "member", flag: "member" },
    schema: MemberIdInput,
    fields: { memberId: "member" },
    service: removeMember,
    print: (member) => ({ member }),
  }),
  "member reset-password": command({
    flags: { member: id },
    target: { row: "member", flag: "member" },
    schema: MemberIdInput,
    fields: { memberId: "member" },
    service: resetMemberPassword,
    print: ({ member, temporaryPassword }) => ({ member: { ...member, temporaryPassword } }),
  }),
  "member reset-mfa": command({
    flags: { member: id },
    target: { row: "member", flag: "member" },
    schema: MemberIdInput,
    fields: { memberId: "member" },
    service: resetMemberMfa,
  }),
  "key create": command({
    flags: {
      org: id,
      member: id.optional(),
      scopes: commaList.pipe(z.array(Scope).min(1)).optional(),
      "all-scopes": present.optional(),
      name: nameText.max(100).optional(),
    },
    target: "org",
    schema: CreateApiKeyInput.extend({ memberId: Uuid.optional() }),
    fields: { memberId: "member" },
    input: (f) => {
      if (f.scopes && f["all-scopes"])
        throw new AppError("invalid_request", "Give --scopes or --all-scopes, not both.");
      return {
        name: f.name ?? (f.member ? "Personal key (CLI)" : "Organization key (CLI)"),
        kind: f.member ? ("personal" as const) : ("organization" as const),
        scopes: f.scopes ?? [...SCOPES],
        memberId: f.member,
      };
    },
    service: createApiKey,
    print: (key) => ({ key: { ...keyView(key), name: key.name, prefix: key.prefix } }),
  }),
  "key revoke": command({
    flags: { key: id },
    target: { row: "apiKey", flag: "key" },
    schema: ApiKeyIdInput,
    fields: { keyId: "key" },
    service: revokeApiKey,
    print: (key) => ({ key }),
  }),
  "plan create": command({
    flags: { org: id, name: nameText, credits: credits.optional(), "with-group": present.optional() },
    target: "org",
    schema: CreateTierPlanInput,
    fields: { name: "name", creditAllowance: "credits", withGroup: "with-group" },
    service: createTierPlan,
  }),
  "plan archive": command({
    flags: { plan: id },
    target: { row: "tierPlan", flag: "plan" },
    schema: TierPlanIdInput,
    fields: { tierPlanId: "plan" },
    service: archiveTierPlan,
    print: (tierPlan) => ({ tierPlan }),
  }),
  "price list": command({
    flags: { org: id },
    target: "org",
    service: (db, actor) => listModelPrices(db, actor),
  }),
  "price set": command({
    flags: { org: id, model: modelFlag, input: credits, output: credits, minimum: credits.optional() },
    target: "org",
    schema: SetModelPriceInput,
    fields: {
      modelId: "model",
      inputCreditsPerMillion: "input",
      outputCreditsPerMillion: "output",
      minimumCredits: "minimum",
    },
    service: setModelPrice,
    print: (modelPrice) => ({ modelPrice }),
  }),
  "price remove": command({
    flags: { org: id, model: modelFlag },
    target: "org",
    schema: ModelPriceIdInput,
    fields: { modelId: "model" },
    service: deleteModelPrice,
    print: (_removed, f) => ({ removed: f.model }),
  }),
  "webhook add": command({
    flags: { org: id, url: urlFlag, events: commaList },
    target: "org",
    schema: CreateWebhookEndpointInput,
    fields: { url: "url", eventTypes: "events" },
    service: createWebhookEndpoint,
  }),
  "webhook list": command({
    flags: { org: id },
    target: "org",
    schema: ListQuery,
    input: () => ({ limit: MAX_PAGE_SIZE }),
    service: listWebhookEndpoints,
    print: ({ endpoints }) => ({ endpoints }),
  }),
  "webhook remove": command({
    flags: { id },
    target: { row: "webhookEndpoint", flag: "id" },
    schema: WebhookEndpointIdInput,
    fields: { id: "id" },
    // Prints the endpoint as it was before it went.
    service: async (db, actor, input) => {
      const { endpoint } = await getWebhookEndpoint(db, actor, input);
      await deleteWebhookEndpoint(db, actor, input);
      return { endpoint };
    },
  }),
  "portal create": command({
    flags: { org: id, name: nameText },
    target: "org",
    schema: CreatePortalInput,
    fields: { name: "name" },
    service: createPortal,
    print: (portal) => ({ portal }),
  }),
  "portal update": command({
    flags: {
      portal: id,
      name: nameText.optional(),
      slug: z.string().max(48).optional(),
      "sign-in": PortalSignIn.optional(),
    },
    target: { row: "portal", flag: "portal" },
    schema: UpdatePortalInput,
    fields: { id: "portal", name: "name", slug: "slug", signIn: "sign-in" },
    service: updatePortal,
    print: (portal) => ({ portal }),
  }),
  "sso set": command({
    flags: {
      org: id,
      issuer: z.string().max(2_000),
      "client-id": z.string().max(500),
      "client-secret": z.string().max(2_000).optional(),
      domains: commaList.optional(),
      name: z.string().max(100).optional(),
    },
    target: "org",
    schema: SetSsoConnectionInput,
    fields: {
      issuer: "issuer",
      clientId: "client-id",
      clientSecret: "client-secret",
      domains: "domains",
      displayName: "name",
    },
    service: setSsoConnection,
    print: (ssoConnection) => ({ ssoConnection }),
  }),
  "sso set-saml": command({
    flags: {
      org: id,
      "metadata-url": z.string().max(2_000).optional(),
      "entity-id": z.string().max(1_000).optional(),
      "sso-url": z.string().max(2_000).optional(),
      "certificate-file": z.string().max(1_000).optional(),
      domains: commaList.optional(),
      name: z.string().max(100).optional(),
    },
    target: "org",
    schema: SetSamlConnectionInput,
    fields: { certificate: "certificate-file", displayName: "name" },
    input: async (f) => ({
      metadataUrl: f["metadata-url"],
      entityId: f["entity-id"],
      ssoUrl: f["sso-url"],
      // A PEM's first line starts with "--", which reads as a flag: the certificate comes from a file.
      certificate: f["certificate-file"] ? await readFile(f["certificate-file"], "utf8") : undefined,
      domains: f.domains,
      displayName: f.name,
    }),
    service: setSamlConnection,
    print: (ssoConnection) => ({ ssoConnection }),
  }),
  "sso show": command({
    flags: { org: id },
    target: "org",
    service: (db, actor) => getSsoConnection(db, actor),
    print: (ssoConnection) => ({ ssoConnection }),
  }),
  "sso remove": command({
    flags: { org: id },
    target: "org",
    service: (db, actor) => removeSsoConnection(db, actor),
    print: (ssoConnection) => ({ ssoConnection }),
  }),
  "mail list": command({
    flags: { org: id, limit: pageSize.optional() },
    target: "org",
    schema: ListMailInput,
    fields: { limit: "limit" },
    service: listMail,
    print: ({ messages }) => ({
      messages: messages.map(({ to, subject, text, createdAt }) => ({ to, subject, text, createdAt })),
    }),
  }),
  "billing link": command({
    flags: { "end-user": id, plan: id },
    target: { row: "endUser", flag: "end-user" },
    schema: EndUserIdInput.extend({ tierPlanId: Uuid }),
    fields: { endUserId: "end-user", tierPlanId: "plan" },
    service: linkProcessorSubscription,
    print: (subscription) => ({ subscription }),
  }),
  "end-user revoke": command({
    flags: { "end-user": id },
    target: { row: "endUser", flag: "end-user" },
    schema: EndUserIdInput,
    fields: { endUserId: "end-user" },
    service: revokeEndUser,
    print: (endUser) => ({ endUser }),
  }),
  "end-user delete": command({
    flags: { "end-user": id },
    target: { row: "endUser", flag: "end-user" },
    schema: EndUserIdInput,
    fields: { endUserId: "end-user" },
    service: deleteEndUser,
    print: (_deleted, f) => ({ endUser: { id: f["end-user"], deleted: true } }),
  }),
  "review list": command({
    flags: {
      org: id,
      status: z.enum(["pending", "approved", "rejected"]).optional(),
      limit: pageSize.optional(),
      cursor: z.string().min(1).optional(),
    },
    target: "org",
    schema: ListReviewsInput,
    fields: { status: "status", limit: "limit", cursor: "cursor" },
    service: listReviews,
  }),
  "review approve": command({
    flags: { id },
    target: { row: "review", flag: "id" },
    schema: ReviewIdInput,
    fields: { reviewId: "id" },
    service: approveReview,
  }),
  "review reject": command({
    flags: { id, reason: RejectReviewInput.shape.reason },
    target: { row: "review", flag: "id" },
    schema: RejectReviewInput,
    fields: { reviewId: "id", reason: "reason" },
    service: rejectReview,
  }),
  "provider add": command({
    flags: {
      org: id,
      slug: Slug,
      kind: ProviderKind,
      name: nameText.optional(),
      "base-url": z.string().optional(),
      "api-key": z.string().min(1).optional(),
      ...providerModelFlags,
    },
    target: "org",
    schema: CreateModelProviderInput,
    input: (f) => ({
      slug: f.slug,
      kind: f.kind,
      name: f.name ?? f.slug,
      baseUrl: f["base-url"],
      apiKey: f["api-key"],
      models: [...offered(f.models, "chat"), ...offered(f["embedding-models"], "embedding")],
    }),
    service: createModelProvider,
    print: (provider) => ({ provider }),
  }),
  "provider update": command({
    flags: {
      provider: id,
      name: nameText.optional(),
      "base-url": z.string().optional(),
      "api-key": z.string().min(1).optional(),
      "remove-api-key": present.optional(),
      ...providerModelFlags,
    },
    target: { row: "modelProvider", flag: "provider" },
    schema: UpdateModelProviderInput,
    fields: { providerId: "provider" },
    input: async (f, { db, actor }) => {
      if (f["api-key"] !== undefined && f["remove-api-key"])
        throw invalidRequest([{ path: "--api-key", message: "Give a new key or --remove-api-key, not both" }]);
      return {
        providerId: f.provider,
        name: f.name,
        baseUrl: f["base-url"],
        apiKey: f["remove-api-key"] ? null : f["api-key"],
        models:
          f.models === undefined && f["embedding-models"] === undefined
            ? undefined
            : await namedModelsKeepingTheRest(db, actor, f.provider, f.models, f["embedding-models"]),
      };
    },
    service: updateModelProvider,
    print: (provider) => ({ provider }),
  }),
  "provider list": command({
    flags: { org: id },
    target: "org",
    service: (db, actor) => listModelProviders(db, actor),
    print: (providers) => ({ providers }),
  }),
  "provider remove": command({
    flags: { provider: id },
    target: { row: "modelProvider", flag: "provider" },
    schema: ModelProviderIdInput,
    fields: { providerId: "provider" },
    service: deleteModelProvider,
    print: (provider) => ({ provider }),
  }),
  "integration add": command({
    flags: { org: id, slug: Slug, url: urlFlag, name: nameText.optional(), headers: z.string().optional() },
    target: "org",
    schema: CreateMcpConnectionInput,
    input: (f) => ({
      slug: f.slug,
      name: f.name ?? f.slug,
      url: f.url,
      headers: f.headers === undefined ? [] : headerList(f.headers),
    }),
    service: createMcpConnection,
    print: (connection) => ({ connection }),
  }),
  "integration update": command({
    flags: { connection: id, url: urlFlag.optional(), name: nameText.optional(), headers: z.string().optional() },
    target: { row: "mcpConnection", flag: "connection" },
    schema: UpdateMcpConnectionInput,
    fields: { connectionId: "connection" },
    input: (f) => ({
      connectionId: f.connection,
      name: f.name,
      url: f.url,
      headers: f.headers === undefined ? undefined : keepingEmptyValues(headerList(f.headers)),
    }),
    service: updateMcpConnection,
    print: (connection) => ({ connection }),
  }),
  "integration list": command({
    flags: { org: id },
    target: "org",
    service: (db, actor) => listMcpConnections(db, actor),
    print: (connections) => ({ connections }),
  }),
  "integration tools": command({
    flags: { connection: id },
    target: { row: "mcpConnection", flag: "connection" },
    schema: McpConnectionIdInput,
    fields: { connectionId: "connection" },
    service: listMcpConnectionTools,
  }),
  "integration remove": command({
    flags: { connection: id },
    target: { row: "mcpConnection", flag: "connection" },
    schema: McpConnectionIdInput,
    fields: { connectionId: "connection" },
    service: deleteMcpConnection,
    print: (connection) => ({ connection }),
  }),
  "secrets rotate": installationCommand({
    flags: {},
    service: (db) => rotateSecrets(db),
  }),
  "seed demo": installationCommand({
    flags: {},
    service: (db) => seedDemo(db),
    print: (demo) => ({
      organization: demo.organization,
      orgKey: keyView(demo.orgKey),
      personalKey: keyView(demo.personalKey),
      login: demo.login,
    }),
  }),
};

/** The models `provider update` names, and those of a kind it does not name as the provider offers them now. */
async function namedModelsKeepingTheRest(
  db: Db,
  actor: OperatorActor,
  providerId: string,
  chat: string[] | undefined,
  embedding: string[] | undefined,
): Promise<{ id: string; kind: ModelKind }[]> {
  const { models } = await db.modelProvider.findFirstOrThrow({
    where: { id: providerId, organizationId: actor.organizationId },
    select: { models: true },
  });
  const current = models as { id: string; kind: ModelKind }[];
  const listed = (ids: string[] | undefined, kind: ModelKind) =>
    ids === undefined ? current.filter((model) => model.kind === kind) : offered(ids, kind);
  return [...listed(chat, "chat"), ...listed(embedding, "embedding")];
}

// ---------------------------------------------------------------------------------------------
// The command line

/** What one command line prints (one JSON object on one line) and the exit code it ends with. */
export interface CommandLineAnswer {
  exitCode: 0 | 1;
  line: string;
}

/**
 * `<group> <verb> [--flag value …]` run to its answer: the command's result and 0, or
 * `{"error":{code,message}}` and 1. `withDb` opens the database only for a command that exists
 * and whose flags are right, and closes it after.
 */
export async function runCommandLine(
  argv: string[],
  withDb: <T>(task: (db: Db) => Promise<T>) => Promise<T>,
): Promise<CommandLineAnswer> {
  try {
    const [group, verb, ...rest] = argv;
    const name = `${group ?? ""} ${verb ?? ""}`.trim();
    const command = COMMANDS[name];
    if (!command) {
      const known = Object.keys(COMMANDS).join(", ");
      throw new AppError("invalid_request", `Unknown command "${name}". Commands: ${known}.`);
    }
    const flags = parseFlags(command.flags, rest);
    const result = await withDb((db) => command.run(db, flags));
    return { exitCode: 0, line: JSON.stringify(result) };
  } catch (error) {
    const appError = toAppError(error);
    // The operator runs the CLI on the installation's own machine: an unexpected failure says what it was.
    const message = appError.code === "server_error" && error instanceof Error ? error.message : appError.message;
    return { exitCode: 1, line: JSON.stringify({ error: { ...appError.toBody(), message } }) };
  }
}
