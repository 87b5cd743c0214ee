import { z } from "zod";
import { ChangeRoleInput, Member, MemberIdInput, MemberOutput } from "@/schemas/identity/member";
import { sendPasswordResetLink } from "@/server/services/identity/invitations";
import { changeMemberRole, listMembers, removeMember } from "@/server/services/identity/members";
import { memberProcedure, router } from "../../init";
import { memberCalls } from "../../service-procedures";

export const membersRouter = router({
  list: memberCalls.query(listMembers, z.array(Member)),
  changeRole: memberCalls.mutationWith(changeMemberRole, ChangeRoleInput, Member),
  resetPassword: memberProcedure(sendPasswordResetLink.requirement)
    .input(MemberIdInput)
    .output(MemberOutput)
    .mutation(async ({ ctx, input }) => ({ member: await sendPasswordResetLink(ctx.db, ctx.actor, input) })),
  remove: memberCalls.mutationWith(removeMember, MemberIdInput, Member),
});
