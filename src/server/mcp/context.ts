// What every MCP tool and resource gets: the database, the key's actor and a tRPC caller over
// the same procedures the REST door runs, so scope, role, validation and output shapes are the
// REST ones by construction.
import type { z } from "zod";
import type { KeyActor } from "@/server/auth/actor";
import type { Db } from "@/server/db";
import { createCallerFactory } from "@/server/trpc/init";
import { appRouter } from "@/server/trpc/root";

const createCaller = createCallerFactory(appRouter);
export type Caller = ReturnType<typeof createCaller>;

export interface McpContext {
  db: Db;
  actor: KeyActor;
  requestId: string;
  caller: Caller;
  /** The HTTP request's signal: aborted when the client hangs up. */
  signal?: AbortSignal;
}

export function mcpContext(db: Db, actor: KeyActor, requestId: string, signal?: AbortSignal): McpContext {
  const caller = createCaller({ db, actor, requestId, response: { headers: new Headers() } });
  return { db, actor, requestId, caller, signal };
}

export interface ToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** One MCP tool: its listing (name, description, JSON schema from `input`) and what it runs. */
export interface AtriumTool {
  name: string;
  title: string;
  description: string;
  /** The zod schema the arguments are checked with; listed as the tool's JSON Schema. */
  input: z.ZodType;
  /** The result's shape (the REST response schema), listed as the tool's output JSON Schema. */
  output?: z.ZodType;
  annotations: ToolAnnotations;
  /** Gets the raw arguments; checking them is the procedure's (or the service's) job, after scope and role. */
  run(context: McpContext, args: unknown, signal: AbortSignal): Promise<unknown>;
}
