// The admin CLI's commands: flag parsing and calls into the same services the server uses,
// acting as the installation's operator.
import { readFile } from "node:fs/promises";
import { z } from "zod";
import { SCOPES, Role, Scope } from "@/schemas/identity/auth";
import { AccessMode, Plan } from "@/schemas/org/organization";
import { RejectReviewInput } from "@/schemas/knowledge/review";
import type { OperatorActor } from "@/server/auth/actor";
import type { Db } from "@/server/db";
import { nameText } from "@/schemas/common";
import { MAX_CREDITS, MAX_PAGE_SIZE, MAX_PLAN_CAP } from "@/schemas/limits";
import { assertStorableText } from "@/server/bounds";
import { AppError, invalidRequest, problemsFromIssues } from "@/server/errors";
import { createApiKey, revokeApiKey } from "@/server/services/identity/api-keys";
import { addMember, removeMember, resetMemberPassword } from "@/server/services/identity/members";
import { resetMemberMfa } from "@/server/services/identity/mfa";
import { createOrganization, getOrganization, updateOrganization } from "@/server/services/org/organizations";
import { deleteEndUser, revokeEndUser } from "@/server/services/provisioning/end-user-changes";
import { linkProcessorSubscription } from "@/server/services/provisioning/end-user-subscriptions";
import { listMail } from "@/server/services/org/mail";
import { createPortal, updatePortal } from "@/server/services/portal/portals";
import { setSamlConnection } from "@/server/services/identity/saml";
import { getSsoConnection, removeSsoConnection, setSsoConnection } from "@/server/services/identity/sso";
import { PortalSignIn } from "@/schemas/portal/portal";
import { approveReview, listReviews, rejectReview } from "@/server/services/knowledge/reviews";
import { seedDemo } from "@/server/services/org/setup";
import {
  createModelProvider,
  deleteModelProvider,
  listModelProviders,
  updateModelProvider,
} from "@/server/services/org/model-providers";
import { rotateSecrets } from "@/server/services/org/secrets";
import {
  CreateMcpConnectionInput,
  CreateModelProviderInput,
  ProviderKind,
  Slug,
  UpdateMcpConnectionInput,
  UpdateModelProviderInput,
} from "@/schemas/org/integration";
import {
  createMcpConnection,
  deleteMcpConnection,
  listMcpConnections,
  listMcpConnectionTools,
  updateMcpConnection,
} from "@/server/services/org/mcp-connections";
import { archiveTierPlan, createTierPlan } from "@/server/services/provisioning/tier-plans";
import { deleteModelPrice, listModelPrices, setModelPrice } from "@/server/services/org/model-prices";
import { CreateWebhookEndpointInput } from "@/schemas/org/webhooks";
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookEndpoints,
} from "@/server/services/org/webhooks";

type FlagSpec = Record<string, z.ZodType>;
type Flags = Record<string, unknown>;

export interface Command {
  flags: FlagSpec;
  run(db: Db, flags: Flags): Promise<unknown>;
}

const id = z.uuid();
const bool = z.enum(["true", "false"]).transform((value) => value === "true");
const credits = z.coerce.number().int().min(0).max(MAX_CREDITS);
const cap = z.union([z.literal("none").transform(() => null), z.coerce.number().int().min(0).max(MAX_PLAN_CAP)]);
const present = z.literal(true);
const idList = z.string().transform((value) =>
  value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean),
);

