// Moments as the console words them: short in lists and lines, whole on hover (src/components/console/when.tsx).

/** A moment as the console shows it in lists and lines: "Today, 12:25 AM", "Yesterday, 3:10 PM", "Tomorrow, 9:00 AM", "Dec 8, 9:05 AM", "Dec 8, 2025". */
export function whenWords(at: string | Date, now: Date = new Date(), locale?: string): string {
  const then = new Date(at);
  const day = dayWords(then, now, locale);
  if (!(Math.abs(daysAgo(then, now)) <= 1 || then.getFullYear() === now.getFullYear())) return day;
  return `${day}, ${then.toLocaleTimeString(locale, { hour: "numeric", minute: "2-digit" })}`;
}

const NEAR_DAYS: Record<number, string> = { [-1]: "Tomorrow", 0: "Today", 1: "Yesterday" };

/** The day of a moment, where the time does not matter (joined, last seen): "Today", "Yesterday", "Dec 8", "Dec 8, 2025". */
export function dayWords(at: string | Date, now: Date = new Date(), locale?: string): string {
  const then = new Date(at);
  return (
    NEAR_DAYS[daysAgo(then, now)] ??
    then.toLocaleDateString(locale, {
      month: "short",
      day: "numeric",
      ...(then.getFullYear() === now.getFullYear() ? {} : { year: "numeric" }),
    })
  );
}

/** Whole days from a moment's day to today's, in the reader's time zone (negative ahead). */
function daysAgo(then: Date, now: Date): number {
  const midnight = (date: Date) => new Date(date.getFullYear(), date.getMonth(), date.getDate()).getTime();
  return Math.round((midnight(now) - midnight(then)) / 86_400_000);
}

/** The whole moment, to the second: what a `When` shows on hover. */
export function fullWhen(at: string | Date, locale?: string): string {
  return new Date(at).toLocaleString(locale, { dateStyle: "full", timeStyle: "medium" });
}

/** A stored time, or "never" for one that has not happened (a key never used). */
export function timeOrNever(value: string | null): string {
  return value ? whenWords(value) : "never";
}
