// groupedDigits writes a whole number as toLocaleString("en") does, without loading ICU's data.
import { describe, expect, it } from "vitest";
import { groupedDigits } from "@/lib/digits";

describe("groupedDigits", () => {
  it("groups thousands with commas, as toLocaleString('en') does", () => {
    for (const value of [0, 7, 42, 999, 1_000, 12_345, 100_000, 1_000_000, 987_654_321, -1_234, -5]) {
      expect(groupedDigits(value)).toBe(value.toLocaleString("en"));
    }
  });
});
