// What the kinds' rules share: the spec each kind fills in, and the reference checks they all use.
import { isUuid } from "@/schemas/common";
import type { z } from "zod";
import type { BuilderKind } from "@/schemas/builder/builder";
import type { Db } from "@/server/db";
import { AppError, invalidRequest, type ErrorCode, type Problem } from "@/server/errors";
import { isAvailableModel } from "@/server/runtime/models";

export type Doc = Record<string, unknown>;

/** What the kind rules read: the client, or the publish transaction holding the item's lock. */
export type Reader = Pick<Db, "builderItem" | "knowledgebase" | "modelProvider" | "mcpConnection">;

/** Pins an app version holds: the production version of its adviser and each member when published. */
export interface AppPins {
  adviser: { id: string; versionId: string } | null;
  members: { id: string; kind: "agent" | "flow"; versionId: string }[];
}

export interface KindSpec {
  kind: BuilderKind;
  plural: "agents" | "flows" | "apps";
  document: z.ZodType<Doc>;
  patch: z.ZodType<Doc>;
  /** Nested objects a PATCH merges into rather than replaces. */
  mergeKeys: readonly string[];
  /** Puts a document in canonical form before it is parsed (e.g. members ordered by position). */
  normalize(doc: Doc): Doc;
  /** Rules a draft write must pass; `changed` are the top-level fields written. */
  validateDraft(db: Db, organizationId: string, doc: Doc, changed: Set<string>): Promise<void>;
  /** Rules a publish must pass, and (apps) the pins to store with the version. */
  validatePublish(db: Reader, organizationId: string, doc: Doc): Promise<AppPins | null>;
  /** The documents as the API shows them: referenced titles and names read back. */
  render(db: Db, organizationId: string, docs: Doc[], pins?: (AppPins | null)[]): Promise<Doc[]>;
  /** Every field a list row of this kind can carry, from the document. */
  listRow(doc: Doc): Doc;
  /** `type` of the publish summary. */
  type(doc: Doc): string;
}

export async function checkModel(db: Reader, organizationId: string, model: unknown): Promise<void> {
  if (typeof model === "string" && !(await isAvailableModel(db, organizationId, model))) {
    throw new AppError(
      "invalid_model",
      `Model "${model}" is not available; GET /models lists the usable ones. Nothing was written.`,
      { model },
    );
  }
}

/** Items of a kind in the organization, by id. */
export async function itemsById(db: Reader, organizationId: string, ids: string[]) {
  if (ids.length === 0)
    return new Map<string, { id: string; kind: BuilderKind; draft: Doc; productionVersionId: string | null }>();
  const rows = await db.builderItem.findMany({
    where: { organizationId, id: { in: [...new Set(ids)] } },
    select: { id: true, kind: true, draft: true, productionVersionId: true },
  });
  return new Map(rows.map((row) => [row.id, { ...row, draft: row.draft as Doc }]));
}

/** Which of these ids are knowledgebases of the organization (never an end user's notebook). */
export async function ownKnowledgebases(db: Reader, organizationId: string, ids: string[]): Promise<Set<string>> {
  const wanted = [...new Set(ids.filter((id) => isUuid(id)))];
  if (wanted.length === 0) return new Set();
  const rows = await db.knowledgebase.findMany({
    where: { organizationId, endUserId: null, id: { in: wanted } },
    select: { id: true },
  });
  return new Set(rows.map((row) => row.id));
}

/** A reference a draft holds to something the organization does not have (missing, or another organization's). */
export interface MissingReference extends Problem {
  code: Extract<
    ErrorCode,
    "agent_not_found" | "flow_not_found" | "knowledgebase_not_found" | "mcp_connection_not_found"
  >;
}

/**
 * The one rule for references, as for groups and end users: malformed input is invalid_request
 * first, then a reference to nothing is 422 `<kind>_not_found` (the first one's kind), with
 * `problems` naming every missing reference. Nothing is written.
 */
export function refuseReferences(problems: Problem[], missing: MissingReference[]): void {
  if (problems.length > 0) throw invalidRequest(problems);
  if (missing.length === 0) return;
  const first = missing[0]!;
  const more = missing.length > 1 ? ` (and ${missing.length - 1} more)` : "";
  throw new AppError(first.code, `${first.path}: ${first.message}${more}. Nothing was written.`, {
    problems: missing.map(({ path, message }) => ({ path, message })),
  });
}

export function nameOf(doc: Doc | undefined): string {
  return typeof doc?.name === "string" ? doc.name : "";
}
