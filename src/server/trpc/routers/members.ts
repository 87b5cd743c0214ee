import { z } from "zod";
import { ChangeRoleInput, InviteMemberInput, Member, MemberIdInput, ResetPasswordOutput } from "@/schemas/member";
import { addMember, changeMemberRole, listMembers, removeMember, resetMemberPassword } from "@/server/services/members";
import { memberProcedure, router } from "../init";

export const membersRouter = router({
  list: memberProcedure(listMembers.requirement)
    .output(z.array(Member))
    .query(({ ctx }) => listMembers(ctx.db, ctx.actor)),
  invite: memberProcedure(addMember.requirement)
    .input(InviteMemberInput)
    .output(z.object({ member: Member, temporaryPassword: z.string().nullable() }))
    .mutation(({ ctx, input }) => addMember(ctx.db, ctx.actor, input)),
  changeRole: memberProcedure(changeMemberRole.requirement)
    .input(ChangeRoleInput)
    .output(Member)
    .mutation(({ ctx, input }) => changeMemberRole(ctx.db, ctx.actor, input)),
  resetPassword: memberProcedure(resetMemberPassword.requirement)
    .input(MemberIdInput)
    .output(ResetPasswordOutput)
    .mutation(({ ctx, input }) => resetMemberPassword(ctx.db, ctx.actor, input)),
  remove: memberProcedure(removeMember.requirement)
    .input(MemberIdInput)
    .output(Member)
    .mutation(({ ctx, input }) => removeMember(ctx.db, ctx.actor, input)),
});
