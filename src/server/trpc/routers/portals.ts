import { z } from "zod";
import { ListQuery } from "@/schemas/common";
import { AdmitGroupInput, CreatePortalInput, ListPortalsOutput, Portal, PortalAdmission } from "@/schemas/provisioning";
import { admitGroup, createPortal, listAdmissions, listPortals } from "@/server/services/portals";
import { router, scopedProcedure } from "../init";

export const portalsRouter = router({
  list: scopedProcedure("end_users:read")
    .meta({ openapi: { method: "GET", path: "/portals", tags: ["Portals"], summary: "List portals" } })
    .input(ListQuery)
    .output(ListPortalsOutput)
    .query(({ ctx, input }) => listPortals(ctx.db, ctx.actor, input)),

  admit: scopedProcedure("end_users:write")
    .meta({
      openapi: {
        method: "POST",
        path: "/portals/{portalId}/admissions",
        tags: ["Portals"],
        summary: "Admit a user group to a portal",
        description: "201 for a new admission, 200 when the group is already admitted.",
      },
      errors: ["groups_disabled", "not_found", "group_not_found"],
      successStatus: 201,
    })
    .input(AdmitGroupInput)
    .output(z.object({ admission: PortalAdmission }))
    .mutation(async ({ ctx, input }) => {
      const { created, admission } = await admitGroup(ctx.db, ctx.actor, input);
      ctx.response.status = created ? 201 : 200;
      return { admission };
    }),

  create: scopedProcedure("end_users:write", { role: "admin" })
    .input(CreatePortalInput)
    .output(z.object({ portal: Portal }))
    .mutation(async ({ ctx, input }) => ({ portal: await createPortal(ctx.db, ctx.actor, input) })),

  admissions: scopedProcedure("end_users:read")
    .input(z.strictObject({ portalId: z.uuid() }))
    .output(z.array(PortalAdmission.extend({ groupName: z.string() })))
    .query(({ ctx, input }) => listAdmissions(ctx.db, ctx.actor, input)),
});
