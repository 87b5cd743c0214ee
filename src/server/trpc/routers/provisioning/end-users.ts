import {
  CreditLedgerInput,
  CreditLedgerOutput,
  DismissCreditRequestInput,
  GrantBonusCreditsInput,
  ListCreditRequestsInput,
  ListCreditRequestsOutput,
  CreditRequestOutput,
} from "@/schemas/provisioning/credits";
import {
  EndUserIdInput,
  ListEndUsersInput,
  ListEndUsersOutput,
  ProvisionEndUserInput,
  ProvisionEndUserOutput,
  RemoveGrantInput,
  RemoveSubscriptionInput,
  UpdateEndUserInput,
  EndUserDetailOutput,
  EndUserOutput,
  SubscriptionOutput,
} from "@/schemas/provisioning/provisioning";
import { provisionEndUser } from "@/server/services/provisioning/end-users";
import { getEndUser, listEndUsers } from "@/server/services/provisioning/end-user-reads";
import {
  deleteEndUser,
  removeEndUserGrant,
  revokeEndUser,
  updateEndUser,
} from "@/server/services/provisioning/end-user-changes";
import { removeSubscription } from "@/server/services/provisioning/end-user-subscriptions";
import {
  dismissCreditRequest,
  grantBonusCredits,
  listCreditRequests,
} from "@/server/services/provisioning/credit-requests";
import { creditLedger } from "@/server/services/provisioning/credit-ledger";
import { EffectiveAccessInput, EffectiveAccessOutput } from "@/schemas/portal/portal";
import { effectiveAccess } from "@/server/services/portal/effective-access";
import { EndUserExport, EraseEndUserOutput } from "@/schemas/provisioning/end-user-data";
import { eraseEndUser } from "@/server/services/provisioning/end-user-data";
import { exportEndUser } from "@/server/services/provisioning/end-user-export";
import {
  BulkEndUsersInput,
  BulkEndUsersOutput,
  ImportEndUsersInput,
  ImportEndUsersOutput,
} from "@/schemas/provisioning/end-user-batches";
import { bulkEndUserAction, importEndUsers } from "@/server/services/provisioning/end-user-batches";
import { scopedProcedure } from "../../init";
import { answeringAs, restRouter } from "../../service-procedures";

