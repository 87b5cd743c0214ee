import { z } from "zod";
import { ChangeRoleInput, Member, MemberIdInput, MemberOutput } from "@/schemas/identity/member";
import { sendPasswordResetLink } from "@/server/services/identity/invitations";
import { changeMemberRole, listMembers, removeMember } from "@/server/services/identity/members";
import { memberProcedure, router } from "../../init";

export const membersRouter = router({
  list: memberProcedure(listMembers.requirement)
    .output(z.array(Member))
    .query(({ ctx }) => listMembers(ctx.db, ctx.actor)),
  changeRole: memberProcedure(changeMemberRole.requirement)
    .input(ChangeRoleInput)
    .output(Member)
    .mutation(({ ctx, input }) => changeMemberRole(ctx.db, ctx.actor, input)),
  resetPassword: memberProcedure(sendPasswordResetLink.requirement)
    .input(MemberIdInput)
    .output(MemberOutput)
    .mutation(async ({ ctx, input }) => ({ member: await sendPasswordResetLink(ctx.db, ctx.actor, input) })),
  remove: memberProcedure(removeMember.requirement)
    .input(MemberIdInput)
    .output(Member)
    .mutation(({ ctx, input }) => removeMember(ctx.db, ctx.actor, input)),
});
