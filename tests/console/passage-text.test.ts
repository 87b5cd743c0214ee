// Passages in result lists read without the markdown heading marks they were written with
// (src/lib/passage-text.ts), and nothing else of their text changes.
import { describe, expect, it } from "vitest";
import { withoutHeadingMarks } from "@/lib/passage-text";

describe("withoutHeadingMarks", () => {
  it("drops the marks of headings, at the start and after a space", () => {
    expect(withoutHeadingMarks("Shipping ## Returns Returned parcels")).toBe("Shipping  Returns Returned parcels");
    expect(withoutHeadingMarks("# Shipping\n\n### Returns\nParcels")).toBe(" Shipping\n\n Returns\nParcels");
  });

  it("keeps a hash that is not a heading's mark", () => {
    for (const text of ["Order #1042 is late", "C# and F#", "####### seven is no heading", "a#b", "#hashtag"])
      expect(withoutHeadingMarks(text)).toBe(text);
  });
});
