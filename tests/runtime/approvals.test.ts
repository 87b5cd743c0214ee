// A flow's `approval` node: the run pauses durably (its state in PostgreSQL, no run lease), a
// person decides once (a race: one 200, one 409), an approved run continues in the approvals
// worker exactly once, even from a "restarted" process (another database client and worker);
// rejected and timed-out runs fail with the reason. Through the real HTTP listener.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, createDb, getDb } from "@/server/db";
import { claimApproved, runApprovalsOnce } from "@/server/jobs/approvals";
import { sweepLostRuns } from "@/server/runtime/run-leases";
import {
  addPerson,
  expectError,
  newOrganization,
  signInCookie,
  toApiResponse,
  trpc,
  trpcErrorCode,
  type ApiResponse,
  type Tenant,
} from "../helpers";
import { create, publish } from "../builder-helpers";
import { listenOnLoopback, type LoopbackServer } from "../loopback-server";
import { credits, readEvents } from "../runtime-helpers";
import { REFUND_INPUTS, REFUND_NODES } from "../approval-fixtures";

let server: LoopbackServer;
beforeAll(async () => {
  server = await listenOnLoopback(0);
});
afterAll(() => server.close());

async function http(method: string, path: string, key: string, body?: unknown): Promise<ApiResponse> {
  const response = await fetch(`${server.base}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return toApiResponse(response);
}

interface ApprovalApp {
  tenant: Tenant;
  appId: string;
  flowId: string;
  personal: string;
}

/** A flow for conversations: the message is its one text input. */
const CHAT_INPUTS = [{ key: "question", type: "text", required: true }];
const CHAT_NODES = [
  { id: "start", type: "trigger_start" },
  { id: "check", type: "approval", data: { title: "Check", message: "Answer {{inputs.question}}?" } },
  { id: "answer", type: "output", data: { value: "Done: {{inputs.question}}" } },
];

async function approvalApp(nodes: unknown[] = REFUND_NODES, inputs: unknown[] = REFUND_INPUTS): Promise<ApprovalApp> {
  const tenant = await newOrganization();
  const key = tenant.orgKey.secret;
  const flow = await create(key, "flows", { name: "Refunds", inputs, nodes });
  await publish(key, "flows", flow.id);
  const app = await create(key, "apps", {
    name: "Refund desk",
    members: [{ id: flow.id, kind: "flow" }],
    orchestrationMode: "sequential",
    api: { transactionEnabled: true, conversationEnabled: true },
  });
  await publish(key, "apps", app.id);
  return { tenant, appId: app.id, flowId: flow.id, personal: tenant.personalKey.secret };
}

async function pausedTransaction(app: ApprovalApp): Promise<string> {
  const started = await http("POST", `/apps/${app.appId}/transaction`, app.tenant.orgKey.secret, {
    input: { customer: "ana@example.com", amount: 120 },
  });
  expect(started.status).toBe(202);
  expect(started.body).toEqual({ status: "awaiting_approval", executionId: expect.any(String) });
  return started.body.executionId as string;
}

function nodesRan(trace: { kind: string; name: string }[]): string[] {
  return trace.filter((entry) => entry.kind === "node").map((entry) => entry.name.replace(/^.* › | \(.*\)$/g, ""));
}

async function execution(id: string) {
  return getDb().execution.findUniqueOrThrow({ where: { id } });
}

async function events(organizationId: string, action: string) {
  return getDb().auditEvent.findMany({ where: { organizationId, action } });
}

describe("approval node", () => {
  it("pauses a transaction with 202: nothing after the node ran, no run lease, the webhook event queued", async () => {
    const app = await approvalApp();
    const id = await pausedTransaction(app);
    const row = await execution(id);
    expect(row.status).toBe("awaiting_approval");
    expect(row.credits).toBe(1);
    expect(nodesRan(row.trace as never)).toEqual(["start", "amount"]);
    expect(await getDb().runLease.count({ where: { id } })).toBe(0);
    const [announced] = await events(app.tenant.organization.id, "execution.await_approval");
    expect(announced?.webhookType).toBe("execution.awaiting_approval");
    expect(announced?.data).toMatchObject({
      approval: { nodeId: "gate", message: "Refund 120 EUR to ana@example.com?" },
    });

    const shown = await http("GET", `/executions/${id}/approval`, app.personal);
    expect(shown.status).toBe(200);
    expect(shown.body.approval).toMatchObject({ status: "pending", message: "Refund 120 EUR to ana@example.com?" });
    expect(shown.body.variables).toEqual({ amount: 120 });
    const pending = await http("GET", "/approvals", app.personal);
    expect(pending.body.approvals.map((a: { executionId: string }) => a.executionId)).toEqual([id]);

    // The console's bell tells members, and links to the page where it is decided.
    const cookie = await signInCookie(app.tenant.owner.email, app.tenant.owner.password);
    const bell = await trpc("query", "notifications.list", {}, { cookie });
    expect(bell.body.result.data.notifications).toContainEqual(
      expect.objectContaining({ kind: "approval", itemId: id, href: `/approvals/${id}`, title: "Refund desk" }),
    );
  });

  it("two decisions at once: one 200, one 409; the run continues once, in a restarted worker, to its end", async () => {
    const app = await approvalApp();
    const before = await credits(app.tenant);
    const id = await pausedTransaction(app);
    const decide = () =>
      http("POST", `/executions/${id}/approval`, app.personal, { decision: "approve", comment: "ok by finance" });
    const answers = await Promise.all([decide(), decide()]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    expectError(
      answers.find((a) => a.status === 409)!,
      409,
      "conflict",
    );
    expect(answers.find((a) => a.status === 200)!.body.execution).toMatchObject({ id, status: "awaiting_approval" });

    // Another process (its own database client and worker) continues it; two workers race for it.
    const restarted = createDb(process.env.DATABASE_URL!);
    try {
      await Promise.all([runApprovalsOnce(restarted), runApprovalsOnce(getDb())]);
    } finally {
      await closeDb(restarted);
    }
    const row = await execution(id);
    expect(row.status).toBe("succeeded");
    expect(JSON.parse(row.output)).toEqual({ result: "refunded 120 (ok by finance)" });
    expect(nodesRan(row.trace as never)).toEqual(["start", "amount", "gate", "after", "done"]);
    expect(await events(app.tenant.organization.id, "execution.complete")).toHaveLength(1);
    expect(await events(app.tenant.organization.id, "execution.approve")).toHaveLength(1);
    expect(await getDb().runLease.count({ where: { id } })).toBe(0);
    // One run, one charge: taken when it started, kept through the pause and the continuation.
    expect(row.credits).toBe(1);
    expect(await credits(app.tenant)).toBe(before - 1);

    // Nothing is left to continue, and a late decision changes nothing.
    await runApprovalsOnce(getDb());
    expect((await execution(id)).status).toBe("succeeded");
    expectError(await decide(), 409, "conflict");
  });

  it("a continuation lost with its process is settled as lost runs are: failed, its credit given back", async () => {
    const app = await approvalApp();
    const before = await credits(app.tenant);
    const id = await pausedTransaction(app);
    expect(await credits(app.tenant)).toBe(before - 1);
    expect((await http("POST", `/executions/${id}/approval`, app.personal, { decision: "approve" })).status).toBe(200);
    // A process claims it, then dies: its lease is never renewed.
    expect((await claimApproved(getDb()))?.id).toBe(id);
    await getDb().$executeRaw`update run_leases set heartbeat_at = now() - interval '1 hour' where id = ${id}::uuid`;
    await getDb()
      .$executeRaw`update execution_approvals set updated_at = now() - interval '1 hour' where id = ${id}::uuid`;
    await sweepLostRuns(getDb());
    const row = await execution(id);
    expect(row.status).toBe("failed");
    expect(row.error).toMatch(/lost/);
    expect(await credits(app.tenant)).toBe(before);
    expect(await events(app.tenant.organization.id, "execution.complete")).toHaveLength(1);
    await runApprovalsOnce(getDb());
    expect((await getDb().executionApproval.findUniqueOrThrow({ where: { id } })).status).toBe("done");
    expect((await execution(id)).status).toBe("failed");
  });

  it("rejected: the run ends failed with the reason and is never continued; it keeps its charge", async () => {
    const app = await approvalApp();
    const before = await credits(app.tenant);
    const id = await pausedTransaction(app);
    const rejected = await http("POST", `/executions/${id}/approval`, app.personal, {
      decision: "reject",
      comment: "not this customer",
    });
    expect(rejected.status).toBe(200);
    expect(rejected.body.execution).toMatchObject({ status: "failed" });
    expect(rejected.body.execution.error).toContain("not this customer");
    await runApprovalsOnce(getDb());
    const row = await execution(id);
    expect(row.status).toBe("failed");
    expect(nodesRan(row.trace as never)).toEqual(["start", "amount"]);
    expect(await credits(app.tenant)).toBe(before - 1);
    expect((await events(app.tenant.organization.id, "execution.reject"))[0]?.actorLabel).toContain(
      app.tenant.owner.email,
    );
    expect((await events(app.tenant.organization.id, "execution.complete"))[0]?.webhookType).toBe(
      "execution.completed",
    );
  });

  it("the console decides through the same service: a viewer is refused, a member approves", async () => {
    const app = await approvalApp();
    const id = await pausedTransaction(app);
    const viewer = await addPerson(app.tenant.operator, "viewer");
    const viewerCookie = await signInCookie(viewer.email, viewer.password);
    const refused = await trpc(
      "mutation",
      "runtime.decideApproval",
      { executionId: id, decision: "approve" },
      {
        cookie: viewerCookie,
      },
    );
    expect(trpcErrorCode(refused)).toBe("forbidden_role");
    const member = await addPerson(app.tenant.operator, "member");
    const cookie = await signInCookie(member.email, member.password);
    const decided = await trpc(
      "mutation",
      "runtime.decideApproval",
      { executionId: id, decision: "approve" },
      { cookie },
    );
    expect(decided.status).toBe(200);
    expect((await getDb().executionApproval.findUniqueOrThrow({ where: { id } })).decidedBy).toBe(member.email);
  });

  it("timed out: the sweep ends the run failed; a decision afterwards is 409", async () => {
    const app = await approvalApp();
    const id = await pausedTransaction(app);
    await getDb().executionApproval.update({ where: { id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expectError(
      await http("POST", `/executions/${id}/approval`, app.personal, { decision: "approve" }),
      409,
      "conflict",
    );
    await runApprovalsOnce(getDb());
    const row = await execution(id);
    expect(row.status).toBe("failed");
    expect(row.error).toMatch(/in time/);
    expect((await getDb().executionApproval.findUniqueOrThrow({ where: { id } })).status).toBe("timed_out");
  });

  it("another organization's run is not_found; an organization key is not a person", async () => {
    const app = await approvalApp();
    const id = await pausedTransaction(app);
    const other = await newOrganization();
    expectError(
      await http("POST", `/executions/${id}/approval`, other.personalKey.secret, { decision: "approve" }),
      404,
      "not_found",
    );
    expectError(await http("GET", `/executions/${id}/approval`, other.personalKey.secret), 404, "not_found");
    expectError(
      await http("POST", `/executions/${id}/approval`, app.tenant.orgKey.secret, { decision: "approve" }),
      403,
      "forbidden_role",
    );
    expect((await getDb().executionApproval.findUniqueOrThrow({ where: { id } })).status).toBe("pending");
  });

  it("a conversation: 202 with its conversation; approved, the turn is saved with the reply", async () => {
    const app = await approvalApp(CHAT_NODES, CHAT_INPUTS);
    const started = await http("POST", `/apps/${app.appId}/conversation`, app.tenant.orgKey.secret, {
      message: "refund order 42",
    });
    expect(started.status).toBe(202);
    expect(started.body).toEqual({
      status: "awaiting_approval",
      executionId: expect.any(String),
      conversation_id: expect.any(String),
    });
    const id = started.body.executionId as string;
    expect((await http("POST", `/executions/${id}/approval`, app.personal, { decision: "approve" })).status).toBe(200);
    await runApprovalsOnce(getDb());
    const messages = await getDb().conversationMessage.findMany({
      where: { conversationId: started.body.conversation_id },
      orderBy: { createdAt: "asc" },
    });
    expect(messages.map((m) => [m.role, m.content])).toEqual([
      ["user", "refund order 42"],
      ["assistant", "Done: refund order 42"],
    ]);
    expect((await execution(id)).status).toBe("succeeded");
  });

  it("a stream sends the approval step and stays resumable until the continued run ends", async () => {
    const app = await approvalApp(CHAT_NODES, CHAT_INPUTS);
    const reading = new AbortController();
    const response = await fetch(`${server.base}/api/v1/apps/${app.appId}/conversation`, {
      method: "POST",
      headers: { authorization: `Bearer ${app.tenant.orgKey.secret}`, "content-type": "application/json" },
      body: JSON.stringify({ message: "refund order 7", stream: true }),
      signal: reading.signal,
    });
    expect(response.status).toBe(200);
    const first = await readEvents(response, 3);
    reading.abort();
    expect(first.map((e) => e.event)).toEqual(["run", "step", "step"]);
    expect(JSON.parse(first[2]!.data)).toEqual({ kind: "approval", name: "Check", status: "waiting" });
    const id = JSON.parse(first[0]!.data).execution_id as string;
    expect((await http("POST", `/executions/${id}/approval`, app.personal, { decision: "approve" })).status).toBe(200);
    await runApprovalsOnce(getDb());
    const resumed = await fetch(`${server.base}/api/v1/apps/${app.appId}/conversation/runs/${id}/events`, {
      headers: { authorization: `Bearer ${app.tenant.orgKey.secret}`, "last-event-id": first[2]!.id ?? "" },
    });
    const rest = await readEvents(resumed);
    const done = rest.at(-1)!;
    expect(done.event).toBe("done");
    expect(JSON.parse(done.data)).toMatchObject({ reply: "Done: refund order 7", execution_id: id });
  });

  it("refuses an approval node out of bounds, naming it", async () => {
    const tenant = await newOrganization();
    const refused = await http("POST", "/flows", tenant.orgKey.secret, {
      name: "Bad",
      nodes: [
        { id: "start", type: "trigger_start" },
        { id: "wait", type: "approval", data: { message: "ok?", timeoutMinutes: 0 } },
      ],
    });
    const body = expectError(refused, 422, "invalid_workflow");
    expect(body.feedback).toContainEqual(expect.objectContaining({ nodeId: "wait" }));
  });
});
