// Moments as the console words them (src/lib/when.ts): a day's name near today, the month and day
// within the year, the year beyond it; "never" for a moment that has not happened.
import { describe, expect, it } from "vitest";
import { dayWords, fullWhen, timeOrNever, whenWords as wordsAsFormatted } from "@/lib/when";

// ICU's versions differ on the space before AM (a narrow no-break space in some): compared as a space.
const whenWords = (...args: Parameters<typeof wordsAsFormatted>) => wordsAsFormatted(...args).replace(/\s/g, " ");

// Local times, so that the day boundaries are the reader's whatever the machine's time zone.
const now = new Date(2026, 11, 8, 14, 30);

describe("whenWords", () => {
  it("names today, yesterday and tomorrow, with the time", () => {
    expect(whenWords(new Date(2026, 11, 8, 0, 25), now, "en-US")).toBe("Today, 12:25 AM");
    expect(whenWords(new Date(2026, 11, 7, 23, 59), now, "en-US")).toBe("Yesterday, 11:59 PM");
    expect(whenWords(new Date(2026, 11, 9, 9, 0), now, "en-US")).toBe("Tomorrow, 9:00 AM");
  });

  it("gives the month and day within the year, and the year beyond it", () => {
    expect(whenWords(new Date(2026, 0, 3, 9, 5), now, "en-US")).toBe("Jan 3, 9:05 AM");
    expect(whenWords(new Date(2025, 11, 8, 9, 5), now, "en-US")).toBe("Dec 8, 2025");
  });

  it("takes the stored ISO form and the reader's locale", () => {
    const at = new Date(2026, 11, 8, 16, 5);
    expect(whenWords(at.toISOString(), now, "en-GB")).toBe("Today, 16:05");
  });
});

describe("dayWords", () => {
  it("drops the time: a day's name near today, the month and day, the year beyond this one", () => {
    expect(dayWords(new Date(2026, 11, 8, 23, 59), now, "en-US")).toBe("Today");
    expect(dayWords(new Date(2026, 11, 7, 0, 1), now, "en-US")).toBe("Yesterday");
    expect(dayWords(new Date(2026, 10, 30, 12, 0), now, "en-US")).toBe("Nov 30");
    expect(dayWords(new Date(2024, 1, 29, 12, 0), now, "en-US")).toBe("Feb 29, 2024");
  });

  it("names yesterday across a new year, with its time", () => {
    const newYear = new Date(2027, 0, 1, 8, 0);
    expect(whenWords(new Date(2026, 11, 31, 22, 15), newYear, "en-US")).toBe("Yesterday, 10:15 PM");
  });
});

describe("fullWhen and timeOrNever", () => {
  it("gives the whole moment to the second", () => {
    const full = fullWhen(new Date(2026, 11, 8, 0, 25, 50), "en-US").replace(/\s/g, " ");
    expect(full).toMatch(/^Tuesday, December 8, 2026(,| at) 12:25:50 AM$/);
  });

  it("says never for a moment that has not happened", () => {
    expect(timeOrNever(null)).toBe("never");
    expect(timeOrNever(new Date().toISOString())).toMatch(/^Today, /);
  });
});
