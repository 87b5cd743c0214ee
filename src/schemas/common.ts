// Shapes shared by every resource. Schemas here import nothing from the server, so the
// console can use them for its forms.
import { z } from "zod";

export const Uuid = z.uuid();
export const Timestamp = z.iso.datetime({ offset: true });

export const ErrorEnvelope = z
  .object({
    error: z
      .object({
        code: z.string().meta({ description: "Stable machine-readable code; branch on this." }),
        message: z.string().meta({ description: "Human-readable; wording may change." }),
      })
      .catchall(z.unknown()),
  })
  .meta({ id: "ErrorEnvelope" });

/** Query of every list endpoint: `limit` 1..200 (default 50) and the previous page's `nextCursor`. */
export const ListQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().min(1).max(500).optional(),
});
export type ListQuery = z.infer<typeof ListQuery>;

export const NextCursor = z.string().nullable().meta({ description: "Pass as `cursor` for the next page; null on the last page." });
