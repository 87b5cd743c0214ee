// "New from template": each starter copies into the organization as an unpublished flow and an
// app calling it, and (approval aside, which waits for a person) runs to completion on the
// built-in model; a knowledgebase of another organization is refused before anything is written.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

vi.hoisted(() => {
  // The HTTP template is pointed at a loopback stand-in for the order system.
  process.env.ALLOW_PRIVATE_INTEGRATION_URLS = "true";
});

import { NODE_TYPES } from "@/schemas/builder/builder";
import { getDb } from "@/server/db";
import { publishItem } from "@/server/services/builder/builder-versions";
import { patchDraft } from "@/server/services/builder/draft-edits";
import { copyBuilderTemplate, listBuilderTemplates } from "@/server/services/builder/builder-templates";
import { previewDraft } from "@/server/services/builder/draft-preview";
import { addPerson, newOrganization, signInCookie, trpc, trpcErrorCode, type Tenant } from "../helpers";
import { newKnowledgebase, newPage } from "../knowledge-helpers";

let orders: http.Server;
let ordersBase: string;
beforeAll(async () => {
  orders = http.createServer((request, response) =>
    response
      .writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify({ order: request.url!.split("/").pop(), status: "shipped" })),
  );
  await new Promise<void>((resolve) => orders.listen(0, "127.0.0.1", resolve));
  ordersBase = `http://127.0.0.1:${(orders.address() as AddressInfo).port}`;
});
afterAll(() => {
  orders.closeAllConnections();
  orders.close();
});

const db = () => getDb();
const approvalKnown = (NODE_TYPES as readonly string[]).includes("approval");

/** A sample input per runnable template, and what its reply must say. */
const RUNS: Record<string, { message: Record<string, string>; reply: RegExp }> = {
  "support-answer": {
    message: { question: "How long until refunds are paid?" },
    reply: /Refunds are paid within 14 days[\s\S]*Sources:\n\[1\] Refund policy/,
  },
  triage: {
    message: { message: "The checkout is down for everyone" },
    reply: /^Escalated to the on-call team: The checkout is down/,
  },
  "http-lookup": { message: { orderId: "A-17" }, reply: /^Order A-17 is shipped\.$/ },
  summariser: {
    message: { text: "The meeting moved to Thursday. Lunch is provided. Bring the quarterly report. Parking is free." },
    reply: /The meeting moved to Thursday\./,
  },
};

async function supportKnowledge(tenant: Tenant): Promise<string> {
  const knowledgebaseId = await newKnowledgebase(tenant);
  await newPage(tenant.orgKey.secret, knowledgebaseId, {
    title: "Refund policy",
    markdown: "Refunds are paid within 14 days of the request. Shipping costs are not refunded.",
  });
  return knowledgebaseId;
}

