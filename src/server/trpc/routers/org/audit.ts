import { z } from "zod";
import {
  AuditFilterOptions,
  ExportAuditEventsInput,
  ListAuditEventsInput,
  ListAuditEventsOutput,
  ReadAuditLogOutput,
} from "@/schemas/org/audit";
import { auditFilterOptions, exportAuditEvents, listAuditEvents, readAuditLog } from "@/server/services/org/audit-log";
import { memberCalls, restRouter } from "../../service-procedures";

export const auditRouter = restRouter("Audit log", (rest) => ({
  list: rest.query(listAuditEvents, {
    path: "/audit-events",
    summary: "List audit events",
    description:
      "Every change made through any door, and every sign-in and failed sign-in, newest first. `action` takes one action (`end_user.update`) or every action on a resource (`end_user.`).",
    input: ListAuditEventsInput,
    output: ListAuditEventsOutput,
  }),

  /** Served by src/server/adapters/download.ts, which streams it; the procedure documents it. */
  export: rest
    .route("GET", exportAuditEvents.requirement, {
      path: "/audit-events/export",
      summary: "Export audit events",
      description:
        "Every matching event, newest first, streamed: JSON Lines (one event a line, as in the list) or CSV with a header row.",
      download: true,
      input: ExportAuditEventsInput,
      output: z.string(),
    })
    .query(async ({ ctx, input }) => {
      let text = "";
      for await (const chunk of await exportAuditEvents(ctx.db, ctx.actor, input)) text += chunk;
      return text;
    }),

  /** Console only: the list with names resolved and each event as a sentence. */
  readable: memberCalls.queryWith(readAuditLog, ListAuditEventsInput, ReadAuditLogOutput),

  /** Console only: the people, keys and items the filters offer by name. */
  filterOptions: memberCalls.query(auditFilterOptions, AuditFilterOptions),
}));
