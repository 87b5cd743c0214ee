// The command palette's search (services/org/name-search.ts findByName): items of the organization
// whose name contains the text typed, a few per kind.
import { z } from "zod";
import { MAX_NAME_CHARS } from "./limits";
import { plainText, Uuid } from "./common";

export const FOUND_KINDS = ["end_user", "app", "agent", "flow", "knowledgebase", "page"] as const;
export const FoundKind = z.enum(FOUND_KINDS);
export type FoundKind = z.infer<typeof FoundKind>;

/** At most this many of each kind. */
export const MAX_FOUND_PER_KIND = 5;

export const FindByNameInput = z.strictObject({ q: plainText(MAX_NAME_CHARS) });
export type FindByNameInput = z.infer<typeof FindByNameInput>;

export const FoundItem = z.object({
  kind: FoundKind,
  id: Uuid,
  name: z.string(),
  /** What tells two of the same name apart: an end user's email, a page's knowledgebase. */
  detail: z.string(),
  href: z.string(),
});
export type FoundItem = z.infer<typeof FoundItem>;

export const FindByNameOutput = z.object({ items: z.array(FoundItem) });
export type FindByNameOutput = z.infer<typeof FindByNameOutput>;
