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
