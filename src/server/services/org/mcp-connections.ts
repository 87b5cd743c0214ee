// An organization's MCP server connections: admins connect them (console, admin CLI; never API
// keys), every member reads the list and a connection's tools, from which builders pick an agent's
// `integrations[]` (`toolkit` is the connection's slug). Header values are sealed before they are
// stored and never returned; the URL passes the integration URL guard when written and on every request.
import { Prisma } from "@/generated/prisma/client";
import type {
  CreateMcpConnectionInput,
  McpConnection,
  McpToolList,
  UpdateMcpConnectionInput,
} from "@/schemas/org/integration";
import type { Actor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { AppError, invalidRequest, isUniqueViolation } from "@/server/errors";
import { changesBetween, recorded, recordEvent, SECRET_CHANGED } from "./events";
import { logProviderFailure } from "@/server/observability/operator-log";
import { requireIntegrationUrl } from "@/server/integration-urls";
import { endpointOf, forgetMcpToolList, listMcpTools } from "@/server/runtime/mcp-client";
import { sealSecret } from "@/server/secret-box";
import { pick } from "@/lib/pick";

const NOT_FOUND = "No MCP connection with that id in this organization.";
const SLUG_TAKEN = "The organization already has an MCP connection with this slug.";

type ConnectionRow = Prisma.McpConnectionGetPayload<object>;

function toMcpConnection(row: ConnectionRow): McpConnection {
  return {
    ...pick(row, ["id", "slug", "name", "url", "headerNames"]),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The names to show and the sealed values, or nothing sealed when there are no headers. */
function sealHeaders(headers: { name: string; value: string }[]): {
  headerNames: string[];
  headersCiphertext: string | null;
} {
  if (headers.length === 0) return { headerNames: [], headersCiphertext: null };
  const values = Object.fromEntries(headers.map((header) => [header.name, header.value]));
  return {
    headerNames: headers.map((header) => header.name),
    headersCiphertext: sealSecret(JSON.stringify(values), "headers"),
  };
}

async function ownConnection(db: Db, actor: Actor, connectionId: string): Promise<ConnectionRow> {
  const row = await db.mcpConnection.findFirst({ where: { id: connectionId, organizationId: actor.organizationId } });
  if (!row) throw new AppError("not_found", NOT_FOUND);
  return row;
}

export const listMcpConnections = guarded(
  { may: "read" },
  async function listMcpConnections(db: Db, actor: Actor): Promise<McpConnection[]> {
    const rows = await db.mcpConnection.findMany({
      where: { organizationId: actor.organizationId },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    });
    return rows.map(toMcpConnection);
  },
);

export const getMcpConnection = guarded(
  { may: "read" },
  async function getMcpConnection(db: Db, actor: Actor, input: { connectionId: string }): Promise<McpConnection> {
    return toMcpConnection(await ownConnection(db, actor, input.connectionId));
  },
);

export const createMcpConnection = guarded(
  { may: "settings" },
  async function createMcpConnection(db: Db, actor: Actor, input: CreateMcpConnectionInput): Promise<McpConnection> {
    const { slug, name, url, headers } = input;
    await requireIntegrationUrl(url, "url");
    try {
      const create = (tx: Pick<Db, "mcpConnection">) =>
        tx.mcpConnection.create({
          data: { organizationId: actor.organizationId, slug, name, url, ...sealHeaders(headers) },
        });
      const row = await recorded(db, actor, create, (created) => ({
        action: "mcp_connection.create",
        target: { type: "mcp_connection", id: created.id, label: created.name },
        changes: { url: [null, url], headers: [null, SECRET_CHANGED] },
      }));
      return toMcpConnection(row);
    } catch (error) {
      if (isUniqueViolation(error)) throw new AppError("conflict", SLUG_TAKEN);
      throw error;
    }
  },
);

/** The headers to store: a header given without a value keeps the one stored under its name (any case). */
function mergedHeaders(
  row: ConnectionRow,
  headers: { name: string; value?: string }[],
): { name: string; value: string }[] {
  const stored = new Map(Object.entries(endpointOf(row).headers).map(([name, value]) => [name.toLowerCase(), value]));
  const merged = headers.map((header) => ({
    name: header.name,
    value: header.value ?? stored.get(header.name.toLowerCase()),
  }));
  const problems = merged.flatMap((header, index) =>
    header.value === undefined
      ? [{ path: `headers.${index}.value`, message: "No value is stored under this name: give one" }]
      : [],
  );
  if (problems.length > 0) throw invalidRequest(problems);
  return merged as { name: string; value: string }[];
}

export const updateMcpConnection = guarded(
  { may: "settings" },
  async function updateMcpConnection(db: Db, actor: Actor, input: UpdateMcpConnectionInput): Promise<McpConnection> {
    const row = await ownConnection(db, actor, input.connectionId);
    if (input.url) await requireIntegrationUrl(input.url, "url");
    const update = (tx: Pick<Db, "mcpConnection">) =>
      tx.mcpConnection.update({
        where: { id: row.id, organizationId: actor.organizationId },
        data: {
          ...(input.name !== undefined ? { name: input.name } : {}),
          ...(input.url !== undefined ? { url: input.url } : {}),
          ...(input.headers !== undefined ? sealHeaders(mergedHeaders(row, input.headers)) : {}),
        },
      });
    const changes = {
      ...changesBetween(row, input, ["name", "url"]),
      ...(input.headers !== undefined ? { headers: [SECRET_CHANGED, SECRET_CHANGED] as const } : {}),
    };
    const updated = await recorded(db, actor, update, (after) => ({
      action: "mcp_connection.update",
      target: { type: "mcp_connection", id: after.id, label: after.name },
      changes,
    }));
    forgetMcpToolList(actor.organizationId, row.id);
    return toMcpConnection(updated);
  },
);

/** Agents naming it are refused at publish; their published versions run without its tools. */
export const deleteMcpConnection = guarded(
  { may: "settings" },
  async function deleteMcpConnection(db: Db, actor: Actor, input: { connectionId: string }): Promise<McpConnection> {
    const row = await ownConnection(db, actor, input.connectionId);
    await db.$transaction([
      db.mcpConnection.delete({ where: { id: row.id, organizationId: actor.organizationId } }),
      recordEvent(db, actor, {
        action: "mcp_connection.delete",
        target: { type: "mcp_connection", id: row.id, label: row.name },
      }),
    ]);
    forgetMcpToolList(actor.organizationId, row.id);
    return toMcpConnection(row);
  },
);

/** The connection's tools as its server lists them now; a server that fails or times out is 502 provider_error. */
export const listMcpConnectionTools = guarded(
  { may: "read" },
  async function listMcpConnectionTools(db: Db, actor: Actor, input: { connectionId: string }): Promise<McpToolList> {
    const row = await ownConnection(db, actor, input.connectionId);
    try {
      const { tools, truncated } = await listMcpTools(endpointOf(row));
      return { tools: tools.map(({ name, description }) => ({ name, description })), truncated };
    } catch (error) {
      if (error instanceof AppError) throw error;
      const reason = error instanceof Error ? error.message.slice(0, 300) : "unknown failure";
      logProviderFailure({ organizationId: actor.organizationId, provider: "mcp", name: row.slug, err: error });
      throw new AppError(
        "provider_error",
        `The MCP server of "${row.slug}" failed or timed out: ${reason}`,
        {},
        { cause: error },
      );
    }
  },
);