export const endUsersRouter = restRouter("End users", (rest) => ({
  provision: rest
    .route("POST", provisionEndUser.requirement, {
      path: "/end-users",
      summary: "Create or update an end user",
      description:
        "Idempotent on email (trimmed, case-insensitive): 201 with `created: true` for a new account, 200 when an existing one is updated in place (a revoked one is restored). Plans (`tierPlanIds`, each its own subscription), groups and grants come in the same call; duplicates are skipped and `grantsCreated` counts only new grants. Every refusal is decided before anything is written.",
      errors: [
        "tier_not_found",
        "group_not_found",
        "plan_group",
        "directory_managed",
        "groups_disabled",
        "grants_unsupported",
        "grant_target_not_found",
        "deleted_identity",
        "live_paid_subscription",
      ],
      successStatus: 201,
      alsoSucceeds: {
        status: 200,
        description: "An existing end user (same email) updated in place; `created: false`",
      },
      input: ProvisionEndUserInput,
      output: ProvisionEndUserOutput,
    })
    .mutation(async ({ ctx, input }) => {
      const result = await provisionEndUser(ctx.db, ctx.actor, input);
      ctx.response.status = result.created ? 201 : 200;
      return result;
    }),

  list: rest.query(listEndUsers, {
    path: "/end-users",
    summary: "List end users",
    description:
      "Ordered by creation. `email` finds one account; `query` searches emails; `tierPlanId` and `groupId` keep the holders of a plan and the members of a group.",
    input: ListEndUsersInput,
    output: ListEndUsersOutput,
  }),

  import: rest.mutation("POST", importEndUsers, {
    path: "/end-user-imports",
    summary: "Import end users from CSV, with a dry run",
    description:
      "Columns `email`, `name`, `plan`, `groups` (plans and groups by name; several separated by `;`). Each row is provisioned as POST /end-users would: created, updated (with the fields that change), unchanged, or refused with the code POST /end-users would answer. `dryRun` (default `true`) answers all of it and writes nothing; `false` applies it (refused rows write nothing). At most 1,000 rows and 512 KiB.",
    input: ImportEndUsersInput,
    output: ImportEndUsersOutput,
  }),

  bulk: rest.mutation("POST", bulkEndUserAction, {
    path: "/end-user-bulk-actions",
    summary: "Grant, add to a group or revoke many end users at once",
    description:
      "Up to 200 end users, each through the same service as one (the same rules and audit events): `grant` gives access to `appId` (in `portalId` only, when given; a revoked end user → `conflict`), `add_to_group` adds to `groupId`, `revoke` revokes. Each end user's outcome is answered (`changed`, `unchanged`, or `refused` with its error); one refused does not stop the others.",
    input: BulkEndUsersInput,
    output: BulkEndUsersOutput,
  }),

  get: rest.query(answeringAs("endUser", getEndUser), {
    path: "/end-users/{endUserId}",
    summary: "Get an end user with every subscription and grant",
    errors: ["not_found"],
    input: EndUserIdInput,
    output: EndUserDetailOutput,
  }),

  update: rest.mutation("PATCH", answeringAs("endUser", updateEndUser), {
    path: "/end-users/{endUserId}",
    summary: "Update profile fields",
    description:
      "Profile fields: `fullName`. To add plans or grants, POST /end-users again; to remove them, use the sub-resources.",
    errors: ["not_found"],
    input: UpdateEndUserInput,
    output: EndUserOutput,
  }),

  export: rest.query(exportEndUser, {
    path: "/end-users/{endUserId}/export",
    summary: "Export everything held about an end user",
    description:
      "One JSON document, streamed: profile, subscriptions and pools, grants, groups, portal sessions (no secrets), conversations with messages and citations, executions with feedback, credit requests, notebook pages, directory links and the audit events that name them.",
    download: "end_user_export",
    errors: ["not_found"],
    input: EndUserIdInput,
    output: EndUserExport,
  }),

  erase: rest.mutation("POST", eraseEndUser, {
    path: "/end-users/{endUserId}/erase",
    summary: "Erase an end user's data",
    description:
      "Deletes their conversations, messages, feedback text, credit-request messages, sessions, notebook and directory links; replaces their email and name with a tombstone everywhere, the audit log included; keeps what their runs cost. Idempotent. Their email is unknown afterwards: provisioning it again creates a new end user. Sends `end_user.erased`.",
    errors: ["not_found"],
    input: EndUserIdInput,
    output: EraseEndUserOutput,
  }),

  revoke: rest.mutation("POST", answeringAs("endUser", revokeEndUser), {
    path: "/end-users/{endUserId}/revoke",
    summary: "Revoke an end user's access",
    description: "Sets `revokedAt`. POST /end-users with the email restores the account.",
    errors: ["not_found"],
    input: EndUserIdInput,
    output: EndUserOutput,
  }),

  delete: rest.remove(deleteEndUser, {
    path: "/end-users/{endUserId}",
    summary: "Delete an end user",
    description:
      "Marks the identity deleted: subscriptions end, grants and memberships go, and provisioning the email again answers `deleted_identity`.",
    errors: ["not_found"],
    input: EndUserIdInput,
  }),

  removeSubscription: rest.remove(removeSubscription, {
    path: "/end-users/{endUserId}/tier-plans/{tierPlanId}",
    summary: "End an end user's subscription to a plan",
    errors: ["not_found", "live_paid_subscription"],
    input: RemoveSubscriptionInput,
  }),

  removeGrant: rest.remove(removeEndUserGrant, {
    path: "/end-users/{endUserId}/grants/{grantId}",
    summary: "Remove a grant from an end user",
    errors: ["not_found"],
    input: RemoveGrantInput,
  }),

  grantBonusCredits: rest.mutation("POST", answeringAs("subscription", grantBonusCredits), {
    path: "/end-users/{endUserId}/tier-plans/{tierPlanId}/bonus-credits",
    summary: "Give an end user bonus credits on one subscription",
    description:
      "Raises the active subscription's `bonusCredits` by `credits`, atomically; bonus credits stay until the pool resets. The end user's open credit requests are marked granted. A canceled subscription → 409 `conflict`.",
    errors: ["not_found", "conflict"],
    input: GrantBonusCreditsInput,
    output: SubscriptionOutput,
  }),

  creditLedger: rest.query(creditLedger, {
    path: "/end-users/{endUserId}/credit-ledger",
    summary: "An end user's credit ledger: charges, bonuses and resets",
    description:
      "Newest first, the last `limit` (default 100). A charge is one of their runs (`executionId`, what ran, its status, the credits taken); a bonus names its plan, who gave it and why; a reset is a pool's monthly renewal since its subscription last started.",
    errors: ["not_found"],
    input: CreditLedgerInput,
    output: CreditLedgerOutput,
  }),

  creditRequests: rest.query(answeringAs("creditRequests", listCreditRequests), {
    path: "/end-users/{endUserId}/credit-requests",
    summary: "An end user's requests for more credits",
    description: "Made from a portal (at most 3 open at once). Open ones first, then newest first; the last 100.",
    errors: ["not_found"],
    input: ListCreditRequestsInput,
    output: ListCreditRequestsOutput,
  }),

  dismissCreditRequest: rest.mutation("POST", answeringAs("creditRequest", dismissCreditRequest), {
    path: "/end-users/{endUserId}/credit-requests/{creditRequestId}/dismiss",
    summary: "Close a request for more credits without granting any",
    errors: ["not_found"],
    input: DismissCreditRequestInput,
    output: CreditRequestOutput,
  }),

  /** The console's "effective access" view: the apps the end user can use, where and why. */
  access: scopedProcedure(effectiveAccess.requirement)
    .input(EffectiveAccessInput)
    .output(EffectiveAccessOutput)
    .query(({ ctx, input }) => effectiveAccess(ctx.db, ctx.actor, input)),
}));
