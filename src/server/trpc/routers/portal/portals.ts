import { z } from "zod";
import {
  CreatePortalInput,
  EmbedSecretOutput,
  ListPortalsInput,
  ListPortalsOutput,
  PortalIdInput,
  UpdatePortalInput,
  PortalOutput,
  PortalDetailOutput,
} from "@/schemas/portal/portal";
import {
  AdmitGroupInput,
  GroupIdInput,
  PortalAdmissionOutput,
  PortalGroupAdmission,
  GroupPortalAdmission,
} from "@/schemas/provisioning/provisioning";
import {
  admitGroup,
  listAdmissions,
  listGroupAdmissions,
  removeAdmission,
} from "@/server/services/portal/portal-admissions";
import {
  createPortal,
  getPortal,
  listPortals,
  rotateEmbedSecret,
  updatePortal,
} from "@/server/services/portal/portals";
import { scopedProcedure } from "../../init";
import { answeringAs, restRouter } from "../../service-procedures";

export const portalsRouter = restRouter("Portals", (rest) => ({
  list: rest.query(listPortals, {
    path: "/portals",
    summary: "List portals",
    input: ListPortalsInput,
    output: ListPortalsOutput,
  }),

  create: rest
    .route("POST", createPortal.requirement, {
      path: "/portals",
      summary: "Create a portal",
      description:
        "A place where end users sign in with an email code and use the apps their access allows, at `/p/<slug>` on this host. `slug` is generated from the name when not given; a slug another portal has → 409 `conflict`.",
      errors: ["conflict"],
      successStatus: 201,
      input: CreatePortalInput,
      output: PortalOutput,
    })
    .mutation(async ({ ctx, input }) => {
      ctx.response.status = 201;
      return { portal: await createPortal(ctx.db, ctx.actor, input) };
    }),

  get: scopedProcedure(getPortal.requirement)
    .input(PortalIdInput)
    .output(PortalDetailOutput)
    .query(async ({ ctx, input }) => ({ portal: await getPortal(ctx.db, ctx.actor, input) })),

  update: rest.mutation("PATCH", answeringAs("portal", updatePortal), {
    path: "/portals/{id}",
    summary: "Change a portal's name, slug, greeting, look, featured apps, default language or embedding",
    description:
      "Only the fields passed change; `logoUrl`, `accentColor` and `provisionPlanId` take `null` to clear. `embed.allowedOrigins` replaces the list (origins only, at most 20). A slug another portal has → 409 `conflict`.",
    errors: ["not_found", "conflict"],
    input: UpdatePortalInput,
    output: PortalDetailOutput,
  }),

  rotateEmbedSecret: rest.mutation("POST", rotateEmbedSecret, {
    path: "/portals/{id}/embed-secret",
    summary: "Create or rotate the portal's embed secret",
    description:
      "The HS256 secret the organization's backend signs embed tokens with, shown once. A previous secret keeps verifying tokens for 24 hours.",
    errors: ["not_found"],
    input: PortalIdInput,
    output: EmbedSecretOutput,
  }),

  admit: rest
    .route("POST", admitGroup.requirement, {
      path: "/portals/{portalId}/admissions",
      summary: "Admit a user group to a portal",
      description: "201 for a new admission, 200 when the group is already admitted.",
      errors: ["groups_disabled", "not_found", "group_not_found"],
      successStatus: 201,
      alsoSucceeds: {
        status: 200,
        description: "The group was already admitted; the existing admission, nothing written",
      },
      input: AdmitGroupInput,
      output: PortalAdmissionOutput,
    })
    .mutation(async ({ ctx, input }) => {
      const { created, admission } = await admitGroup(ctx.db, ctx.actor, input);
      ctx.response.status = created ? 201 : 200;
      return { admission };
    }),

  removeAdmission: rest.remove(removeAdmission, {
    path: "/portals/{portalId}/admissions/{groupId}",
    summary: "End a user group's admission to a portal",
    description:
      "The group's members no longer enter the portal through this group; access they have through another admitted group stays.",
    errors: ["groups_disabled", "not_found"],
    input: AdmitGroupInput,
  }),

  admissions: scopedProcedure(listAdmissions.requirement)
    .input(z.strictObject({ portalId: z.uuid() }))
    .output(z.array(PortalGroupAdmission))
    .query(({ ctx, input }) => listAdmissions(ctx.db, ctx.actor, input)),

  /** The other way round: the portals one group is admitted to. */
  admissionsOfGroup: scopedProcedure(listGroupAdmissions.requirement)
    .input(GroupIdInput)
    .output(z.array(GroupPortalAdmission))
    .query(({ ctx, input }) => listGroupAdmissions(ctx.db, ctx.actor, input)),
}));
