// Apps: the members, adviser and API document, its rules, pins and read-back (a KindSpec of builder-kinds.ts).
import type { z } from "zod";
import { AppDocument, AppPatch } from "@/schemas/builder/builder";
import { MAX_APP_SCHEMA_CHARS } from "@/schemas/limits";
import { AppError, type Problem } from "@/server/errors";
import { schemaCompileProblem } from "@/server/runtime/json-schema";
import {
  itemsById,
  nameOf,
  refuseReferences,
  type Doc,
  type KindSpec,
  type MissingReference,
} from "./builder-kind-shared";
import { groupedDigits } from "@/lib/digits";

type AppMember = { id: string; kind: "agent" | "flow"; position: number };

function checkJsonSchema(value: unknown, path: string, problems: Problem[]): void {
  const schema = value as Doc;
  const type = schema.type;
  if (type !== undefined && typeof type !== "string" && !Array.isArray(type))
    problems.push({ path, message: "Not a JSON Schema: `type` must be a string or an array" });
  if (
    schema.properties !== undefined &&
    (typeof schema.properties !== "object" || schema.properties === null || Array.isArray(schema.properties))
  ) {
    problems.push({ path, message: "Not a JSON Schema: `properties` must be an object" });
  }
  if (
    schema.required !== undefined &&
    !(Array.isArray(schema.required) && schema.required.every((r) => typeof r === "string"))
  ) {
    problems.push({ path, message: "Not a JSON Schema: `required` must be an array of strings" });
  }
  if (JSON.stringify(schema).length > MAX_APP_SCHEMA_CHARS) {
    problems.push({
      path,
      message: `Too large: a JSON Schema is at most ${groupedDigits(MAX_APP_SCHEMA_CHARS)} characters as JSON`,
    });
  }
  // Refused here rather than failing every transaction that reads it; a schema too large is not compiled.
  if (!problems.some((problem) => problem.path === path)) {
    const compileProblem = schemaCompileProblem(schema);
    if (compileProblem) problems.push({ path, message: `Not a usable JSON Schema: ${compileProblem}` });
  }
}

export const appSpec: KindSpec = {
  kind: "app",
  plural: "apps",
  document: AppDocument as unknown as z.ZodType<Doc>,
  patch: AppPatch as unknown as z.ZodType<Doc>,
  mergeKeys: ["api"],
  normalize(doc) {
    if (!Array.isArray(doc.members)) return doc;
    const members = (doc.members as (Omit<AppMember, "position"> & { position?: number })[]).map((member, index) => ({
      id: member.id,
      kind: member.kind,
      position: member.position ?? index,
    }));
    members.sort((a, b) => a.position - b.position);
    return { ...doc, members };
  },
  async validateDraft(db, organizationId, doc, changed) {
    const problems: Problem[] = [];
    const missing: MissingReference[] = [];
    const adviser = doc.adviser as { id: string } | null;
    const members = doc.members as AppMember[];
    const items = await itemsById(db, organizationId, [
      ...(adviser && changed.has("adviser") ? [adviser.id] : []),
      ...(changed.has("members") ? members.map((m) => m.id) : []),
    ]);
    if (changed.has("adviser") && adviser && items.get(adviser.id)?.kind !== "agent")
      missing.push({
        code: "agent_not_found",
        path: "adviser.id",
        message: "No agent with this id in the organization",
      });
    if (changed.has("members")) {
      const seen = new Set<string>();
      members.forEach((member, index) => {
        if (seen.has(member.id))
          problems.push({ path: `members.${index}.id`, message: "This member is listed more than once" });
        else if (items.get(member.id)?.kind !== member.kind)
          missing.push({
            code: `${member.kind}_not_found`,
            path: `members.${index}.id`,
            message: `No ${member.kind} with this id in the organization`,
          });
        seen.add(member.id);
      });
    }
    if (changed.has("api")) {
      const api = doc.api as { inputSchema: unknown; outputSchema: unknown };
      checkJsonSchema(api.inputSchema, "api.inputSchema", problems);
      checkJsonSchema(api.outputSchema, "api.outputSchema", problems);
    }
    refuseReferences(problems, missing);
  },
  async validatePublish(db, organizationId, doc) {
    const adviser = doc.adviser as { id: string } | null;
    const members = doc.members as AppMember[];
    const wanted = [...(adviser ? [{ id: adviser.id, kind: "agent" as const }] : []), ...members];
    const items = await itemsById(
      db,
      organizationId,
      wanted.map((w) => w.id),
    );
    const dependencies = wanted
      .filter((w) => items.get(w.id)?.kind !== w.kind || !items.get(w.id)?.productionVersionId)
      .map((w) => ({
        id: w.id,
        kind: w.kind,
        name: items.get(w.id)?.kind === w.kind ? nameOf(items.get(w.id)!.draft) : "(deleted)",
      }));
    if (dependencies.length > 0) {
      throw new AppError(
        "unpublished_dependencies",
        `Publish these first: ${dependencies.map((d) => `${d.kind} "${d.name}"`).join(", ")}. Nothing was written.`,
        { dependencies },
      );
    }
    return {
      adviser: adviser ? { id: adviser.id, versionId: items.get(adviser.id)!.productionVersionId! } : null,
      members: members.map((member) => ({
        id: member.id,
        kind: member.kind,
        versionId: items.get(member.id)!.productionVersionId!,
      })),
    };
  },
  async render(db, organizationId, docs, pins) {
    const ids = docs.flatMap((doc) => [
      ...(doc.adviser ? [(doc.adviser as { id: string }).id] : []),
      ...(doc.members as AppMember[]).map((m) => m.id),
    ]);
    const items = await itemsById(db, organizationId, ids);
    return docs.map((doc, index) => {
      const pin = pins?.[index] ?? null;
      const ref = (id: string, versionId: string | undefined) => ({
        id,
        name: nameOf(items.get(id)?.draft),
        published: Boolean(items.get(id)?.productionVersionId),
        ...(pin ? { versionId: versionId ?? null } : {}),
      });
      const adviser = doc.adviser as { id: string } | null;
      return {
        ...doc,
        adviser: adviser ? ref(adviser.id, pin?.adviser?.versionId) : null,
        members: (doc.members as AppMember[]).map((member) => ({
          ...ref(member.id, pin?.members.find((p) => p.id === member.id)?.versionId),
          kind: member.kind,
          position: member.position,
        })),
      };
    });
  },
  listRow: (doc) => {
    const api = doc.api as { conversationEnabled: boolean; transactionEnabled: boolean };
    return {
      name: doc.name,
      slug: doc.slug,
      description: doc.description,
      orchestrationMode: doc.orchestrationMode,
      conversationEnabled: api.conversationEnabled,
      transactionEnabled: api.transactionEnabled,
    };
  },
  type: () => "app",
};
