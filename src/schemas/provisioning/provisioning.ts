// End users, subscriptions, grants, tier plans, user groups and portals.
import { z } from "zod";
import {
  boundedInt,
  descriptionText,
  emailAddress,
  ListQuery,
  NameQuery,
  nameText,
  NextCursor,
  plainText,
  Timestamp,
  TimestampInput,
  Uuid,
} from "../common";
import { MAX_CREDITS, MAX_EMAIL_CHARS, MAX_NAME_CHARS } from "../limits";

const Email = emailAddress().meta({ description: "Trimmed and compared case-insensitively" });

export const GrantTargetKind = z.enum(["app"]);
export const GrantEffect = z.enum(["allow"]);

/** A grant as written: on POST /end-users (`grants`) and on a group. */
export const GrantInput = z.strictObject({
  targetKind: GrantTargetKind,
  targetId: Uuid,
  effect: GrantEffect.default("allow"),
  deploymentId: Uuid.optional().meta({ description: "A portal the grant is limited to" }),
  expiresAt: TimestampInput.optional(),
});
export type GrantInput = z.infer<typeof GrantInput>;

export const Grant = z
  .object({
    id: Uuid,
    targetKind: z.string(),
    targetId: Uuid,
    effect: z.string(),
    deploymentId: Uuid.nullable(),
    source: z
      .string()
      .meta({ description: "The door it was made through (`api`, `console`, `mcp`, `cli`, `scim`), or `group`" }),
    expiresAt: Timestamp.nullable(),
  })
  .meta({ id: "Grant" });
export type Grant = z.infer<typeof Grant>;

export const Subscription = z
  .object({
    id: Uuid,
    tierPlanId: Uuid,
    tierPlanName: z.string(),
    status: z.enum(["active", "canceled"]),
    creditAllowance: z.number().int(),
    creditsUsed: z.number().int(),
    creditsResetAt: Timestamp,
  })
  .meta({ id: "Subscription" });
export type Subscription = z.infer<typeof Subscription>;

export const SubscriptionDetail = Subscription.extend({
  provisionedBy: z.enum(["api", "console", "processor"]),
  isComped: z.boolean(),
  bonusCredits: z.number().int(),
}).meta({ id: "SubscriptionDetail" });
export type SubscriptionDetail = z.infer<typeof SubscriptionDetail>;

export const EndUserSummary = z
  .object({ id: Uuid, email: z.email(), fullName: z.string(), createdAt: Timestamp })
  .meta({ id: "EndUserSummary" });

export const EndUser = z
  .object({
    id: Uuid,
    email: z.email(),
    fullName: z.string(),
    authMethod: z.string(),
    emailVerifiedAt: Timestamp.nullable(),
    revokedAt: Timestamp.nullable(),
    /** Set while no active directory (SCIM) user stands for the end user: no access, as when revoked. */
    suspendedAt: Timestamp.nullable(),
    lastSeenAt: Timestamp.nullable(),
    createdAt: Timestamp,
  })
  .meta({ id: "EndUser" });
export type EndUser = z.infer<typeof EndUser>;

export const EndUserDetail = EndUser.extend({
  subscriptions: z.array(SubscriptionDetail),
  grants: z.array(Grant),
}).meta({ id: "EndUserDetail" });
export type EndUserDetail = z.infer<typeof EndUserDetail>;

export const ProvisionEndUserInput = z.strictObject({
  email: Email,
  fullName: plainText(MAX_NAME_CHARS).trim().optional(),
  tierPlanIds: z.array(Uuid).max(50).optional().meta({ description: "Each becomes its own subscription" }),
  groupIds: z.array(Uuid).max(50).optional(),
  grants: z
    .array(GrantInput)
    .max(100)
    .optional()
    .meta({ description: "Per-user access grants (organizations that manage access with grants)" }),
});
export type ProvisionEndUserInput = z.infer<typeof ProvisionEndUserInput>;

export const ProvisionEndUserOutput = z.object({
  endUser: EndUserSummary,
  created: z.boolean(),
  subscriptions: z.array(Subscription),
  grantsCreated: z.number().int(),
});
export type ProvisionEndUserOutput = z.infer<typeof ProvisionEndUserOutput>;

