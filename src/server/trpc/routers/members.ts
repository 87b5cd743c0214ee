import { z } from "zod";
import { ChangeRoleInput, Member, MemberIdInput, ResetPasswordOutput } from "@/schemas/member";
import { changeMemberRole, listMembers, removeMember, resetMemberPassword } from "@/server/services/members";
import { memberProcedure, router } from "../init";

export const membersRouter = router({
  list: memberProcedure(listMembers.requirement)
    .output(z.array(Member))
    .query(({ ctx }) => listMembers(ctx.db, ctx.actor)),
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
