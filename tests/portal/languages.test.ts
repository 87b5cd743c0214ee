// The portal's default language: set by admins over REST and tRPC, checked against the languages
// the portal speaks, shown to visitors before they sign in; the sign-in mail in the visitor's language.
import { describe, expect, it } from "vitest";
import { getDb } from "@/server/db";
import { api, newOrganization } from "../helpers";
import { clientAddress, codeFromOutbox, portalCall, portalScenario } from "./helpers";

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

describe("the sign-in mail", () => {
  async function mailFor(scenario: Awaited<ReturnType<typeof portalScenario>>) {
    await codeFromOutbox(scenario.tenant.organization.id, scenario.endUser.email);
    return getDb().outboxMessage.findFirstOrThrow({
      where: { organizationId: scenario.tenant.organization.id, to: scenario.endUser.email },
    });
  }

  it("is written in the language of the page that asked for it, with the code and the link", async () => {
    const scenario = await portalScenario();
    const asked = await portalCall(
      "mutation",
      "auth.requestCode",
      { portal: scenario.portal.slug, email: scenario.endUser.email, language: "de" },
      { headers: clientAddress() },
    );
    expect(asked.status).toBe(200);
    const mail = await mailFor(scenario);
    const code = mail.text.match(/\b(\d{6})\b/)![1]!;
    expect(mail.subject).toBe(`Ihr Anmeldecode für Help Center: ${code}`);
    expect(mail.text).toContain(`Ihr Code für die Anmeldung bei Help Center lautet ${code}.`);
    expect(mail.text).toContain(`/p/${scenario.portal.slug}`);
    expect(mail.text).not.toMatch(/sign in|Your code/i);
  });

  it("is in the portal's default language when the page says none", async () => {
    const scenario = await portalScenario();
    await api("PATCH", `/portals/${scenario.portal.id}`, { key: scenario.key, body: { defaultLanguage: "fr" } });
    await portalCall(
      "mutation",
      "auth.requestCode",
      { portal: scenario.portal.slug, email: scenario.endUser.email },
      { headers: clientAddress() },
    );
    const mail = await mailFor(scenario);
    expect(mail.subject).toMatch(/^Votre code de connexion à Help Center\u00a0: \d{6}$/);
  });

  it("refuses a language the portal does not speak, and sends nothing", async () => {
    const scenario = await portalScenario();
    for (const language of ["xx", "EN", "", 3]) {
      const asked = await portalCall(
        "mutation",
        "auth.requestCode",
        { portal: scenario.portal.slug, email: scenario.endUser.email, language },
        { headers: clientAddress() },
      );
      expect(asked.status, JSON.stringify(language)).toBe(400);
    }
    expect(await getDb().outboxMessage.count({ where: { organizationId: scenario.tenant.organization.id } })).toBe(0);
  });
});
