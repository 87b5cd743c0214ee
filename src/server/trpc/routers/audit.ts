import { z } from "zod";
import { ExportAuditEventsInput, ListAuditEventsInput, ListAuditEventsOutput } from "@/schemas/audit";
import { exportAuditEvents, listAuditEvents } from "@/server/services/audit-log";
import { router, scopedProcedure } from "../init";

export const auditRouter = router({
  list: scopedProcedure(listAuditEvents.requirement)
    .meta({
      openapi: {
        method: "GET",
        path: "/audit-events",
        tags: ["Audit log"],
        summary: "List audit events",
        description:
          "Every change made through any door, and every sign-in and failed sign-in, newest first. `action` takes one action (`end_user.update`) or every action on a resource (`end_user.`).",
      },
    })
    .input(ListAuditEventsInput)
    .output(ListAuditEventsOutput)
    .query(({ ctx, input }) => listAuditEvents(ctx.db, ctx.actor, input)),

  /** Served by src/server/adapters/download.ts, which streams it; the procedure documents it. */
  export: scopedProcedure(exportAuditEvents.requirement)
    .meta({
      openapi: {
        method: "GET",
        path: "/audit-events/export",
        tags: ["Audit log"],
        summary: "Export audit events",
        description:
          "Every matching event, newest first, streamed: JSON Lines (one event a line, as in the list) or CSV with a header row.",
      },
      download: true,
    })
    .input(ExportAuditEventsInput)
    .output(z.string())
    .query(async ({ ctx, input }) => {
      let text = "";
      for await (const chunk of await exportAuditEvents(ctx.db, ctx.actor, input)) text += chunk;
      return text;
    }),
});
