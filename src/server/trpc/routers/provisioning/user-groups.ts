import { z } from "zod";
import {
  AddGroupGrantInput,
  AddGroupMemberInput,
  CreateUserGroupInput,
  Grant,
  GroupIdInput,
  ListGroupMembersInput,
  ListGroupMembersOutput,
  ListUserGroupsInput,
  ListUserGroupsOutput,
  RemoveGroupGrantInput,
  UpdateUserGroupInput,
  UserGroupOutput,
  GroupMemberOutput,
  GrantOutput,
} from "@/schemas/provisioning/provisioning";
import {
  addGroupGrant,
  addGroupMember,
  createUserGroup,
  deleteUserGroup,
  getUserGroup,
  listGroupGrants,
  listGroupMembers,
  listUserGroups,
  removeGroupGrant,
  removeGroupMember,
  updateUserGroup,
} from "@/server/services/provisioning/user-groups";
import { scopedProcedure } from "../../init";
import { answeringAs, restRouter } from "../../service-procedures";

export const userGroupsRouter = restRouter("User groups", (rest) => ({
  create: rest.mutation("POST", answeringAs("userGroup", createUserGroup), {
    path: "/user-groups",
    summary: "Create an empty user group",
    errors: ["groups_disabled"],
    successStatus: 201,
    input: CreateUserGroupInput,
    output: UserGroupOutput,
  }),

  list: rest.query(listUserGroups, {
    path: "/user-groups",
    summary: "List user groups",
    errors: ["groups_disabled"],
    input: ListUserGroupsInput,
    output: ListUserGroupsOutput,
  }),

  get: rest.query(answeringAs("userGroup", getUserGroup), {
    path: "/user-groups/{groupId}",
    summary: "Get a user group",
    errors: ["groups_disabled", "not_found"],
    input: GroupIdInput,
    output: UserGroupOutput,
  }),

  update: rest.mutation("PATCH", answeringAs("userGroup", updateUserGroup), {
    path: "/user-groups/{groupId}",
    summary: "Rename or describe a user group",
    description:
      "A plan's group follows the plan: renaming it answers 409 `plan_group`. A directory group's name follows the directory: 409 `directory_managed`.",
    errors: ["groups_disabled", "not_found", "plan_group", "directory_managed"],
    input: UpdateUserGroupInput,
    output: UserGroupOutput,
  }),

  delete: rest.remove(deleteUserGroup, {
    path: "/user-groups/{groupId}",
    summary: "Delete a user group",
    description: "A plan's group answers 409 `plan_group`: archive the plan instead.",
    errors: ["groups_disabled", "not_found", "plan_group"],
    input: GroupIdInput,
  }),

  addMember: rest
    .route("POST", addGroupMember.requirement, {
      path: "/user-groups/{groupId}/members",
      summary: "Add an end user to a group",
      description:
        "201 for a new member, 200 when already a member. A plan's group answers 422 `plan_group`; a directory group 409 `directory_managed`.",
      errors: ["groups_disabled", "not_found", "end_user_not_found", "plan_group", "directory_managed"],
      successStatus: 201,
      alsoSucceeds: { status: 200, description: "The end user was already a member; nothing written" },
      input: AddGroupMemberInput,
      output: GroupMemberOutput,
    })
    .mutation(async ({ ctx, input }) => {
      const { created, member } = await addGroupMember(ctx.db, ctx.actor, input);
      ctx.response.status = created ? 201 : 200;
      return { member };
    }),

  removeMember: rest.remove(removeGroupMember, {
    path: "/user-groups/{groupId}/members/{endUserId}",
    summary: "Remove an end user from a group",
    errors: ["groups_disabled", "not_found", "plan_group", "directory_managed"],
    input: z.strictObject({ groupId: z.uuid(), endUserId: z.uuid() }),
  }),

  members: scopedProcedure(listGroupMembers.requirement)
    .input(ListGroupMembersInput)
    .output(ListGroupMembersOutput)
    .query(({ ctx, input }) => listGroupMembers(ctx.db, ctx.actor, input)),

  addGrant: rest
    .route("POST", addGroupGrant.requirement, {
      path: "/user-groups/{groupId}/grants",
      summary: "Grant a group access",
      description:
        "Group grants are additive (always allow). 201 for a new grant, 200 with the existing one for a duplicate. Where access is managed with groups, a `deploymentId` answers `portal_scope_unsupported`: admit the group to the portal instead.",
      errors: ["groups_disabled", "not_found", "grant_target_not_found", "portal_scope_unsupported"],
      successStatus: 201,
      alsoSucceeds: { status: 200, description: "The same grant existed; the existing one, nothing written" },
      input: AddGroupGrantInput,
      output: GrantOutput,
    })
    .mutation(async ({ ctx, input }) => {
      const { created, grant } = await addGroupGrant(ctx.db, ctx.actor, input);
      ctx.response.status = created ? 201 : 200;
      return { grant };
    }),

  removeGrant: rest.remove(removeGroupGrant, {
    path: "/user-groups/{groupId}/grants/{grantId}",
    summary: "Remove a group grant",
    errors: ["groups_disabled", "not_found"],
    input: RemoveGroupGrantInput,
  }),

  grants: scopedProcedure(listGroupGrants.requirement)
    .input(GroupIdInput)
    .output(z.array(Grant))
    .query(({ ctx, input }) => listGroupGrants(ctx.db, ctx.actor, input)),
}));
