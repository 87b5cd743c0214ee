// Two items of one name told apart: the duplicate-name warning under a name field and the state
// and last edit that pickers show (src/lib/item-state.ts).
import { describe, expect, it } from "vitest";
import { duplicateNameWarning, itemStateWords } from "@/lib/item-state";

const now = new Date("2026-12-04T12:00:00Z");
const rows = [
  { id: "a", name: "Support", published: true, updatedAt: "2026-12-04T11:57:00Z" },
  { id: "b", name: "Support desk", published: false, updatedAt: "2026-12-04T09:00:00Z" },
];

describe("item state and duplicate names", () => {
  it("says draft or published and when it was last edited", () => {
    expect(itemStateWords(rows[0]!, now)).toBe("published · edited 3 minutes ago");
    expect(itemStateWords(rows[1]!, now)).toBe("draft · edited 3 hours ago");
    expect(itemStateWords({ published: false })).toBe("draft");
  });

  it("flags a name another item has, whatever its case and spaces, but not a longer name or the item itself", () => {
    expect(duplicateNameWarning("flow", "  support ", rows, undefined, now)).toBe(
      'Another flow is already named "Support" (published · edited 3 minutes ago). You can keep the name; pickers show each one\'s state and last edit to tell them apart.',
    );
    expect(duplicateNameWarning("flow", "Support", rows, "a", now)).toBeNull();
    expect(duplicateNameWarning("flow", "Supp", rows, undefined, now)).toBeNull();
    expect(duplicateNameWarning("flow", "", rows, undefined, now)).toBeNull();
    const twice = [...rows, { id: "c", name: "SUPPORT", published: false }];
    expect(duplicateNameWarning("app", "support", twice, undefined, now)).toMatch(/^2 other apps are already named/);
  });
});
