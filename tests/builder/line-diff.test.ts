import { describe, expect, it } from "vitest";
import { lineDiff } from "@/lib/line-diff";

describe("lineDiff", () => {
  it("marks removed and added lines around common ones", () => {
    expect(lineDiff("a\nb\nc", "a\nc\nd")).toEqual([
      { op: "same", text: "a" },
      { op: "remove", text: "b" },
      { op: "same", text: "c" },
      { op: "add", text: "d" },
    ]);
    expect(lineDiff("x", "x")).toEqual([{ op: "same", text: "x" }]);
  });
});
