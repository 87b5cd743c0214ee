// Draft edits of agents, flows and apps: a partial patch, written as a compare-and-set on `updatedAt`.
import type { BuilderKind } from "@/schemas/builder/builder";
import type { Actor } from "@/server/auth/actor";
import { guardedByKind } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import type { Prisma } from "@/generated/prisma/client";
import { KIND_SPECS, writesKind } from "../support/builder-kinds";
import type { Doc } from "../support/builder-kind-shared";
import { changesBetween, recorded } from "../org/events";
import { checkVersion, namesVersions, versionChanged, type VersionMatch } from "../support/preconditions";
import { getDraft } from "./builder";
import { findItem, lastChange, nextUpdatedAt, type ItemRow } from "./builder-shared";

export interface Precondition {
  /** The `updatedAt` the client last read. */
  expectedUpdatedAt?: string;
  /** `If-Unmodified-Since` (HTTP date, whole seconds). */
  ifUnmodifiedSince?: string;
  /** `If-Match`: the versions the write may apply to (`precondition_failed` otherwise). */
  ifMatch?: VersionMatch;
}

function conflict(kind: BuilderKind): AppError {
  return new AppError(
    "conflict",
    `The ${kind} draft changed since you read it; read it again and retry with its new updatedAt. Nothing was written.`,
  );
}

function checkPrecondition(kind: BuilderKind, row: ItemRow, precondition: Precondition): void {
  checkVersion(precondition.ifMatch, row.updatedAt, `${kind} draft`);
  if (
    precondition.expectedUpdatedAt !== undefined &&
    new Date(precondition.expectedUpdatedAt).getTime() !== row.updatedAt.getTime()
  )
    throw conflict(kind);
  if (precondition.ifUnmodifiedSince !== undefined) {
    const since = new Date(precondition.ifUnmodifiedSince);
    if (Number.isNaN(since.getTime())) {
      throw new AppError("invalid_request", "Invalid request: If-Unmodified-Since is not an HTTP date.", {
        problems: [{ path: "If-Unmodified-Since", message: "Not an HTTP date" }],
      });
    }
    if (Math.floor(row.updatedAt.getTime() / 1000) > Math.floor(since.getTime() / 1000)) throw conflict(kind);
  }
}

function mergePatch(current: Doc, patch: Doc, mergeKeys: readonly string[]): Doc {
  const merged: Doc = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    const before = current[key];
    merged[key] =
      mergeKeys.includes(key) &&
      value &&
      typeof value === "object" &&
      !Array.isArray(value) &&
      before &&
      typeof before === "object"
        ? { ...(before as Doc), ...(value as Doc) }
        : value;
  }
  return merged;
}

/**
 * Only the fields passed change; arrays replace; the kind's nested objects merge. The write is
 * a compare-and-set on `updatedAt`: a stale precondition, or a concurrent write when one was
 * given, answers `conflict` with nothing written.
 */
export const patchDraft = guardedByKind(
  writesKind,
  async function patchDraft(
    db: Db,
    actor: Actor,
    kind: BuilderKind,
    id: string,
    input: Doc,
    precondition: Precondition = {},
  ): Promise<Doc> {
    const spec = KIND_SPECS[kind];
    const patch = spec.patch.parse(input);
    const changed = Object.keys(patch).filter((key) => patch[key] !== undefined);
    const guarded = precondition.expectedUpdatedAt !== undefined || precondition.ifUnmodifiedSince !== undefined;
    for (let attempt = 0; attempt < 5; attempt++) {
      const row = await findItem(db, actor.organizationId, kind, id);
      checkPrecondition(kind, row, precondition);
      const draft = spec.document.parse(spec.normalize(mergePatch(row.draft as Doc, patch, spec.mergeKeys)));
      await spec.validateDraft(db, actor.organizationId, draft, new Set(changed));
      const updatedAt = nextUpdatedAt(row.updatedAt);
      const summary = changed.length ? `Changed ${changed.join(", ")}` : "Saved the draft unchanged";
      const write = (tx: Prisma.TransactionClient) =>
        tx.builderItem.updateMany({
          where: { id: row.id, organizationId: actor.organizationId, updatedAt: row.updatedAt },
          data: {
            draft: draft as Prisma.InputJsonValue,
            updatedAt,
            lastChange: lastChange(actor, updatedAt, "draft_updated", summary) as Prisma.InputJsonValue,
          },
        });
      const before = row.draft as Doc;
      const { count } = await recorded(db, actor, write, ({ count }) =>
        count
          ? {
              action: `${kind}.draft_update`,
              target: { type: kind, id: row.id, label: String(draft.name) },
              changes: changesBetween(before, draft, changed),
            }
          : null,
      );
      if (count === 1) return getDraft(db, actor, kind, id);
      if (namesVersions(precondition.ifMatch)) throw versionChanged(`${kind} draft`);
      if (guarded) throw conflict(kind);
    }
    throw conflict(kind);
  },
);
