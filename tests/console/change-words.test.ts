// The console's "last change" line and activity list in words (src/lib/change-words.ts): field and
// door names as a builder reads them, times as "3 minutes ago".
import { describe, expect, it } from "vitest";
import {
  actionWords,
  agoWords,
  changeWhat,
  doorName,
  doorWords,
  eventWords,
  lastChangeWords,
} from "@/lib/change-words";

const NOW = new Date("2026-11-27T12:00:00Z");

describe("change words", () => {
  it("says what a draft update changed, with the editors' names for the fields", () => {
    expect(
      lastChangeWords(
        {
          at: "2026-11-27T11:57:00Z",
          by: "ana@example.com",
          source: "ui",
          action: "draft_updated",
          summary: "Changed systemInstruction",
        },
        NOW,
      ),
    ).toBe("Instructions edited by ana@example.com in the console, 3 minutes ago");
    expect(changeWhat({ action: "draft_updated", summary: "Changed name, builtIns, api" })).toBe(
      "Name, Built-in tools and Endpoints and schemas edited",
    );
    expect(changeWhat({ action: "draft_updated", summary: "Changed someNewField" })).toBe("Some new field edited");
    expect(changeWhat({ action: "draft_updated", summary: "Saved the draft unchanged" })).toBe("Saved without changes");
    expect(changeWhat({ action: "published", summary: "Published version 3 (live)" })).toBe(
      "Published version 3 (live)",
    );
  });

  it("names every door in words", () => {
    expect(doorWords("ui")).toBe("in the console");
    expect(doorWords("console")).toBe("in the console");
    expect(doorWords("api")).toBe("through the API");
    expect(doorWords("mcp")).toBe("from an AI client (MCP)");
    expect(doorWords("cli")).toBe("with the admin CLI");
  });

  it("names what a subscription or grant came through, as a table shows it", () => {
    expect(doorName("api")).toBe("API");
    expect(doorName("console")).toBe("Console");
    expect(doorName("processor")).toBe("Billing processor");
    expect(doorName("scim")).toBe("Directory sync");
    expect(doorName("group")).toBe("A group");
    expect(doorName("somewhere-new")).toBe("somewhere-new");
  });

  it("reads audit actions", () => {
    expect(actionWords("agent.draft_update")).toBe("Agent edited");
    expect(actionWords("app.publish")).toBe("App published");
    expect(actionWords("end_user.create")).toBe("End user created");
    expect(actionWords("flow.deploy")).toBe("Flow made live");
    expect(actionWords("page.approve_bulk")).toBe("page.approve_bulk");
    expect(actionWords("end_user.sign_in")).toBe("End user signed in");
    expect(actionWords("execution.approve")).toBe("Run approved");
    expect(actionWords("execution.await_approval")).toBe("Run paused for approval");
    expect(actionWords("sso_connection.metadata_refresh")).toBe("SSO connection metadata refreshed");
    expect(actionWords("subscription.bonus_credits")).toBe("Bonus credits given");
    expect(actionWords("user_group.member_add")).toBe("User group member added");
  });

  it("says how long ago, then the date", () => {
    expect(agoWords("2026-11-27T11:59:40Z", NOW)).toBe("just now");
    expect(agoWords("2026-11-27T11:59:00Z", NOW)).toBe("1 minute ago");
    expect(agoWords("2026-11-27T09:00:00Z", NOW)).toBe("3 hours ago");
    expect(agoWords("2026-11-26T10:00:00Z", NOW)).toBe("yesterday");
    expect(agoWords("2026-10-01T10:00:00Z", NOW)).toBe(new Date("2026-10-01T10:00:00Z").toLocaleDateString());
  });
});

describe("eventWords", () => {
  it("names the fields an update changed, and none for a creation", () => {
    // The actions the services record (knowledgebase.create, app.update), not past participles.
    const created = { action: "knowledgebase.create", outcome: "success", changes: { name: [null, "Handbook"] } };
    const updated = { action: "app.update", outcome: "success", changes: { name: ["A", "B"] } };
    expect(eventWords(created)).toBe("Knowledgebase created");
    expect(eventWords(updated)).toBe("App edited: Name");
    expect(eventWords({ ...updated, outcome: "failure" })).toContain("(failed)");
  });

  it("says which version a publish made", () => {
    const published = { action: "app.publish", outcome: "success", changes: { version: [1, 2] } };
    expect(eventWords(published)).toBe("App published as version 2");
    expect(eventWords({ ...published, changes: { version: [null, 1] } })).toBe("App published as version 1");
  });
});
