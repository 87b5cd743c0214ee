/**
 * Where the console's counts of what can grow without bound stop (a plan's subscribers, the home's
 * end users): past it they read "10,000+", and a count reads at most this many rows.
 */
export const COUNT_CAP = 10_000;

/** A count as people read it: "10,000+" when counting stopped at the cap. */
export function cappedCount(count: number, atLeast: boolean): string {
  return `${groupedDigits(count)}${atLeast ? "+" : ""}`;
}

/**
 * A whole number with commas between its thousands, as `toLocaleString("en")` writes it, without
 * Intl: a server's first Intl call loads ICU's locale data, about 7 MB held from then on, and the
 * API's descriptions are built when the server starts.
 */
export function groupedDigits(value: number): string {
  const digits = String(Math.abs(Math.trunc(value)));
  let grouped = "";
  for (let at = 0; at < digits.length; at++) {
    if (at > 0 && (digits.length - at) % 3 === 0) grouped += ",";
    grouped += digits[at];
  }
  return value < 0 && grouped !== "0" ? `-${grouped}` : grouped;
}
