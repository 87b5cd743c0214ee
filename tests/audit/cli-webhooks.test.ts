// `admin webhook add|list|remove`, in-process over the same commands the CLI runs.
import { describe, expect, it, vi } from "vitest";

vi.hoisted(() => {
  process.env.ALLOW_PRIVATE_INTEGRATION_URLS = "true";
  // Webhook secrets are sealed at rest like every stored credential.
  process.env.ATRIUM_SECRET_KEY = "test-secret-key-0123456789-abcdefghijklmnop";
});

import { COMMANDS, parseFlags } from "@/cli/commands";
import { getDb } from "@/server/db";
import { newOrganization } from "../helpers";

const run = (command: string, ...args: string[]) =>
  COMMANDS[command]!.run(getDb(), parseFlags(COMMANDS[command]!.flags, args)) as Promise<any>;

describe("admin webhook", () => {
  it("adds an endpoint with its secret once, lists it without, removes it; each change in the audit log from the CLI", async () => {
    const tenant = await newOrganization();
    const org = tenant.organization.id;
    const added = await run(
      "webhook add",
      "--org",
      org,
      "--url",
      "http://127.0.0.1:9/hook",
      "--events",
      "end_user.created,page.changed",
    );
    expect(added.secret).toMatch(/^whsec_/);
    expect(added.endpoint).toMatchObject({
      url: "http://127.0.0.1:9/hook",
      eventTypes: ["end_user.created", "page.changed"],
      enabled: true,
    });
    const all = await run("webhook add", "--org", org, "--url", "http://127.0.0.1:9/all", "--events", "*");
    expect(all.endpoint.eventTypes).toEqual(["*"]);

    const listed = await run("webhook list", "--org", org);
    expect(listed.endpoints.map((e: any) => e.id)).toEqual([added.endpoint.id, all.endpoint.id]);
    expect(JSON.stringify(listed)).not.toContain("whsec_");

    const removed = await run("webhook remove", "--id", added.endpoint.id);
    expect(removed.endpoint.id).toBe(added.endpoint.id);
    expect((await run("webhook list", "--org", org)).endpoints).toHaveLength(1);

    const events = await getDb().auditEvent.findMany({
      where: { organizationId: org, targetType: "webhook_endpoint" },
      orderBy: { occurredAt: "asc" },
    });
    expect(events.map((e) => [e.action, e.door, e.actorType])).toEqual([
      ["webhook_endpoint.create", "cli", "operator"],
      ["webhook_endpoint.create", "cli", "operator"],
      ["webhook_endpoint.delete", "cli", "operator"],
    ]);
  });

  it("refuses an unknown event type naming --events, and writes nothing", async () => {
    const tenant = await newOrganization();
    await expect(
      run("webhook add", "--org", tenant.organization.id, "--url", "http://127.0.0.1:9/x", "--events", "nope"),
    ).rejects.toMatchObject({ code: "invalid_request" });
    expect(await getDb().webhookEndpoint.count({ where: { organizationId: tenant.organization.id } })).toBe(0);
  });
});
