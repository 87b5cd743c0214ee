// REST and console procedures of agents, flows and apps: one factory, three routers. Each
// procedure is one call into a services/builder/ module. Static segments (/draft, /versions,
// /publish) are registered ahead of the bare `{id}` routes.
import { z } from "zod";
import {
  Agent,
  AgentPatch,
  App,
  AppPatch,
  createDraftInput,
  Flow,
  FlowPatch,
  ListItemsQuery,
  listFieldsQuery,
  AgentListRow,
  AppListRow,
  FlowListRow,
  NODE_TYPES_DESCRIPTION,
  PublishInput,
  PublishSummary,
  Version,
  type BuilderKind,
  ListVersionsOutput,
} from "@/schemas/builder/builder";
import { ListOrder, ListQuery, NextCursor, TimestampInput, Uuid } from "@/schemas/common";
import type { ErrorCode } from "@/server/errors";
import { createItem, deleteItem, getDraft, getLive } from "@/server/services/builder/builder";
import { listItems } from "@/server/services/builder/builder-lists";
import { deployVersion, listVersions, publishItem } from "@/server/services/builder/builder-versions";
import { patchDraft } from "@/server/services/builder/draft-edits";
import { writesKind } from "@/server/services/support/builder-kinds";
import { router } from "../../init";
import { restProcedures } from "../../service-procedures";
import { ifMatchOf, tagged } from "../../entity-tags";

function keyed<K extends string, T extends z.ZodType>(key: K, schema: T) {
  return z.strictObject({ [key]: schema } as { [P in K]: T });
}

interface KindRoute<
  One extends string,
  Many extends string,
  Id extends string,
  Shape extends z.ZodRawShape,
  View extends z.ZodType,
  Row extends z.ZodType,
> {
  kind: BuilderKind;
  one: One;
  many: Many;
  idKey: Id;
  tag: string;
  patch: z.ZodObject<Shape>;
  view: View;
  listRow: Row;
  /** Codes a draft write can answer besides conflict and not_found. */
  draftErrors: ErrorCode[];
  publishErrors: ErrorCode[];
  notes: string;
}

const DRAFT_PRECONDITIONS = z.object({
  "If-Unmodified-Since": z
    .string()
    .optional()
    .meta({ description: "HTTP date; the write is refused with `conflict` when the draft changed after it" }),
  "If-Match": z.string().optional().meta({
    description:
      "The draft's `ETag` last read (or `*`); the write is refused with 412 `precondition_failed` when the draft is at another version",
  }),
});

function builderRouter<
  One extends string,
  Many extends string,
  Id extends string,
  Shape extends z.ZodRawShape,
  View extends z.ZodType,
  Row extends z.ZodType,