export const EndUserIdInput = z.strictObject({ endUserId: Uuid });
export type EndUserIdInput = z.infer<typeof EndUserIdInput>;
export const UpdateEndUserInput = z.strictObject({
  endUserId: Uuid,
  fullName: plainText(MAX_NAME_CHARS).trim().optional(),
});
export type UpdateEndUserInput = z.infer<typeof UpdateEndUserInput>;
export const EndUserStatus = z.enum(["active", "revoked", "suspended"]);
export type EndUserStatus = z.infer<typeof EndUserStatus>;
export const EndUserSort = z.enum(["created", "newest", "email", "lastSeen", "creditsLeft", "creditsLeftDesc"]);
export type EndUserSort = z.infer<typeof EndUserSort>;
export const ListEndUsersInput = ListQuery.extend({
  email: plainText(MAX_EMAIL_CHARS).optional().meta({ description: "Exact email (case-insensitive)" }),
  query: plainText(MAX_EMAIL_CHARS).optional().meta({ description: "Part of an email or a full name, for searching" }),
  tierPlanId: Uuid.optional().meta({ description: "Only end users with an active subscription to this plan" }),
  groupId: Uuid.optional().meta({ description: "Only members of this user group (a plan's group included)" }),
  status: EndUserStatus.optional().meta({
    description: "`active` (neither revoked nor suspended), `revoked`, or `suspended` (by the directory)",
  }),
  sort: EndUserSort.default("created").meta({
    description:
      "`created` (oldest first), `newest`, `email` (A to Z), `lastSeen` (latest portal visit first, never seen last), `creditsLeft` (fewest credits left in active plans first) or `creditsLeftDesc` (most first); ties by id in the same direction; a cursor belongs to its sort",
  }),
});
const NamedRef = z.object({ id: Uuid, name: z.string() });
export const EndUserListItem = EndUser.extend({
  plans: z.array(NamedRef).meta({ description: "Plans held (active subscriptions), oldest first" }),
  groups: z.array(NamedRef).meta({ description: "User groups they belong to, plans' own groups left out" }),
  creditsLeft: z.number().int().meta({ description: "Credits left in all their active pools together" }),
}).meta({ id: "EndUserListItem" });
export type EndUserListItem = z.infer<typeof EndUserListItem>;
export const ListEndUsersOutput = z.object({ endUsers: z.array(EndUserListItem), nextCursor: NextCursor });
export const RemoveSubscriptionInput = z.strictObject({ endUserId: Uuid, tierPlanId: Uuid });
export type RemoveSubscriptionInput = z.infer<typeof RemoveSubscriptionInput>;
export const RemoveGrantInput = z.strictObject({ endUserId: Uuid, grantId: Uuid });
export type RemoveGrantInput = z.infer<typeof RemoveGrantInput>;

export const PriceInterval = z.enum(["month", "year"]);
/** A price's currency: an ISO 4217 code, three capitals. */
export const CURRENCY_CODE_CHARS = 3;
const CURRENCY_CODE = /^[A-Z]{3}$/;

/** A plan's shown price: up to a million in the currency's main unit. */
export const MAX_PRICE_AMOUNT = 100_000_000;
export const MAX_PLAN_FEATURES = 20;
export const MAX_PLAN_FEATURE_CHARS = 200;
/** What a plan says about itself: description, price shown and what it includes (create and PATCH). */
const PlanDetails = {
  description: descriptionText.optional(),
  priceAmount: boundedInt(0, MAX_PRICE_AMOUNT).nullable().optional().meta({
    description: "The price shown (never charged here), in the currency's smallest unit (cents); null removes it",
  }),
  priceCurrency: z.string().regex(CURRENCY_CODE, "An ISO 4217 code in capitals, e.g. USD").optional(),
  priceInterval: PriceInterval.optional(),
  features: z
    .array(plainText(MAX_PLAN_FEATURE_CHARS).trim().min(1))
    .max(MAX_PLAN_FEATURES)
    .optional()
    .meta({ description: "What the plan includes, one line each" }),
};
export const TierPlan = z
  .object({
    id: Uuid,
    name: z.string(),
    creditAllowance: z.number().int(),
    allowedModels: z
      .array(z.string())
      .nullable()
      .meta({ description: "Model ids its end users' runs may call (`GET /models`); null: every model" }),
    description: z.string(),
    priceAmount: z.number().int().nullable().meta({
      description: "The price shown (not charged), in the currency's smallest unit (cents); null: none shown",
    }),
    priceCurrency: z.string().meta({ description: "ISO 4217 code, e.g. `USD`" }),
    priceInterval: PriceInterval,
    features: z.array(z.string()).meta({ description: "What the plan includes, one line each" }),
    archived: z.boolean(),
    groupId: Uuid.nullable(),
  })
  .meta({ id: "TierPlan" });
