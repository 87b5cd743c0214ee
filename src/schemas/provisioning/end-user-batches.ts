// Work on many end users at once: a CSV import (with its dry run) and a list's bulk actions.
import { z } from "zod";
import { plainText, Uuid } from "../common";
import { MAX_BULK_END_USERS, MAX_IMPORT_CSV_CHARS } from "../limits";

export const ImportEndUsersInput = z.strictObject({
  csv: plainText(MAX_IMPORT_CSV_CHARS).min(1).meta({
    description:
      "CSV text whose first line names the columns: `email` (required), `name`, `plan` and `groups` (names, several separated by `;`)",
  }),
  dryRun: z.boolean().default(true).meta({
    description: "`true` (the default) answers what would change and writes nothing; `false` applies it",
  }),
});
export type ImportEndUsersInput = z.infer<typeof ImportEndUsersInput>;

const RowError = z.object({ code: z.string(), message: z.string() });

export const ImportRowOutcome = z.enum(["created", "updated", "unchanged", "refused"]);
export const ImportRow = z
  .object({
    line: z.number().int().meta({ description: "The row's line in the file (the header is line 1)" }),
    email: z.string(),
    outcome: ImportRowOutcome,
    changes: z
      .array(z.string())
      .meta({ description: "The fields an update changes (`fullName`, `tierPlanIds`, `groupIds`, `revokedAt`)" }),
    endUserId: Uuid.nullable().meta({ description: "null for a refused row, and for a row a dry run would create" }),
    error: RowError.nullable().meta({
      description: "Why a refused row is refused: the code POST /end-users would answer",
    }),
  })
  .meta({ id: "ImportRow" });
export type ImportRow = z.infer<typeof ImportRow>;

export const ImportEndUsersOutput = z.object({
  dryRun: z.boolean(),
  summary: z.object({
    created: z.number().int(),
    updated: z.number().int(),
    unchanged: z.number().int(),
    refused: z.number().int(),
  }),
  rows: z.array(ImportRow),
});
export type ImportEndUsersOutput = z.infer<typeof ImportEndUsersOutput>;

export const BulkAction = z.enum(["grant", "add_to_group", "revoke"]);
export const BulkEndUsersInput = z.strictObject({
  endUserIds: z.array(Uuid).min(1).max(MAX_BULK_END_USERS),
  action: BulkAction.meta({
    description:
      "`grant`: access to `appId` (optionally only in `portalId`); `add_to_group`: membership of `groupId`; `revoke`: access ends",
  }),
  appId: Uuid.optional(),
  portalId: Uuid.optional(),
  groupId: Uuid.optional(),
});
export type BulkEndUsersInput = z.infer<typeof BulkEndUsersInput>;

export const BulkEndUsersOutput = z.object({
  results: z.array(
    z.object({
      endUserId: Uuid,
      outcome: z.enum(["changed", "unchanged", "refused"]),
      error: RowError.nullable(),
    }),
  ),
});
export type BulkEndUsersOutput = z.infer<typeof BulkEndUsersOutput>;
