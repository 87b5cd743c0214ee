import { describe, expect, it } from "vitest";
import { hasChanges, lineDiff, wordDiff } from "@/lib/text-diff";

describe("lineDiff", () => {
  it("marks removed and added lines around common ones", () => {
    expect(lineDiff("a\nb\nc", "a\nc\nd")).toEqual([
      { op: "same", text: "a" },
      { op: "remove", text: "b" },
      { op: "same", text: "c" },
      { op: "add", text: "d" },
    ]);
    expect(lineDiff("x", "x")).toEqual([{ op: "same", text: "x" }]);
    expect(hasChanges(lineDiff("x", "x"))).toBe(false);
  });
});

describe("wordDiff", () => {
  it("marks only the words that changed inside a line", () => {
    expect(wordDiff("The quick brown fox", "The slow brown fox")).toEqual([
      { op: "same", text: "The " },
      { op: "remove", text: "quick" },
      { op: "add", text: "slow" },
      { op: "same", text: " brown fox" },
    ]);
    expect(hasChanges(wordDiff("same text", "same text"))).toBe(false);
  });
});