export type TierPlan = z.infer<typeof TierPlan>;
export const ListTierPlansOutput = z.object({ tierPlans: z.array(TierPlan), nextCursor: NextCursor });
/** A plan's monthly credits: within what a subscription's pool (a 32-bit integer) holds. */
const CreditAllowance = boundedInt(0, MAX_CREDITS);
/** At most this many models named by one plan. */
export const MAX_PLAN_MODELS = 100;
const AllowedModels = z.array(plainText(200).min(1)).max(MAX_PLAN_MODELS).nullable().meta({
  description:
    "Model ids (`GET /models`) its end users' runs may call; null: every model. The built-in model is always allowed.",
});
export const CreateTierPlanInput = z.strictObject({
  name: nameText,
  creditAllowance: CreditAllowance.default(0),
  allowedModels: AllowedModels.default(null),
  withGroup: z.boolean().default(false),
  ...PlanDetails,
});
export type CreateTierPlanInput = z.infer<typeof CreateTierPlanInput>;
export const TierPlanIdInput = z.strictObject({ tierPlanId: Uuid });
export type TierPlanIdInput = z.infer<typeof TierPlanIdInput>;
export const UpdateTierPlanInput = z.strictObject({
  tierPlanId: Uuid,
  name: nameText.optional(),
  creditAllowance: CreditAllowance.optional(),
  allowedModels: AllowedModels.optional(),
  ...PlanDetails,
});
export type UpdateTierPlanInput = z.infer<typeof UpdateTierPlanInput>;
export const TierPlanSubscribersOutput = z.object({
  counts: z
    .array(
      z.object({
        tierPlanId: Uuid,
        subscribers: z.number().int(),
        atLeast: z.boolean().meta({ description: "True when counting stopped at the cap: at least `subscribers`" }),
      }),
    )
    .meta({ description: "Active subscriptions per plan, each counted up to a cap; plans without any are left out" }),
});

export const UserGroup = z
  .object({
    id: Uuid,
    name: z.string(),
    description: z.string(),
    createdAt: Timestamp,
    memberCount: z.number().int(),
    planId: Uuid.nullable().meta({ description: "Set for a plan's group, whose membership follows the plan" }),
    directoryManaged: z.boolean().meta({
      description: "A group of the organization's directory (SCIM): its name and members follow the directory",
    }),
  })
  .meta({ id: "UserGroup" });
export type UserGroup = z.infer<typeof UserGroup>;
export const CreateUserGroupInput = z.strictObject({ name: nameText, description: descriptionText.optional() });
export type CreateUserGroupInput = z.infer<typeof CreateUserGroupInput>;
export const UpdateUserGroupInput = z.strictObject({
  groupId: Uuid,
  name: nameText.optional(),
  description: descriptionText.optional(),
});
export type UpdateUserGroupInput = z.infer<typeof UpdateUserGroupInput>;
export const GroupIdInput = z.strictObject({ groupId: Uuid });
export type GroupIdInput = z.infer<typeof GroupIdInput>;
export const ListUserGroupsInput = ListQuery.extend({ q: NameQuery });
export type ListUserGroupsInput = z.infer<typeof ListUserGroupsInput>;
export const ListUserGroupsOutput = z.object({ userGroups: z.array(UserGroup), nextCursor: NextCursor });
export const GroupMember = z.object({ groupId: Uuid, endUserId: Uuid, addedAt: Timestamp }).meta({ id: "GroupMember" });
export const GroupMemberView = GroupMember.extend({ email: z.email(), fullName: z.string() });
export const ListGroupMembersInput = ListQuery.extend({ groupId: Uuid });
export type ListGroupMembersInput = z.infer<typeof ListGroupMembersInput>;
export const ListGroupMembersOutput = z.object({ members: z.array(GroupMemberView), nextCursor: NextCursor });
export const AddGroupMemberInput = z.strictObject({ groupId: Uuid, endUserId: Uuid });
export type AddGroupMemberInput = z.infer<typeof AddGroupMemberInput>;
export const AddGroupGrantInput = GrantInput.omit({ effect: true }).extend({ groupId: Uuid });
export type AddGroupGrantInput = z.infer<typeof AddGroupGrantInput>;
export const RemoveGroupGrantInput = z.strictObject({ groupId: Uuid, grantId: Uuid });
export type RemoveGroupGrantInput = z.infer<typeof RemoveGroupGrantInput>;

export const PortalAdmission = z
  .object({ portalId: Uuid, groupId: Uuid, createdAt: Timestamp })
  .meta({ id: "PortalAdmission" });
export const AdmitGroupInput = z.strictObject({ portalId: Uuid, groupId: Uuid });
export { CreatePortalInput, ListPortalsOutput, Portal } from "../portal/portal";

export const UserGroupOutput = z.object({ userGroup: UserGroup });
export const GroupMemberOutput = z.object({ member: GroupMember });
export const GrantOutput = z.object({ grant: Grant });
export const CreateTierPlanOutput = z.object({ tierPlan: TierPlan, group: UserGroup.optional() });
export const TierPlanOutput = z.object({ tierPlan: TierPlan });
export const EndUserDetailOutput = z.object({ endUser: EndUserDetail });
export const EndUserOutput = z.object({ endUser: EndUser });
export const SubscriptionOutput = z.object({ subscription: SubscriptionDetail });
export const PortalAdmissionOutput = z.object({ admission: PortalAdmission });
/** A group admitted to a portal, with its name (the portal's page). */
export const PortalGroupAdmission = PortalAdmission.extend({ groupName: z.string() });
/** A portal a group is admitted to, with its name (the group's page). */
export const GroupPortalAdmission = PortalAdmission.extend({ portalName: z.string() });
