// The portal's default language: set by admins over REST and tRPC, checked against the languages
// the portal speaks, shown to visitors before they sign in.
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { api, newOrganization } from "../helpers";
import { portalCall, portalScenario } from "./helpers";

describe("a portal's default language", () => {
  it("is English unless set; POST and PATCH store a supported one and visitors see it", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const plain = await api("POST", "/portals", { key, body: { name: "Help Center" } });
    expect(plain.status).toBe(201);
    expect(plain.body.portal.defaultLanguage).toBe("en");

    const french = await api("POST", "/portals", { key, body: { name: "Centre d'aide", defaultLanguage: "fr" } });
    expect(french.status).toBe(201);
    expect(french.body.portal.defaultLanguage).toBe("fr");

    const patched = await api("PATCH", `/portals/${plain.body.portal.id}`, { key, body: { defaultLanguage: "de" } });
    expect(patched.status).toBe(200);
    expect(patched.body.portal).toMatchObject({ defaultLanguage: "de", name: "Help Center" });
    const list = await api("GET", "/portals", { key });
    expect(list.body.portals.map((p: { defaultLanguage: string }) => p.defaultLanguage).sort()).toEqual(["de", "fr"]);

    const seen = await portalCall("query", "portal.get", { portal: plain.body.portal.slug });
    expect(seen.body.result.data.portal.defaultLanguage).toBe("de");
  });

  it("an unknown language is 400 invalid_request naming the field, and nothing is written", async () => {
    const scenario = await portalScenario();
    const key = scenario.key;
    for (const defaultLanguage of ["xx", "EN-us", "", "fr;q=1", "a".repeat(500), 7, null]) {
      const patch = await api("PATCH", `/portals/${scenario.portal.id}`, {
        key,
        body: { defaultLanguage, greeting: "Changed" },
      });
      expect(patch.status, JSON.stringify(defaultLanguage)).toBe(400);
      expect(patch.body.error.code).toBe("invalid_request");
      expect(patch.body.error.problems.map((p: { path: string }) => p.path)).toContain("defaultLanguage");
    }
    const stored = await getDb().portal.findUniqueOrThrow({ where: { id: scenario.portal.id } });
    expect([stored.defaultLanguage, stored.greeting]).toEqual(["en", ""]);

    const before = await getDb().portal.count({ where: { organizationId: scenario.tenant.organization.id } });
    const create = await api("POST", "/portals", { key, body: { name: "Elsewhere", defaultLanguage: "klingon" } });
    expect([create.status, create.body.error.code]).toEqual([400, "invalid_request"]);
    expect(await getDb().portal.count({ where: { organizationId: scenario.tenant.organization.id } })).toBe(before);
  });

  it("a change is recorded in the audit log with before and after", async () => {
    const scenario = await portalScenario();
    await api("PATCH", `/portals/${scenario.portal.id}`, { key: scenario.key, body: { defaultLanguage: "fr" } });
    const event = await getDb().auditEvent.findFirst({
      where: { organizationId: scenario.tenant.organization.id, action: "portal.update" },
      orderBy: { occurredAt: "desc" },
    });
    expect(event?.changes).toMatchObject({ defaultLanguage: ["en", "fr"] });
  });
});
