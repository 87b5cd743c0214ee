// The lists' search by name (`q`): a case-insensitive part of the name, in which % and _ are the
// characters typed and not LIKE's wildcards (Prisma's `contains` passes them through as wildcards).

/** `text` with LIKE's wildcards and its escape character escaped (PostgreSQL's default escape is `\`). */
export function likeEscaped(text: string): string {
  return text.replace(/[\\%_]/g, "\\$&");
}

/** The Prisma filter of rows whose `name` contains `q`; none when `q` is blank. */
export function nameContains(q: string | undefined): { name?: { contains: string; mode: "insensitive" } } {
  const text = q?.trim();
  return text ? { name: { contains: likeEscaped(text), mode: "insensitive" } } : {};
}