describe("builder templates", () => {
  it("offers the five starters (approval once the node type exists), each copied as drafts that run on the built-in model", async () => {
    const tenant = await newOrganization();
    const { templates } = await listBuilderTemplates(db(), tenant.operator);
    expect(templates.map((t) => t.id)).toEqual([
      "support-answer",
      "triage",
      "http-lookup",
      ...(approvalKnown ? ["approval-before-action"] : []),
      "summariser",
    ]);
    expect(templates.find((t) => t.id === "triage")!.nodeTypes).toContain("condition");
    const knowledgebaseId = await supportKnowledge(tenant);

    for (const template of templates) {
      const copied = await copyBuilderTemplate(db(), tenant.operator, {
        templateId: template.id,
        ...(template.needsKnowledgebase ? { knowledgebaseId } : {}),
      });
      const rows = await db().builderItem.findMany({
        where: { organizationId: tenant.organization.id, id: { in: [copied.flow.id, copied.app.id] } },
      });
      expect(rows.map((row) => [row.kind, row.productionVersionId])).toEqual(
        expect.arrayContaining([
          ["flow", null],
          ["app", null],
        ]),
      );
      const app = rows.find((row) => row.kind === "app")!.draft as { members: { id: string }[] };
      expect(app.members.map((member) => member.id)).toEqual([copied.flow.id]);
      const run = RUNS[template.id];
      if (!run) continue;
      if (template.id === "http-lookup")
        await patchDraft(db(), tenant.operator, "flow", copied.flow.id, {
          nodes: (
            rows.find((row) => row.kind === "flow")!.draft as { nodes: { id: string; data: object }[] }
          ).nodes.map((n) =>
            n.id === "lookup" ? { ...n, data: { ...n.data, url: `${ordersBase}/orders/{{inputs.orderId}}` } } : n,
          ),
        });
      const flowRun = await previewDraft(db(), tenant.operator, "flow", {
        id: copied.flow.id,
        message: JSON.stringify(run.message),
        history: [],
      });
      expect(flowRun.error, template.id).toBeNull();
      expect(flowRun.reply, template.id).toMatch(run.reply);
      // The app runs it too, once the flow is live.
      await publishItem(db(), tenant.operator, "flow", copied.flow.id, {});
      const appRun = await previewDraft(db(), tenant.operator, "app", {
        id: copied.app.id,
        message: Object.values(run.message)[0]!,
        history: [],
      });
      expect(appRun.error, template.id).toBeNull();
      expect(appRun.reply, template.id).not.toBe("");
    }
  });

  it("a routine message takes the triage's other branch", async () => {
    const tenant = await newOrganization();
    const copied = await copyBuilderTemplate(db(), tenant.operator, { templateId: "triage" });
    const run = await previewDraft(db(), tenant.operator, "flow", {
      id: copied.flow.id,
      message: JSON.stringify({ message: "Could you send me last month's invoice?" }),
      history: [],
    });
    expect(run.reply).toBe("Thank you. Your request is logged and we will reply within one working day.");
  });

  it("refuses another organization's knowledgebase, an unknown template and a template without approval support, writing nothing", async () => {
    const tenant = await newOrganization();
    const other = await newOrganization();
    const foreign = await newKnowledgebase(other);
    const count = () => db().builderItem.count({ where: { organizationId: tenant.organization.id } });
    await expect(
      copyBuilderTemplate(db(), tenant.operator, { templateId: "support-answer", knowledgebaseId: foreign }),
    ).rejects.toMatchObject({ code: "knowledgebase_not_found" });
    await expect(copyBuilderTemplate(db(), tenant.operator, { templateId: "nope" })).rejects.toMatchObject({
      code: "not_found",
    });
    if (!approvalKnown)
      await expect(
        copyBuilderTemplate(db(), tenant.operator, { templateId: "approval-before-action" }),
      ).rejects.toMatchObject({ code: "not_found" });
    expect(await count()).toBe(0);
  });

  it("through the console: a member copies a template; a viewer sees them but may not copy, and nothing is written", async () => {
    const tenant = await newOrganization();
    const cookie = await signInCookie(tenant.owner.email, tenant.owner.password);
    const listed = await trpc("query", "builderTemplates.list", undefined, { cookie });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.result.data.templates.length).toBeGreaterThanOrEqual(4);
    const copied = await trpc("mutation", "builderTemplates.copy", { templateId: "summariser" }, { cookie });
    expect(copied.status, copied.text).toBe(200);
    expect(copied.body.result.data.flow.name).toBe("Summariser");

    const viewer = await addPerson(tenant.operator, "viewer");
    const viewerCookie = await signInCookie(viewer.email, viewer.password);
    expect((await trpc("query", "builderTemplates.list", undefined, { cookie: viewerCookie })).status).toBe(200);
    const refused = await trpc("mutation", "builderTemplates.copy", { templateId: "triage" }, { cookie: viewerCookie });
    expect(refused.status).toBe(403);
    expect(trpcErrorCode(refused)).toBe("forbidden_role");
    expect(await db().builderItem.count({ where: { organizationId: tenant.organization.id } })).toBe(2);
  });
});
