// Conditional writes: the versions (`updatedAt` in milliseconds) a write may apply to, as a
// client states them (If-Match at the REST door). A write to any other version changes nothing
// and answers `precondition_failed`.
import { AppError } from "@/server/errors";

/** `*`: any existing version; otherwise the versions the client read. An empty list matches nothing. */
export type VersionMatch = "*" | readonly number[];

export function versionChanged(what: string): AppError {
  return new AppError(
    "precondition_failed",
    `The ${what} changed since you read it (If-Match names another version); read it again and retry with its new ETag. Nothing was written.`,
  );
}

/** Names particular versions (not `*`), so a concurrent write in between also fails the precondition. */
export function namesVersions(match: VersionMatch | undefined): match is readonly number[] {
  return match !== undefined && match !== "*";
}

export function checkVersion(match: VersionMatch | undefined, updatedAt: Date, what: string): void {
  if (namesVersions(match) && !match.includes(updatedAt.getTime())) throw versionChanged(what);
}
