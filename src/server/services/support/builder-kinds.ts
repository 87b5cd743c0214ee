// What differs between agents, flows and apps: the draft document, the rules a draft and a
// publish must pass, how a stored document reads back (titles and names of what it references)
// and its list row. The modules of services/builder/ do the rest once for all three.
import type { BuilderKind } from "@/schemas/builder/builder";
import type { Requirement } from "@/server/auth/authorize";
import { agentSpec } from "./agent-kind";
import { appSpec } from "./app-kind";
import type { KindSpec } from "./builder-kind-shared";
import { flowSpec } from "./flow-kind";

export const KIND_SPECS: Record<BuilderKind, KindSpec> = { agent: agentSpec, flow: flowSpec, app: appSpec };

/** Reading a kind's items needs its read scope (`agents:read`…). */
export function readsKind(kind: BuilderKind): Requirement {
  return { scope: `${KIND_SPECS[kind].plural}:read` };
}

/** Writing a kind's items (drafts, publishing, rollback, tests) needs its write scope (`agents:write`…). */
export function writesKind(kind: BuilderKind): Requirement {
  return { scope: `${KIND_SPECS[kind].plural}:write` };
}
