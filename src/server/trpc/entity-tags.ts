// ETag and If-Match for drafts and pages: a resource's tag is its `updatedAt` in milliseconds,
// quoted (a strong tag: every write moves `updatedAt`). If-Match becomes the list of versions a
// write may apply to, checked by the service inside its compare-and-set; a tag that is not ours
// matches nothing, so a bogus If-Match is refused like a stale one.
import type { VersionMatch } from "@/server/services/support/preconditions";

export function entityTag(updatedAt: Date | string): string {
  return `"${new Date(updatedAt).getTime()}"`;
}

/** The resource, its tag set as the response's ETag (a draft or a page read or written). */
export function tagged<T extends { updatedAt?: unknown }>(response: { headers: Headers }, resource: T): T {
  response.headers.set("ETag", entityTag(resource.updatedAt as Date | string));
  return resource;
}

/** The If-Match header as versions; undefined when absent. Split on commas in one pass (no regular expression). */
export function ifMatchOf(headers: Headers | undefined): VersionMatch | undefined {
  const value = headers?.get("if-match");
  if (value === null || value === undefined) return undefined;
  if (value.trim() === "*") return "*";
  const versions: number[] = [];
  for (const part of value.split(",")) {
    const tag = part.trim();
    // Weak tags never match under the strong comparison If-Match uses.
    if (tag.length < 3 || !tag.startsWith('"') || !tag.endsWith('"')) continue;
    const digits = tag.slice(1, -1);
    if (digits.length > 16 || ![...digits].every((c) => c >= "0" && c <= "9")) continue;
    versions.push(Number(digits));
  }
  return versions;
}
