// The readable compare of two versions (src/lib/version-diff.ts): nodes, members and fields
// added, removed and changed, in words; what is not content (state, places, read-back names) is no change.
import { describe, expect, it } from "vitest";
import { versionDiff } from "@/lib/version-diff";

const node = (id: string, type: string, data: Record<string, unknown> = {}) => ({ id, type, data, blocks: [] });

describe("versionDiff", () => {
  it("names nodes added, removed and changed, with the changed field's old and new value", () => {
    const before = {
      name: "Support",
      nodes: [
        node("start", "trigger_start"),
        node("ask", "llm", { prompt: "Answer {{inputs.q}}", position: { x: 0, y: 0 } }),
        node("old", "template", { template: "x", title: "Old step" }),
      ],
    };
    const after = {
      name: "Support answers",
      nodes: [
        node("start", "trigger_start"),
        node("ask", "llm", { prompt: "Answer briefly {{inputs.q}}", position: { x: 50, y: 90 } }),
        node("search_docs", "knowledge_search", { query: "{{inputs.q}}" }),
      ],
    };
    expect(versionDiff(before, after).map((change) => change.words)).toEqual([
      "Name changed from Support to Support answers",
      'Added node "Search docs" (Knowledge search)',
      'Removed node "Old step" (Template)',
      'Changed node "Ask" (LLM): prompt from Answer {{inputs.q}} to Answer briefly {{inputs.q}}',
    ]);
    expect(versionDiff(before, after).find((change) => change.name === "Ask")).toMatchObject({
      change: "changed",
      subject: "node",
      fields: ["prompt"],
    });
  });

  it("a connection changed and a node's type changed are said without values", () => {
    const before = { nodes: [node("a", "template", { template: "t" }), node("b", "output", { value: "v" })] };
    const after = {
      nodes: [node("a", "template", { template: "t", next: "b" }), node("b", "template", { value: "v" })],
    };
    expect(versionDiff(before, after).map((change) => change.words)).toEqual([
      'Changed node "A" (Template): connections',
      'Changed node "B" (Template): type',
    ]);
  });

  it("an app's members by name, nested settings by their labels, and no change for state or key order", () => {
    const member = (id: string, name: string, position: number) => ({
      id,
      name,
      kind: "agent",
      position,
      published: true,
    });
    const a = "00000000-0000-4000-8000-00000000000a";
    const b = "00000000-0000-4000-8000-00000000000b";
    const before = {
      id: "x",
      updatedAt: "2026-01-01",
      members: [member(a, "Billing", 0)],
      api: { greeting: "Hi", conversationEnabled: true },
      goals: ["Be brief"],
    };
    const after = {
      id: "x",
      updatedAt: "2026-02-02",
      members: [member(a, "Billing (renamed)", 1), member(b, "Shipping", 0)],
      api: { conversationEnabled: false, greeting: "Hi" },
      goals: ["Be brief", "Cite sources"],
    };
    expect(versionDiff(before, after).map((change) => change.words)).toEqual([
      'Members: added "Shipping"',
      'Members: changed "Billing (renamed)" (position)',
      "Endpoints and schemas › Conversation enabled changed from true to false",
      'Goals: added "Cite sources"',
    ]);
    expect(versionDiff(after, { ...after, api: { greeting: "Hi", conversationEnabled: false } })).toEqual([]);
  });

  it("a field set and a field cleared", () => {
    expect(versionDiff({ description: "" }, { description: "Answers refunds" })).toEqual([
      {
        change: "added",
        subject: "field",
        field: "Description",
        before: "(empty)",
        after: "Answers refunds",
        words: "Description set to Answers refunds",
      },
    ]);
    expect(versionDiff({ systemInstruction: "Be kind" }, { systemInstruction: "" })[0]!.words).toBe(
      "Instructions cleared (was Be kind)",
    );
  });
});