/** `--name value` pairs and bare `--switch` flags, checked against the command's spec. */
export function parseFlags(spec: FlagSpec, args: string[]): Flags {
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

function operator(organizationId: string): OperatorActor {
  return {
    kind: "operator",
    organizationId,
    origin: { door: "cli", requestId: null, ipAddress: null, userAgent: null },
  };
}

/** The operator of the organization that owns a row, or not_found. */
async function operatorOf(row: { organizationId: string } | null, what: string, id: unknown): Promise<OperatorActor> {
  if (!row) throw new AppError("not_found", `No ${what} ${String(id)}.`);
  return operator(row.organizationId);
}

async function organizationExists(db: Db, organizationId: string): Promise<OperatorActor> {
  if (!(await db.organization.findUnique({ where: { id: organizationId }, select: { id: true } }))) {
    throw new AppError("not_found", `No organization ${organizationId}.`);
  }
  return operator(organizationId);
}

async function reviewOperator(db: Db, reviewId: string): Promise<OperatorActor> {
  const row = await db.review.findUnique({ where: { id: reviewId }, select: { organizationId: true } });
  if (!row) throw new AppError("not_found", `No review ${reviewId}.`);
  return operator(row.organizationId);
}

const ORGANIZATION_FLAGS: Record<string, [string, z.ZodType]> = {
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
};

/** `--headers '{"Name":"value"}'` as the header list the connection schemas read. */
function headerList(json: string): unknown {
  let headers: unknown;
  try {
    headers = JSON.parse(json);
  } catch {
    throw invalidRequest([
      { path: "--headers", message: 'A JSON object of header names and values, e.g. {"Authorization":"Bearer …"}' },
    ]);
  }
  return headers && typeof headers === "object" && !Array.isArray(headers)
    ? Object.entries(headers).map(([name, value]) => ({ name, value }))
    : headers;
}

/** An empty header value keeps the value stored under that name (the update schema's header without a value). */
function keepingEmptyValues(headers: unknown): unknown {
  return Array.isArray(headers)
    ? headers.map(({ name, value }: { name: string; value: unknown }) => (value === "" ? { name } : { name, value }))
    : headers;
}

export const COMMANDS: Record<string, Command> = {
  "org create": {
    flags: { name: nameText, plan: Plan.optional(), credits: credits.optional() },
    run: async (db, f) => ({
      organization: await createOrganization(db, {
        name: f.name as string,
        plan: f.plan as z.infer<typeof Plan> | undefined,
        credits: f.credits as number | undefined,
      }),
    }),
  },
  "org show": {
    flags: { org: id },
    run: async (db, f) => ({ organization: await getOrganization(db, await organizationExists(db, f.org as string)) }),
  },
  "org update": {
    flags: {
      org: id,
      ...Object.fromEntries(Object.entries(ORGANIZATION_FLAGS).map(([flag, [, schema]]) => [flag, schema.optional()])),
    },
    run: async (db, f) => {
      const actor = await organizationExists(db, f.org as string);
      const update = Object.fromEntries(
        Object.entries(ORGANIZATION_FLAGS)
          .filter(([flag]) => f[flag] !== undefined)
          .map(([flag, [field]]) => [field, f[flag]]),
      );
      return { organization: await updateOrganization(db, actor, update) };
    },
  },
  "member add": {
    flags: { org: id, email: z.email(), role: Role.optional(), password: z.string().min(8).optional() },
    run: async (db, f) => {
      const actor = await organizationExists(db, f.org as string);
      const { member, temporaryPassword } = await addMember(db, actor, {
        email: f.email as string,
        role: (f.role as Role | undefined) ?? "member",
        password: f.password as string | undefined,
      });
      return { member: { ...member, ...(temporaryPassword ? { temporaryPassword } : {}) } };
    },
  },
  "member remove": {
    flags: { member: id },
    run: async (db, f) => {
      const actor = await operatorOf(
        await db.member.findUnique({ where: { id: f.member as string } }),
        "member",
        f.member,
      );
      return { member: await removeMember(db, actor, { memberId: f.member as string }) };
    },
  },
  "member reset-password": {
    flags: { member: id },
    run: async (db, f) => {
      const actor = await operatorOf(
        await db.member.findUnique({ where: { id: f.member as string } }),
        "member",
        f.member,
      );
      const { member, temporaryPassword } = await resetMemberPassword(db, actor, { memberId: f.member as string });
      return { member: { ...member, temporaryPassword } };
    },
  },
  "member reset-mfa": {
    flags: { member: id },
    run: async (db, f) => {
      const actor = await operatorOf(
        await db.member.findUnique({ where: { id: f.member as string } }),
        "member",
        f.member,
      );
      return resetMemberMfa(db, actor, { memberId: f.member as string });
    },
  },
  "key create": {
    flags: {
      org: id,
      member: id.optional(),
      scopes: z
        .string()
        .transform((value) =>
          value
            .split(",")
            .map((s) => s.trim())
            .filter(Boolean),
        )
        .pipe(z.array(Scope).min(1))
        .optional(),
      "all-scopes": present.optional(),
      name: nameText.max(100).optional(),
    },
    run: async (db, f) => {
      const actor = await organizationExists(db, f.org as string);
      if (f.scopes && f["all-scopes"])
        throw new AppError("invalid_request", "Give --scopes or --all-scopes, not both.");
      const memberId = f.member as string | undefined;
      const key = await createApiKey(db, actor, {
        name: (f.name as string | undefined) ?? (memberId ? "Personal key (CLI)" : "Organization key (CLI)"),
        kind: memberId ? "personal" : "organization",
        scopes: (f.scopes as Scope[] | undefined) ?? [...SCOPES],
        memberId,
      });
      return {
        key: {
          id: key.id,
          secret: key.secret,
          kind: key.kind,
          scopes: key.scopes,
          memberId: key.memberId,
          name: key.name,
          prefix: key.prefix,
        },
      };
    },
  },
  "key revoke": {
    flags: { key: id },
    run: async (db, f) => {
      const actor = await operatorOf(await db.apiKey.findUnique({ where: { id: f.key as string } }), "API key", f.key);
      return { key: await revokeApiKey(db, actor, { keyId: f.key as string }) };
    },
  },
  "plan create": {
    flags: { org: id, name: nameText, credits: credits.optional(), "with-group": present.optional() },
    run: async (db, f) =>
      createTierPlan(db, await organizationExists(db, f.org as string), {
        name: f.name as string,
        creditAllowance: (f.credits as number | undefined) ?? 0,
        withGroup: f["with-group"] === true,
      }),
  },
  "plan archive": {
    flags: { plan: id },
    run: async (db, f) => {
      const actor = await operatorOf(
        await db.tierPlan.findUnique({ where: { id: f.plan as string } }),
        "tier plan",
        f.plan,
      );
      return { tierPlan: await archiveTierPlan(db, actor, { tierPlanId: f.plan as string }) };
    },
  },
  "price list": {
    flags: { org: id },
    run: async (db, f) => listModelPrices(db, await organizationExists(db, f.org as string)),
  },
  "price set": {
    flags: {
      org: id,
      model: z.string().min(1).max(200),
      input: credits,
      output: credits,
      minimum: credits.optional(),
    },
    run: async (db, f) => ({
      modelPrice: await setModelPrice(db, await organizationExists(db, f.org as string), {
        modelId: f.model as string,
        inputCreditsPerMillion: f.input as number,
        outputCreditsPerMillion: f.output as number,
        minimumCredits: f.minimum as number | undefined,
      }),
    }),
  },
  "price remove": {
    flags: { org: id, model: z.string().min(1).max(200) },
    run: async (db, f) => {
      await deleteModelPrice(db, await organizationExists(db, f.org as string), { modelId: f.model as string });
      return { removed: f.model };
    },
  },
  "webhook add": {
    flags: { org: id, url: z.string(), events: idList },
    run: async (db, f) => {
      const input = CreateWebhookEndpointInput.safeParse({ url: f.url, eventTypes: f.events });
      if (!input.success)
        throw invalidRequest(
          problemsFromIssues(input.error.issues).map((p) => ({
            ...p,
            path: `--${p.path === "eventTypes" || p.path.startsWith("eventTypes.") ? "events" : p.path}`,
          })),
        );
      return createWebhookEndpoint(db, await organizationExists(db, f.org as string), input.data);
    },
  },
  "webhook list": {
    flags: { org: id },
    run: async (db, f) => {
      const { endpoints } = await listWebhookEndpoints(db, await organizationExists(db, f.org as string), {
        limit: 200,
      });
      return { endpoints };
    },
  },
  "webhook remove": {
    flags: { id },
    run: async (db, f) => {
      const actor = await operatorOf(
        await db.webhookEndpoint.findUnique({ where: { id: f.id as string } }),
        "webhook endpoint",
        f.id,
      );
      const { endpoint } = await getWebhookEndpoint(db, actor, { id: f.id as string });
      await deleteWebhookEndpoint(db, actor, { id: f.id as string });
      return { endpoint };
    },
  },
  "portal create": {
    flags: { org: id, name: nameText },
    run: async (db, f) => ({
      portal: await createPortal(db, await organizationExists(db, f.org as string), { name: f.name as string }),
    }),
  },
  "portal update": {
    flags: {
      portal: id,
      name: nameText.optional(),
      slug: z.string().max(48).optional(),
      "sign-in": PortalSignIn.optional(),
    },
    run: async (db, f) => {
      const actor = await operatorOf(
        await db.portal.findUnique({ where: { id: f.portal as string } }),
        "portal",
        f.portal,
      );
      const portal = await updatePortal(db, actor, {
        id: f.portal as string,
        name: f.name as string | undefined,
        slug: f.slug as string | undefined,
        signIn: f["sign-in"] as PortalSignIn | undefined,
      });
      return { portal };
    },
  },
  "sso set": {
    flags: {
      org: id,
      issuer: z.string().max(2_000),
      "client-id": z.string().max(500),
      "client-secret": z.string().max(2_000).optional(),
      domains: idList.optional(),
      name: z.string().max(100).optional(),
    },
    run: async (db, f) => ({
      ssoConnection: await setSsoConnection(db, await organizationExists(db, f.org as string), {
        issuer: f.issuer as string,
        clientId: f["client-id"] as string,
        clientSecret: f["client-secret"] as string | undefined,
        domains: f.domains as string[] | undefined,
        displayName: f.name as string | undefined,
      }),
    }),
  },
  "sso set-saml": {
    flags: {
      org: id,
      "metadata-url": z.string().max(2_000).optional(),
      "entity-id": z.string().max(1_000).optional(),
      "sso-url": z.string().max(2_000).optional(),
      "certificate-file": z.string().max(1_000).optional(),
      domains: idList.optional(),
      name: z.string().max(100).optional(),
    },
    run: async (db, f) => ({
      ssoConnection: await setSamlConnection(db, await organizationExists(db, f.org as string), {
        metadataUrl: f["metadata-url"] as string | undefined,
        entityId: f["entity-id"] as string | undefined,
        ssoUrl: f["sso-url"] as string | undefined,
        // A PEM's first line starts with "--", which reads as a flag: the certificate comes from a file.
        certificate: f["certificate-file"] ? await readFile(f["certificate-file"] as string, "utf8") : undefined,
        domains: f.domains as string[] | undefined,
        displayName: f.name as string | undefined,
      }),
    }),
  },
  "sso show": {
    flags: { org: id },
    run: async (db, f) => ({
      ssoConnection: await getSsoConnection(db, await organizationExists(db, f.org as string)),
    }),
  },
  "sso remove": {
    flags: { org: id },
    run: async (db, f) => ({
      ssoConnection: await removeSsoConnection(db, await organizationExists(db, f.org as string)),
    }),
  },
  "mail list": {
    flags: { org: id, limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).optional() },
    run: async (db, f) => {
      const { messages } = await listMail(db, await organizationExists(db, f.org as string), {
        limit: (f.limit as number | undefined) ?? 50,
      });
      return { messages: messages.map(({ to, subject, text, createdAt }) => ({ to, subject, text, createdAt })) };
    },
  },
  "billing link": {
    flags: { "end-user": id, plan: id },
    run: async (db, f) => {
      const endUserId = f["end-user"] as string;
      const actor = await operatorOf(await db.endUser.findUnique({ where: { id: endUserId } }), "end user", endUserId);
      return { subscription: await linkProcessorSubscription(db, actor, { endUserId, tierPlanId: f.plan as string }) };
    },
  },
  "end-user revoke": {
    flags: { "end-user": id },
    run: async (db, f) => {
      const endUserId = f["end-user"] as string;
      const actor = await operatorOf(await db.endUser.findUnique({ where: { id: endUserId } }), "end user", endUserId);
      return { endUser: await revokeEndUser(db, actor, { endUserId }) };
    },
  },
  "end-user delete": {
    flags: { "end-user": id },
    run: async (db, f) => {
      const endUserId = f["end-user"] as string;
      const actor = await operatorOf(await db.endUser.findUnique({ where: { id: endUserId } }), "end user", endUserId);
      await deleteEndUser(db, actor, { endUserId });
      return { endUser: { id: endUserId, deleted: true } };
    },
  },
  "review list": {
    flags: {
      org: id,
      status: z.enum(["pending", "approved", "rejected"]).optional(),
      limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).optional(),
      cursor: z.string().min(1).optional(),
    },
    run: async (db, f) =>
      listReviews(db, await organizationExists(db, f.org as string), {
        status: f.status as "pending" | undefined,
        limit: f.limit as number | undefined,
        cursor: f.cursor as string | undefined,
      }),
  },
  "review approve": {
    flags: { id },
    run: async (db, f) => approveReview(db, await reviewOperator(db, f.id as string), { reviewId: f.id as string }),
  },
  "review reject": {
    flags: { id, reason: RejectReviewInput.shape.reason },
    run: async (db, f) =>
      rejectReview(db, await reviewOperator(db, f.id as string), {
        reviewId: f.id as string,
        reason: f.reason as string | undefined,
      }),
  },
  "provider add": {
    flags: {
      org: id,
      slug: Slug,
      kind: ProviderKind,
      name: nameText.optional(),
      "base-url": z.string().optional(),
      "api-key": z.string().min(1).optional(),
      models: idList.optional(),
      "embedding-models": idList.optional(),
    },
    run: async (db, f) => {
      const models = [
        ...((f.models as string[] | undefined) ?? []).map((modelId) => ({ id: modelId, kind: "chat" as const })),
        ...((f["embedding-models"] as string[] | undefined) ?? []).map((modelId) => ({
          id: modelId,
          kind: "embedding" as const,
        })),
      ];
      const input = CreateModelProviderInput.safeParse({
        slug: f.slug,
        kind: f.kind,
        name: f.name ?? f.slug,
        baseUrl: f["base-url"],
        apiKey: f["api-key"],
        models,
      });
      if (!input.success) throw invalidRequest(problemsFromIssues(input.error.issues));
      return { provider: await createModelProvider(db, await organizationExists(db, f.org as string), input.data) };
    },
  },
  "provider update": {
    flags: {
      provider: id,
      name: nameText.optional(),
      "base-url": z.string().optional(),
      "api-key": z.string().min(1).optional(),
      "remove-api-key": present.optional(),
      models: idList.optional(),
      "embedding-models": idList.optional(),
    },
    run: async (db, f) => {
      const row = await db.modelProvider.findUnique({ where: { id: f.provider as string } });
      const actor = await operatorOf(row, "model provider", f.provider);
      if (f["api-key"] !== undefined && f["remove-api-key"])
        throw invalidRequest([{ path: "--api-key", message: "Give a new key or --remove-api-key, not both" }]);
      // A kind of model not named keeps the models of that kind the provider offers now.
      const current = row!.models as { id: string; kind: "chat" | "embedding" }[];
      const listed = (flag: string, kind: "chat" | "embedding") =>
        f[flag] === undefined
          ? current.filter((model) => model.kind === kind)
          : (f[flag] as string[]).map((modelId) => ({ id: modelId, kind }));
      const models =
        f.models === undefined && f["embedding-models"] === undefined
          ? undefined
          : [...listed("models", "chat"), ...listed("embedding-models", "embedding")];
      const input = UpdateModelProviderInput.safeParse({
        providerId: f.provider,
        name: f.name,
        baseUrl: f["base-url"],
        apiKey: f["remove-api-key"] ? null : f["api-key"],
        models,
      });
      if (!input.success) throw invalidRequest(problemsFromIssues(input.error.issues));
      return { provider: await updateModelProvider(db, actor, input.data) };
    },
  },
  "provider list": {
    flags: { org: id },
    run: async (db, f) => ({ providers: await listModelProviders(db, await organizationExists(db, f.org as string)) }),
  },
  "provider remove": {
    flags: { provider: id },
    run: async (db, f) => {
      const actor = await operatorOf(
        await db.modelProvider.findUnique({ where: { id: f.provider as string } }),
        "model provider",
        f.provider,
      );
      return { provider: await deleteModelProvider(db, actor, { providerId: f.provider as string }) };
    },
  },
  "integration add": {
    flags: { org: id, slug: Slug, url: z.string(), name: nameText.optional(), headers: z.string().optional() },
    run: async (db, f) => {
      const input = CreateMcpConnectionInput.safeParse({
        slug: f.slug,
        name: f.name ?? f.slug,
        url: f.url,
        headers: f.headers === undefined ? [] : headerList(f.headers as string),
      });
      if (!input.success) throw invalidRequest(problemsFromIssues(input.error.issues));
      return { connection: await createMcpConnection(db, await organizationExists(db, f.org as string), input.data) };
    },
  },
  "integration update": {
    flags: { connection: id, url: z.string().optional(), name: nameText.optional(), headers: z.string().optional() },
    run: async (db, f) => {
      const actor = await operatorOf(
        await db.mcpConnection.findUnique({ where: { id: f.connection as string } }),
        "MCP connection",
        f.connection,
      );
      const input = UpdateMcpConnectionInput.safeParse({
        connectionId: f.connection,
        name: f.name,
        url: f.url,
        headers: f.headers === undefined ? undefined : keepingEmptyValues(headerList(f.headers as string)),
      });
      if (!input.success) throw invalidRequest(problemsFromIssues(input.error.issues));
      return { connection: await updateMcpConnection(db, actor, input.data) };
    },
  },
  "integration list": {
    flags: { org: id },
    run: async (db, f) => ({
      connections: await listMcpConnections(db, await organizationExists(db, f.org as string)),
    }),
  },
  "integration tools": {
    flags: { connection: id },
    run: async (db, f) => {
      const actor = await operatorOf(
        await db.mcpConnection.findUnique({ where: { id: f.connection as string } }),
        "MCP connection",
        f.connection,
      );
      return listMcpConnectionTools(db, actor, { connectionId: f.connection as string });
    },
  },
  "integration remove": {
    flags: { connection: id },
    run: async (db, f) => {
      const actor = await operatorOf(
        await db.mcpConnection.findUnique({ where: { id: f.connection as string } }),
        "MCP connection",
        f.connection,
      );
      return { connection: await deleteMcpConnection(db, actor, { connectionId: f.connection as string }) };
    },
  },
  "secrets rotate": {
    flags: {},
    run: (db) => rotateSecrets(db),
  },
  "seed demo": {
    flags: {},
    run: async (db) => {
      const demo = await seedDemo(db);
      const keyView = (key: typeof demo.orgKey) => ({
        id: key.id,
        secret: key.secret,
        kind: key.kind,
        scopes: key.scopes,
        memberId: key.memberId,
      });
      return {
        organization: demo.organization,
        orgKey: keyView(demo.orgKey),
        personalKey: keyView(demo.personalKey),
        login: demo.login,
      };
    },
  },
};
