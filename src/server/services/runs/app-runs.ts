// The start of an app's run, shared by conversations.ts and transactions.ts: the refusals before
// anything runs, then the run's charge.
import { randomUUID } from "node:crypto";
import type { Actor, EndUserActor } from "@/server/auth/actor";
import { actorLabel } from "@/server/auth/actor";
import { authorize, type Requirement } from "@/server/auth/authorize";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import { BilledRun, RUN_CREDITS } from "@/server/runtime/billed-run";
import { loadLiveApp } from "@/server/runtime/load";
import { knownCallsOfApp, modelsOfApp } from "@/server/runtime/metering";
import type { RunContext } from "@/server/runtime/run-context";
import { runFor } from "../portal/portal-access";

/** Running a version other than the live one (`version` on a conversation or transaction) is a builder's call. */
export const PINNED_VERSION: Requirement = { scope: "apps:write" };

const RUN_TURNED_OFF = {
  conversation:
    "Conversation is turned off in this app's published API config; republish it with conversation enabled.",
  transaction: "Transaction is turned off in this app's published API config; republish it with transactions enabled.",
} as const;

/**
 * The first refusals of a run, in the contract's order: a pinned version is a builder's call,
 * then the app as published (not_found), whether its published API allows this kind of run
 * (service_disabled), then whom the run is for (runFor).
 */
export async function appRunFor(
  db: Db,
  actor: Actor | EndUserActor,
  kind: keyof typeof RUN_TURNED_OFF,
  input: { appId: string; version?: string; endUserId?: string; portalId?: string },
) {
  if (input.version !== undefined) authorize(actor, PINNED_VERSION);
  const app = await loadLiveApp(db, actor, input.appId, input.version);
  const api = app.app.document.api;
  if (!(kind === "conversation" ? api.conversationEnabled : api.transactionEnabled))
    throw new AppError("service_disabled", RUN_TURNED_OFF[kind]);
  const runner = await runFor(db, actor, input.appId, input);
  return { app, api, runner };
}

/**
 * The charge of an app's run under a new execution id (402 when the credits do not cover it;
 * nothing runs then): the end user's plans must hold the app's models, and the payer is theirs.
 */
export async function chargeAppRun(
  db: Db,
  ctx: RunContext,
  actor: Actor | EndUserActor,
  kind: keyof typeof RUN_TURNED_OFF,
  { appId, app, runner }: { appId: string } & Pick<Awaited<ReturnType<typeof appRunFor>>, "app" | "runner">,
  execution: { conversationId: string | null; input: string },
) {
  const executionId = randomUUID();
  const billed = await BilledRun.start(
    db,
    ctx,
    {
      organizationId: actor.organizationId,
      endUserId: runner.endUserId,
      usage: { appId, portalId: runner.portalId },
    },
    RUN_CREDITS[kind],
    {
      id: executionId,
      kind,
      itemId: appId,
      itemKind: "app",
      versionId: app.versionId,
      conversationId: execution.conversationId,
      input: execution.input,
      endUserId: runner.endUserId,
      portalId: runner.portalId,
      actor: actorLabel(actor),
    },
    modelsOfApp(app),
    knownCallsOfApp(app),
    app.prices,
  );
  return { billed, executionId };
}