>(route: KindRoute<One, Many, Id, Shape, View, Row>) {
  const { kind, one, many, idKey } = route;
  const rest = restProcedures(route.tag);
  const path = (suffix = "") => `/${many}${suffix}` as `/${string}`;
  const base = path();
  const item = path(`/{${idKey}}`);
  const sub = (suffix: string) => path(`/{${idKey}}${suffix}`);
  const IdInput = keyed(idKey, Uuid);
  const ViewOutput = keyed(one, route.view);
  const PublishOutput = z.object({ ...keyed(one, PublishSummary).shape, version: Version });
  const ListOutput = z.object({ ...keyed(many, z.array(route.listRow)).shape, nextCursor: NextCursor });
  // The generic factory cannot name the per-kind input types; each input is parsed by its schema.
  const fields = (input: unknown) => input as Record<string, unknown>;
  const idOf = (input: unknown) => fields(input)[idKey] as string;

  return router({
    create: rest
      .route("POST", createItem.requirementFor(kind), {
        path: base,
        summary: `Create a draft ${one}`,
        description: `Creates an unpublished draft ${one}. The body takes \`name\` (required) and any draft field. ${route.notes}`,
        errors: route.draftErrors,
        successStatus: 201,
        input: createDraftInput(route.patch),
        output: ViewOutput,
      })
      .mutation(async ({ ctx, input }) => {
        const created = await createItem(ctx.db, ctx.actor, kind, fields(input));
        ctx.response.status = 201;
        return { [one]: created } as never;
      }),
    list: rest
      .route("GET", listItems.requirementFor(kind), {
        path: base,
        summary: `List published ${many}`,
        description: `Published ${many} with their live version's fields, ordered by creation time then id. \`include=drafts\` lists unpublished ones too and needs the \`${writesKind(kind).scope}\` scope. \`fields\` keeps only the named fields.`,
        input: z.strictObject({ ...ListItemsQuery, fields: listFieldsQuery(kind) }),
        output: ListOutput,
      })
      .query(async ({ ctx, input }) => {
        const { items, nextCursor } = await listItems(ctx.db, ctx.actor, kind, input);
        return { [many]: items, nextCursor } as never;
      }),
    getDraft: rest
      .route("GET", getDraft.requirementFor(kind), {
        path: sub("/draft"),
        summary: `Get the ${one} draft`,
        description: `The editable draft, published or not. Its \`ETag\` names this version of the draft for \`If-Match\`.`,
        errors: ["not_found"],
        etag: true,
        input: IdInput,
        output: ViewOutput,
      })
      .query(async ({ ctx, input }) => {
        const draft = await getDraft(ctx.db, ctx.actor, kind, idOf(input));
        return { [one]: tagged(ctx.response, draft) } as never;
      }),
    patchDraft: rest
      .route("PATCH", patchDraft.requirementFor(kind), {
        path: sub("/draft"),
        summary: `Update the ${one} draft`,
        description: `Only the fields passed change; arrays replace the whole set; nested objects (${kind === "agent" ? "`identity`, `builtIns`" : kind === "app" ? "`api`" : "none for flows"}) merge. \`expectedUpdatedAt\` (the \`updatedAt\` last read) or the header \`If-Unmodified-Since\` refuses the write with \`conflict\` when the draft changed meanwhile, and \`If-Match\` with a tag other than the draft's current \`ETag\` refuses it with 412 \`precondition_failed\`; nothing is written. ${route.notes}`,
        requestHeaders: DRAFT_PRECONDITIONS,
        errors: ["not_found", "conflict", "precondition_failed", ...route.draftErrors],
        etag: true,
        input: IdInput.extend(route.patch.shape).extend({
          expectedUpdatedAt: TimestampInput.optional().meta({ description: "The `updatedAt` last read" }),
        }),
        output: ViewOutput,
      })
      .mutation(async ({ ctx, input }) => {
        const { [idKey]: id, expectedUpdatedAt, ...patch } = fields(input);
        const updated = await patchDraft(ctx.db, ctx.actor, kind, id as string, patch, {
          expectedUpdatedAt: expectedUpdatedAt as string | undefined,
          ifUnmodifiedSince: ctx.requestHeaders?.get("if-unmodified-since") ?? undefined,
          ifMatch: ifMatchOf(ctx.requestHeaders),
        });
        return { [one]: tagged(ctx.response, updated) } as never;
      }),
    publish: rest
      .route("POST", publishItem.requirementFor(kind), {
        path: sub("/publish"),
        summary: `Publish the ${one} draft as a new version`,
        description: `Snapshots the draft as version \`versionCount + 1\`. Unless \`deployToProduction\` is false it becomes the live version (\`productionVersionId\`).${kind === "app" ? " Pins the adviser and each member at its production version; a member published later is used only once the app is published again. An unpublished adviser or member gives `unpublished_dependencies`." : ""}`,
        errors: ["not_found", ...route.publishErrors],
        input: IdInput.extend(PublishInput),
        output: PublishOutput,
      })
      .mutation(async ({ ctx, input }) => {
        const { summary, version } = await publishItem(ctx.db, ctx.actor, kind, idOf(input), fields(input));
        return { [one]: summary, version } as never;
      }),
    versions: rest
      .route("GET", listVersions.requirementFor(kind), {
        path: sub("/versions"),
        summary: `List the ${one}'s versions`,
        description:
          "Oldest first (`order=newest` for the latest first, as the console shows them); each with the document as published.",
        errors: ["not_found"],
        input: IdInput.extend({ ...ListQuery.shape, order: ListOrder }),
        output: ListVersionsOutput,
      })
      .query(
        ({ ctx, input }) =>
          listVersions(
            ctx.db,
            ctx.actor,
            kind,
            idOf(input),
            fields(input) as { limit: number; cursor?: string; order: ListOrder },
          ) as never,
      ),
    deploy: rest
      .route("POST", deployVersion.requirementFor(kind), {
        path: sub("/versions/{versionId}/deploy"),
        summary: `Make a version of the ${one} live (rollback)`,
        description: `Makes an existing version the live one again: \`productionVersionId\` points at it and it becomes \`isProduction\`. The draft is untouched.`,
        errors: ["not_found"],
        input: IdInput.extend({ versionId: Uuid }),
        output: PublishOutput,
      })
      .mutation(async ({ ctx, input }) => {
        const { summary, version } = await deployVersion(
          ctx.db,
          ctx.actor,
          kind,
          idOf(input),
          fields(input).versionId as string,
        );
        return { [one]: summary, version } as never;
      }),
    get: rest
      .route("GET", getLive.requirementFor(kind), {
        path: item,
        summary: `Get the live ${one}`,
        description: `The live version. An unpublished ${one} answers \`not_found\`.`,
        errors: ["not_found"],
        input: IdInput,
        output: ViewOutput,
      })
      .query(async ({ ctx, input }) => ({ [one]: await getLive(ctx.db, ctx.actor, kind, idOf(input)) }) as never),
    delete: rest
      .route("DELETE", deleteItem.requirementFor(kind), {
        path: item,
        summary: `Delete the ${one}`,
        description: `Deletes the ${one} with its versions. A personal key needs the admin role. Answers 204.`,
        errors: ["not_found"],
        successStatus: 204,
        input: IdInput,
        output: z.void(),
      })
      .mutation(async ({ ctx, input }) => {
        await deleteItem(ctx.db, ctx.actor, kind, idOf(input));
        ctx.response.status = 204;
      }),
  });
}

