// Helpers for the builder tests: create, edit and publish agents, flows and apps through the
// REST door, asserting each step succeeded.
import { api, type ApiResponse } from "./helpers";

export type Kind = "agents" | "flows" | "apps";
export const ONE = { agents: "agent", flows: "flow", apps: "app" } as const;

/** A flow graph that passes validation: start → llm → output. */
export const VALID_NODES = [
  { id: "start", type: "trigger_start", data: {} },
  { id: "ask", type: "llm", data: { prompt: "Answer {{inputs.question}}" } },
  { id: "done", type: "output", data: { value: "{{nodes.ask.output}}" } },
];

export function expectStatus(response: ApiResponse, status: number): ApiResponse {
  if (response.status !== status) throw new Error(`expected ${status}, got ${response.status}: ${response.text}`);
  return response;
}

export async function create(key: string, kind: Kind, body: Record<string, unknown> = {}): Promise<any> {
  const extra = kind === "flows" && !("nodes" in body) ? { nodes: VALID_NODES } : {};
  const response = expectStatus(
    await api("POST", `/${kind}`, {
      key,
      body: { name: `${ONE[kind]} ${Math.random().toString(36).slice(2, 8)}`, ...extra, ...body },
    }),
    201,
  );
  return response.body[ONE[kind]];
}

export async function publish(key: string, kind: Kind, id: string, body: Record<string, unknown> = {}): Promise<any> {
  return expectStatus(await api("POST", `/${kind}/${id}/publish`, { key, body }), 200).body;
}

export async function patchDraft(
  key: string,
  kind: Kind,
  id: string,
  body: Record<string, unknown>,
  headers?: Record<string, string>,
): Promise<ApiResponse> {
  return api("PATCH", `/${kind}/${id}/draft`, { key, body, headers });
}

export async function draft(key: string, kind: Kind, id: string): Promise<any> {
  return expectStatus(await api("GET", `/${kind}/${id}/draft`, { key }), 200).body[ONE[kind]];
}
