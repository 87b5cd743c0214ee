// groupedDigits writes a whole number as toLocaleString("en") does, without loading ICU's data; cappedCount marks a count that stopped at the cap.
import { describe, expect, it } from "vitest";
import { cappedCount, groupedDigits } from "@/lib/digits";

describe("groupedDigits", () => {
  it("groups thousands with commas, as toLocaleString('en') does", () => {
    for (const value of [0, 7, 42, 999, 1_000, 12_345, 100_000, 1_000_000, 987_654_321, -1_234, -5]) {
      expect(groupedDigits(value)).toBe(value.toLocaleString("en"));
    }
  });
});

describe("cappedCount", () => {
  it("reads a count that stopped at the cap as at least that many", () => {
    expect(cappedCount(9_999, false)).toBe("9,999");
    expect(cappedCount(10_000, true)).toBe("10,000+");
  });
});