export const agentsRouter = builderRouter({
  kind: "agent",
  one: "agent",
  many: "agents",
  idKey: "agentId",
  tag: "Agents",
  patch: AgentPatch,
  view: Agent,
  listRow: AgentListRow,
  draftErrors: ["invalid_model", "knowledgebase_not_found", "flow_not_found", "mcp_connection_not_found"],
  publishErrors: ["invalid_model", "knowledgebase_not_found", "flow_not_found", "mcp_connection_not_found"],
  notes:
    "`model` must be listed by `GET /models` (else `invalid_model`); `knowledge` items are `{knowledgebaseId}` (the title is read back) and `flows` are flow ids of the organization; `integrations[].toolkit` names an MCP connection. A knowledgebase, flow or connection the organization does not have is 422 `knowledgebase_not_found`, `flow_not_found` or `mcp_connection_not_found`, nothing written.",
});

export const flowsRouter = builderRouter({
  kind: "flow",
  one: "flow",
  many: "flows",
  idKey: "flowId",
  tag: "Flows",
  patch: FlowPatch,
  view: Flow,
  listRow: FlowListRow,
  draftErrors: ["invalid_workflow"],
  publishErrors: ["invalid_workflow"],
  notes: `Writing \`nodes\` validates the whole graph; problems answer \`invalid_workflow\` with \`feedback: [{nodeId?, message}]\` and nothing is written. A node still missing its required data is kept in the draft; publishing (and a test run of the draft) refuses it the same way.\n\n${NODE_TYPES_DESCRIPTION}`,
});

export const appsRouter = builderRouter({
  kind: "app",
  one: "app",
  many: "apps",
  idKey: "appId",
  tag: "Apps",
  patch: AppPatch,
  view: App,
  listRow: AppListRow,
  draftErrors: ["agent_not_found", "flow_not_found"],
  publishErrors: ["unpublished_dependencies"],
  notes:
    "`adviser` is written as `{id}` (an agent) or null; `members` items are `{id, kind, position?}` (`name` and `published` are read back; `position` defaults to array order); `api` merges into the current config. An adviser or member the organization does not have is 422 `agent_not_found` or `flow_not_found`, nothing written.",
});
