// Every write path of the services records an event (src/server/services/org/events.ts). The table
// below names each guarded service function: a write with a scenario that must leave an event
// with its action, or a read or run (runs are recorded as executions). A new guarded function
// that is in neither fails the first test, so no write path can be added without its event.
import { readdirSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it, vi } from "vitest";

vi.hoisted(() => {
  process.env.ALLOW_PRIVATE_INTEGRATION_URLS = "true";
  process.env.ATRIUM_SECRET_KEY = "test-secret-key-0123456789-abcdefghijklmnop";
});

import { generate } from "otplib";
import { actionWords } from "@/lib/change-words";
import type { KeyActor, MemberActor, OperatorActor } from "@/server/auth/actor";
import { hashSecret } from "@/server/auth/secrets";
import { openSecret } from "@/server/secret-box";
import { getDb } from "@/server/db";
import * as apiKeys from "@/server/services/identity/api-keys";
import * as attachments from "@/server/services/runs/attachments";
import * as approvals from "@/server/services/runs/approvals";
import * as creditRequests from "@/server/services/provisioning/credit-requests";
import * as builder from "@/server/services/builder/builder";
import * as builderTemplates from "@/server/services/builder/builder-templates";
import * as builderVersions from "@/server/services/builder/builder-versions";
import * as draftEdits from "@/server/services/builder/draft-edits";
import * as directory from "@/server/services/identity/directory";
import * as directoryGroups from "@/server/services/identity/directory-groups";
import * as directoryUsers from "@/server/services/identity/directory-users";
import * as saml from "@/server/services/identity/saml";
import * as sso from "@/server/services/identity/sso";
import * as endUsers from "@/server/services/provisioning/end-users";
import * as endUserChanges from "@/server/services/provisioning/end-user-changes";
import * as endUserReads from "@/server/services/provisioning/end-user-reads";
import * as endUserSubscriptions from "@/server/services/provisioning/end-user-subscriptions";
import * as endUserBatches from "@/server/services/provisioning/end-user-batches";
import * as endUserData from "@/server/services/provisioning/end-user-data";
import * as evalDatasets from "@/server/services/builder/eval-datasets";
import * as invitations from "@/server/services/identity/invitations";
import * as knowledgebases from "@/server/services/knowledge/knowledgebases";
import * as messageFeedback from "@/server/services/runs/message-feedback";
import * as mcpConnections from "@/server/services/org/mcp-connections";
import * as members from "@/server/services/identity/members";
import * as mfa from "@/server/services/identity/mfa";
import * as modelPrices from "@/server/services/org/model-prices";
import * as modelProviders from "@/server/services/org/model-providers";
import * as notifications from "@/server/services/org/notifications";
import * as organizations from "@/server/services/org/organizations";
import * as pages from "@/server/services/knowledge/pages";
import * as pageEdits from "@/server/services/knowledge/page-edits";
import * as portals from "@/server/services/portal/portals";
import * as portalAdmissions from "@/server/services/portal/portal-admissions";
import * as reviews from "@/server/services/knowledge/reviews";
import * as sources from "@/server/services/knowledge/sources";
import * as testSuites from "@/server/services/builder/test-suites";
import * as tierPlans from "@/server/services/provisioning/tier-plans";
import * as userGroups from "@/server/services/provisioning/user-groups";
import * as webhooks from "@/server/services/org/webhooks";
import { IDP_CERTIFICATE } from "../fake-saml";
import { addPerson, api, issueKey, newOrganization, uniqueSuffix, type Tenant } from "../helpers";

const SERVICES_DIR = path.resolve(__dirname, "../../src/server/services");

/** Guarded functions that change nothing, or whose record is the execution they run. */
const READS_AND_RUNS = new Set([
  "getApproval",
  "listPendingApprovals",
  "endUsersNearLimit",
  "listModelPrices",
  "creditLedger",
  "getDirectoryGroup",
  "getDirectoryOverview",
  "getDirectoryUser",
  "getScopedUsage",
  "listRefusals",
  "getSsoConnection",
  "getUsage",
  "listDirectoryGroups",
  "listDirectoryUsers",
  "testSsoConnection",
  "lastSsoTest",
  // A test sign-in is started, not a change: nobody is signed in, nothing is configured.
  "startOidcTest",
  "startSamlTest",
  "listApiKeys",
  "listAuditEvents",
  "exportAuditEvents",
  "readAuditLog",
  "auditFilterOptions",
  "getDraft",
  "getLive",
  "listVersions",
  "listItems",
  "converse",
  "getFile",
  "getFileContent",
  "listConversations",
  "getConversationStarters",
  "getConversationMessages",
  "getEndUser",
  "exportEndUser",
  "streamEndUserExport",
  "listEndUsers",
  "listExecutions",
  "getExecution",
  "listKnowledgebases",
  "getKnowledgebaseJson",
  "exportKnowledgebase",
  "listMail",
  "listMcpConnections",
  "getMcpConnection",
  "listMcpConnectionTools",
  "listMembers",
  "listInvitations",
  "listModelProviders",
  "listModels",
  "getOrganization",
  "getOverview",
  "getWaiting",
  "getPage",
  "listRevisions",
  "effectiveAccess",
  "getPortal",
  "listPortals",
  "listAdmissions",
  "listGroupAdmissions",
  "testRetrieval",
  "retrievalTest",
  "listReviews",
  "listReviewAuthors",
  "getReview",
  "searchKnowledgebase",
  "getSource",
  "getSourceDetail",
  "runTests",
  "listTestRuns",
  "listDatasets",
  "listDatasetCases",
  "startEvalRun",
  "listEvalRuns",
  "getEvalRun",
  "listEvalResults",
  "compareEvalRuns",
  "getTestSuite",
  "previewDraft",
  "listTierPlans",
  "tierPlanSubscribers",
  "transact",
  "listUserGroups",
  "getUserGroup",
  "listGroupMembers",
  "listGroupGrants",
  "listWebhookEndpoints",
  "getWebhookEndpoint",
  "listWebhookDeliveries",
  "listCreditRequests",
  "openConversationRun",
  "cancelConversationRun",
  "listNotifications",
  // A member's own read marks: what they have seen, not a change to the organization.
  "markNotificationsRead",
  "getNotificationEmails",
  "findByName",
  "listBuilderTemplates",
  "getMfaStatus",
  "getSecurityOverview",
  // A pending secret that does nothing until a code confirms it (member.mfa_enroll then).
  "startMfaEnrollment",
]);

interface World {
  tenant: Tenant;
  op: OperatorActor;
  /** The organization's directory, as the SCIM door builds it. */
  directory: KeyActor;
  kbId: string;
  appId: string;
}

/** Runs a write and answers the action its event must carry. */
type Scenario = (w: World) => Promise<string>;

const db = () => getDb();
const name = (prefix: string) => `${prefix} ${uniqueSuffix()}`;
const email = () => `eu-${uniqueSuffix()}@example.test`;

async function endUser(w: World, extra: Record<string, unknown> = {}) {
  return (await endUsers.provisionEndUser(db(), w.op, { email: email(), ...extra })).endUser;
}
/** A member (acting in the console) who has started a TOTP enrollment. */
async function memberWithPendingTotp(w: World): Promise<MemberActor> {
  const person = await addPerson(w.op, "member");
  const actor: MemberActor = {
    kind: "member",
    organizationId: w.tenant.organization.id,
    member: { id: person.member.id, role: "member", email: person.email },
  };
  await mfa.startMfaEnrollment(db(), actor);
  return actor;
}
async function currentCode(actor: MemberActor): Promise<string> {
  const row = await db().memberTotp.findUniqueOrThrow({ where: { memberId: actor.member.id } });
  return generate({ secret: openSecret(row.secretCiphertext) });
}
/** Recovery codes are shown once: this one is made again here, for the scenario to use. */
async function recoveryCodeOf(actor: MemberActor): Promise<string[]> {
  const code = "abcd-efgh-ijkl-mnop";
  await db().mfaRecoveryCode.create({
    data: { organizationId: actor.organizationId, memberId: actor.member.id, codeHash: hashSecret("abcdefghijklmnop") },
  });
  return [code];
}
async function agent(w: World) {
  return (await builder.createItem(db(), w.op, "agent", { name: name("Agent") })).id as string;
}
async function page(w: World) {
  return (await pages.createPage(db(), w.op, { knowledgebaseId: w.kbId, title: name("Page"), markdown: "Hello" })).page
    .id;
}
async function group(w: World) {
  return userGroups.createUserGroup(db(), w.op, { name: name("Group") });
}
async function mcpConnection(w: World) {
  return mcpConnections.createMcpConnection(db(), w.op, {
    slug: `m${uniqueSuffix()}`,
    name: "Tools",
    url: "http://127.0.0.1:9/mcp",
    headers: [],
  });
}
async function modelProvider(w: World) {
  return modelProviders.createModelProvider(db(), w.op, {
    slug: `p${uniqueSuffix()}`,
    kind: "openai-compatible",
    name: "Provider",
    baseUrl: "http://127.0.0.1:9/v1",
    models: [{ id: "m", kind: "chat" }],
  });
}
/** A review waiting: a page proposed with an organization key while reviews are on. */
async function pendingReview(w: World): Promise<string> {
  await organizations.updateOrganization(db(), w.op, { reviewAgentWrites: true });
  const response = await api("POST", `/knowledgebases/${w.kbId}/pages`, {
    key: w.tenant.orgKey.secret,
    body: { title: name("Proposed"), markdown: "Draft" },
  });
  await organizations.updateOrganization(db(), w.op, { reviewAgentWrites: false });
  return String(response.body.reviewPath).split("/").pop()!;
}

async function webhookEndpoint(w: World) {
  return (await webhooks.createWebhookEndpoint(db(), w.op, { url: "http://127.0.0.1:9/hook", eventTypes: ["*"] }))
    .endpoint;
}

/** A directory user standing for a new end user. */
async function directoryUser(w: World, extra: Record<string, unknown> = {}) {
  return directoryUsers.createDirectoryUser(db(), w.directory, {
    userName: email(),
    displayName: "Dana Scully",
    ...extra,
  });
}
async function directoryGroup(w: World) {
  return directoryGroups.createDirectoryGroup(db(), w.directory, { displayName: name("Directory group") });
}
/** A reply of the app to rate: its conversation, execution and message, as a turn leaves them. */
async function assistantMessage(w: World): Promise<string> {
  const organizationId = w.tenant.organization.id;
  const conversation = await db().conversation.create({
    data: { organizationId, appId: w.appId, startedBy: "operator" },
  });
  const execution = await db().execution.create({
    data: {
      organizationId,
      kind: "conversation",
      itemId: w.appId,
      itemKind: "app",
      conversationId: conversation.id,
      status: "succeeded",
      credits: 1,
      latencyMs: 5,
      input: "Hi",
      trace: [],
      actor: "operator",
    },
  });
  const message = await db().conversationMessage.create({
    data: { conversationId: conversation.id, role: "assistant", content: "Hello", executionId: execution.id },
  });
  return message.id;
}

/** Scenarios that act through the directory (SCIM) rather than the operator's CLI. */
const THROUGH_DIRECTORY = new Set([
  "createDirectoryUser",
  "replaceDirectoryUser",
  "patchDirectoryUser",
  "deleteDirectoryUser",
  "createDirectoryGroup",
  "replaceDirectoryGroup",
  "patchDirectoryGroup",
  "deleteDirectoryGroup",
]);

const WRITES: Record<string, Scenario> = {
  createDirectoryUser: async (w) => (await directoryUser(w), "end_user.create"),
  replaceDirectoryUser: async (w) => {
    const user = await directoryUser(w);
    await directoryUsers.replaceDirectoryUser(db(), w.directory, String(user.id), {
      userName: user.userName,
      displayName: "Dana Scully",
      active: false,
    });
    return "end_user.suspend";
  },
  patchDirectoryUser: async (w) => {
    const user = await directoryUser(w, { active: false });
    await directoryUsers.patchDirectoryUser(db(), w.directory, String(user.id), {
      Operations: [{ op: "replace", path: "active", value: true }],
    });
    return "end_user.reactivate";
  },
  deleteDirectoryUser: async (w) => (
    await directoryUsers.deleteDirectoryUser(db(), w.directory, String((await directoryUser(w)).id)),
    "directory_user.delete"
  ),
  createDirectoryGroup: async (w) => (await directoryGroup(w), "user_group.create"),
  replaceDirectoryGroup: async (w) => {
    const group = await directoryGroup(w);
    const user = await directoryUser(w);
    await directoryGroups.replaceDirectoryGroup(db(), w.directory, String(group.id), {
      displayName: "Renamed",
      members: [{ value: user.id }],
    });
    return "user_group.update";
  },
  patchDirectoryGroup: async (w) => {
    const group = await directoryGroup(w);
    await directoryGroups.patchDirectoryGroup(db(), w.directory, String(group.id), {
      Operations: [{ op: "replace", path: "displayName", value: name("Patched") }],
    });
    return "user_group.update";
  },
  deleteDirectoryGroup: async (w) => (
    await directoryGroups.deleteDirectoryGroup(db(), w.directory, String((await directoryGroup(w)).id)),
    "user_group.delete"
  ),
  rotateDirectoryToken: async (w) => (await directory.rotateDirectoryToken(db(), w.op), "api_key.create"),
  setDirectoryDefaultPlan: async (w) => {
    const { tierPlan } = await tierPlans.createTierPlan(db(), w.op, {
      name: name("Plan"),
      creditAllowance: 10,
      withGroup: false,
    });
    await directory.setDirectoryDefaultPlan(db(), w.op, { tierPlanId: tierPlan.id });
    return "organization.update";
  },
  setSsoConnection: async (w) => {
    await sso.setSsoConnection(db(), w.op, {
      issuer: "http://127.0.0.1:9",
      clientId: "atrium",
      clientSecret: "s3cret",
      domains: [],
    });
    return "sso_connection.create";
  },
  setSamlConnection: async (w) => {
    // A new connection whatever the scenarios before it left.
    await db().ssoConnection.deleteMany({ where: { organizationId: w.tenant.organization.id } });
    await saml.setSamlConnection(db(), w.op, {
      entityId: "https://idp.example.com/saml",
      ssoUrl: "https://idp.example.com/saml/sso",
      certificate: IDP_CERTIFICATE,
      domains: [],
    });
    return "sso_connection.create";
  },
  removeSsoConnection: async (w) => {
    await db().ssoConnection.upsert({
      where: { organizationId: w.tenant.organization.id },
      create: {
        organizationId: w.tenant.organization.id,
        issuer: "http://127.0.0.1:9",
        clientId: "atrium",
        domains: [],
        displayName: "",
        clientSecretCiphertext: "x",
      },
      update: {},
    });
    await sso.removeSsoConnection(db(), w.op);
    return "sso_connection.delete";
  },
  decideApproval: async (w) => {
    // A run paused at an approval node, as the conversation and transaction services record one.
    const organizationId = w.tenant.organization.id;
    const execution = await db().execution.create({
      data: {
        organizationId,
        kind: "transaction",
        itemId: w.appId,
        itemKind: "app",
        status: "awaiting_approval",
        credits: 1,
        latencyMs: 5,
        input: "{}",
        trace: [],
        actor: "operator",
      },
    });
    await db().executionApproval.create({
      data: {
        id: execution.id,
        organizationId,
        kind: "transaction",
        appId: w.appId,
        flowId: w.appId,
        nodeId: "gate",
        message: "Go ahead?",
        expiresAt: new Date(Date.now() + 60_000),
        state: { actor: "operator" },
      },
    });
    await approvals.decideApproval(db(), w.op, { executionId: execution.id, decision: "approve" });
    return "execution.approve";
  },
  uploadFiles: async (w) => (
    await attachments.uploadFiles(db(), w.op, { files: [{ name: "note.txt", bytes: Buffer.from("A note.") }] }),
    "file.upload"
  ),
  setMessageFeedback: async (w) => (
    await messageFeedback.setMessageFeedback(db(), w.op, { messageId: await assistantMessage(w), rating: "up" }),
    "execution.feedback"
  ),
  grantBonusCredits: async (w) => {
    const { tierPlan } = await tierPlans.createTierPlan(db(), w.op, {
      name: name("Plan"),
      creditAllowance: 10,
      withGroup: false,
    });
    const user = await endUser(w, { tierPlanIds: [tierPlan.id] });
    await creditRequests.grantBonusCredits(db(), w.op, { endUserId: user.id, tierPlanId: tierPlan.id, credits: 5 });
    return "subscription.bonus_credits";
  },
  dismissCreditRequest: async (w) => {
    const user = await endUser(w);
    const request = await db().creditRequest.create({
      data: { organizationId: w.tenant.organization.id, endUserId: user.id },
    });
    await creditRequests.dismissCreditRequest(db(), w.op, { endUserId: user.id, creditRequestId: request.id });
    return "credit_request.dismiss";
  },
  createWebhookEndpoint: async (w) => (await webhookEndpoint(w), "webhook_endpoint.create"),
  updateWebhookEndpoint: async (w) => (
    await webhooks.updateWebhookEndpoint(db(), w.op, { id: (await webhookEndpoint(w)).id, description: "CRM" }),
    "webhook_endpoint.update"
  ),
  deleteWebhookEndpoint: async (w) => (
    await webhooks.deleteWebhookEndpoint(db(), w.op, { id: (await webhookEndpoint(w)).id }),
    "webhook_endpoint.delete"
  ),
  rotateWebhookSecret: async (w) => (
    await webhooks.rotateWebhookSecret(db(), w.op, { id: (await webhookEndpoint(w)).id }),
    "webhook_endpoint.rotate_secret"
  ),
  // The endpoint (127.0.0.1:9) refuses the connection: the test is recorded all the same.
  sendWebhookTestEvent: async (w) => (
    await webhooks.sendWebhookTestEvent(db(), w.op, { id: (await webhookEndpoint(w)).id, type: "ping" }),
    "webhook_endpoint.test"
  ),
  replayWebhookDelivery: async (w) => {
    const { id } = await webhookEndpoint(w);
    await endUser(w);
    const [delivery] = (await webhooks.listWebhookDeliveries(db(), w.op, { id, limit: 1 })).deliveries;
    await webhooks.replayWebhookDelivery(db(), w.op, { id, deliveryId: delivery!.id });
    return "webhook_delivery.replay";
  },
  createApiKey: async (w) => (
    await apiKeys.createApiKey(db(), w.op, { name: "k", kind: "organization", scopes: ["end_users:read"] }),
    "api_key.create"
  ),
  revokeApiKey: async (w) => {
    const key = await apiKeys.createApiKey(db(), w.op, { name: "k", kind: "organization", scopes: ["end_users:read"] });
    await apiKeys.revokeApiKey(db(), w.op, { keyId: key.id });
    return "api_key.revoke";
  },
  createItem: async (w) => (await agent(w), "agent.create"),
  // The flow, then the app calling it: each createItem records its own event.
  copyBuilderTemplate: async (w) => (
    await builderTemplates.copyBuilderTemplate(db(), w.op, { templateId: "summariser" }),
    "app.create"
  ),
  patchDraft: async (w) => (
    await draftEdits.patchDraft(db(), w.op, "agent", await agent(w), { description: "Changed" }),
    "agent.draft_update"
  ),
  publishItem: async (w) => (await builderVersions.publishItem(db(), w.op, "app", w.appId, {}), "app.publish"),
  deployVersion: async (w) => {
    const id = await agent(w);
    const { version } = await builderVersions.publishItem(db(), w.op, "agent", id, { deployToProduction: false });
    await builderVersions.deployVersion(db(), w.op, "agent", id, version.id);
    return "agent.deploy";
  },
  saveTestSuite: async (w) => (
    await testSuites.saveTestSuite(db(), w.op, "agent", {
      id: await agent(w),
      cases: [{ input: "Hi", expectedBehavior: "" }],
      rubric: "",
    }),
    "agent.tests_update"
  ),
  importDataset: async (w) => (
    await evalDatasets.importDataset(db(), w.op, "agent", {
      id: await agent(w),
      name: "Cases",
      format: "jsonl",
      content: '{"input":"Hi"}',
    }),
    "agent.dataset_import"
  ),
  deleteDataset: async (w) => {
    const id = await agent(w);
    const dataset = await evalDatasets.importDataset(db(), w.op, "agent", {
      id,
      name: "Cases",
      format: "jsonl",
      content: '{"input":"Hi"}',
    });
    await evalDatasets.deleteDataset(db(), w.op, "agent", { id, datasetId: dataset.id });
    return "agent.dataset_delete";
  },
  deleteItem: async (w) => (await builder.deleteItem(db(), w.op, "agent", await agent(w)), "agent.delete"),
  provisionEndUser: async (w) => (await endUser(w), "end_user.create"),
  updateEndUser: async (w) => (
    await endUserChanges.updateEndUser(db(), w.op, { endUserId: (await endUser(w)).id, fullName: "New name" }),
    "end_user.update"
  ),
  importEndUsers: async (w) => (
    await endUserBatches.importEndUsers(db(), w.op, { csv: `email\n${email()}`, dryRun: false }),
    "end_user.create"
  ),
  bulkEndUserAction: async (w) => (
    await endUserBatches.bulkEndUserAction(db(), w.op, { action: "revoke", endUserIds: [(await endUser(w)).id] }),
    "end_user.revoke"
  ),
  revokeEndUser: async (w) => (
    await endUserChanges.revokeEndUser(db(), w.op, { endUserId: (await endUser(w)).id }),
    "end_user.revoke"
  ),
  deleteEndUser: async (w) => (
    await endUserChanges.deleteEndUser(db(), w.op, { endUserId: (await endUser(w)).id }),
    "end_user.delete"
  ),
  eraseEndUser: async (w) => (
    await endUserData.eraseEndUser(db(), w.op, { endUserId: (await endUser(w)).id }),
    "end_user.erase"
  ),
  removeSubscription: async (w) => {
    const { tierPlan } = await tierPlans.createTierPlan(db(), w.op, {
      name: name("Plan"),
      creditAllowance: 10,
      withGroup: false,
    });
    const user = await endUser(w, { tierPlanIds: [tierPlan.id] });
    await endUserSubscriptions.removeSubscription(db(), w.op, { endUserId: user.id, tierPlanId: tierPlan.id });
    return "subscription.cancel";
  },
  removeEndUserGrant: async (w) => {
    const user = await endUser(w, { grants: [{ targetKind: "app", targetId: w.appId }] });
    const detail = await endUserReads.getEndUser(db(), w.op, { endUserId: user.id });
    await endUserChanges.removeEndUserGrant(db(), w.op, { endUserId: user.id, grantId: detail.grants[0]!.id });
    return "grant.delete";
  },
  linkProcessorSubscription: async (w) => {
    const { tierPlan } = await tierPlans.createTierPlan(db(), w.op, {
      name: name("Paid"),
      creditAllowance: 10,
      withGroup: false,
    });
    await endUserSubscriptions.linkProcessorSubscription(db(), w.op, {
      endUserId: (await endUser(w)).id,
      tierPlanId: tierPlan.id,
    });
    return "subscription.link";
  },
  createKnowledgebase: async (w) => (
    await knowledgebases.createKnowledgebase(db(), w.op, { name: name("KB") }),
    "knowledgebase.create"
  ),
  updateKnowledgebase: async (w) => (
    await knowledgebases.updateKnowledgebase(db(), w.op, { knowledgebaseId: w.kbId, description: name("About") }),
    "knowledgebase.update"
  ),
  createMcpConnection: async (w) => (await mcpConnection(w), "mcp_connection.create"),
  updateMcpConnection: async (w) => (
    await mcpConnections.updateMcpConnection(db(), w.op, {
      connectionId: (await mcpConnection(w)).id,
      name: "Renamed",
    }),
    "mcp_connection.update"
  ),
  deleteMcpConnection: async (w) => (
    await mcpConnections.deleteMcpConnection(db(), w.op, { connectionId: (await mcpConnection(w)).id }),
    "mcp_connection.delete"
  ),
  addMember: async (w) => (await addPerson(w.op, "member"), "member.add"),
  changeMemberRole: async (w) => (
    await members.changeMemberRole(db(), w.op, {
      memberId: (await addPerson(w.op, "member")).member.id,
      role: "admin",
    }),
    "member.role_change"
  ),
  removeMember: async (w) => (
    await members.removeMember(db(), w.op, { memberId: (await addPerson(w.op, "member")).member.id }),
    "member.remove"
  ),
  changeOwnPassword: async (w) => {
    const person = await addPerson(w.op, "member");
    const actor: MemberActor = {
      kind: "member",
      organizationId: w.tenant.organization.id,
      member: { id: person.member.id, role: "member", email: person.email },
    };
    await members.changeOwnPassword(
      db(),
      actor,
      { currentPassword: person.password, newPassword: `new-${uniqueSuffix()}-${uniqueSuffix()}` },
      { clientAddress: "192.0.2.1" },
    );
    return "member.password_change";
  },
  confirmMfaEnrollment: async (w) => {
    const actor = await memberWithPendingTotp(w);
    await mfa.confirmMfaEnrollment(db(), actor, { code: await currentCode(actor) }, { clientAddress: "192.0.2.1" });
    return "member.mfa_enroll";
  },
  removeOwnMfa: async (w) => {
    const actor = await memberWithPendingTotp(w);
    await mfa.confirmMfaEnrollment(db(), actor, { code: await currentCode(actor) }, { clientAddress: "192.0.2.1" });
    const [recovery] = await recoveryCodeOf(actor);
    await mfa.removeOwnMfa(db(), actor, { code: recovery! }, { clientAddress: "192.0.2.1" });
    return "member.mfa_remove";
  },
  resetMemberMfa: async (w) => (
    await mfa.resetMemberMfa(db(), w.op, { memberId: (await addPerson(w.op, "member")).member.id }),
    "member.mfa_reset"
  ),
  createInvitation: async (w) => (
    await invitations.createInvitation(db(), w.op, { email: email(), role: "member" }),
    "invitation.create"
  ),
  resendInvitation: async (w) => {
    const invitation = await invitations.createInvitation(db(), w.op, { email: email(), role: "viewer" });
    await invitations.resendInvitation(db(), w.op, { invitationId: invitation.id });
    return "invitation.resend";
  },
  revokeInvitation: async (w) => {
    const invitation = await invitations.createInvitation(db(), w.op, { email: email(), role: "viewer" });
    await invitations.revokeInvitation(db(), w.op, { invitationId: invitation.id });
    return "invitation.revoke";
  },
  sendPasswordResetLink: async (w) => (
    await invitations.sendPasswordResetLink(db(), w.op, { memberId: (await addPerson(w.op, "member")).member.id }),
    "member.password_reset"
  ),
  setNotificationEmails: async (w) => {
    const person = await addPerson(w.op, "admin");
    const actor: MemberActor = {
      kind: "member",
      organizationId: w.tenant.organization.id,
      member: { id: person.member.id, role: "admin", email: person.email },
    };
    await notifications.setNotificationEmails(db(), actor, { kinds: [{ kind: "review", email: true }] });
    return "member.notification_email";
  },
  resetMemberPassword: async (w) => (
    await members.resetMemberPassword(db(), w.op, { memberId: (await addPerson(w.op, "member")).member.id }),
    "member.password_reset"
  ),
  createModelProvider: async (w) => (await modelProvider(w), "model_provider.create"),
  updateModelProvider: async (w) => (
    await modelProviders.updateModelProvider(db(), w.op, { providerId: (await modelProvider(w)).id, name: "Renamed" }),
    "model_provider.update"
  ),
  deleteModelProvider: async (w) => (
    await modelProviders.deleteModelProvider(db(), w.op, { providerId: (await modelProvider(w)).id }),
    "model_provider.delete"
  ),
  updateOrganization: async (w) => (
    await organizations.updateOrganization(db(), w.op, { credits: 5000 }),
    "organization.update"
  ),
  createPage: async (w) => (await page(w), "page.create"),
  patchPage: async (w) => (
    await pageEdits.patchPage(db(), w.op, {
      knowledgebaseId: w.kbId,
      pageId: await page(w),
      patch: [{ op: "append", text: "!" }],
    }),
    "page.update"
  ),
  savePage: async (w) => (
    await pageEdits.savePage(db(), w.op, { knowledgebaseId: w.kbId, pageId: await page(w), markdown: "Saved" }),
    "page.update"
  ),
  movePage: async (w) => {
    const folder = await page(w);
    await pages.movePage(db(), w.op, { knowledgebaseId: w.kbId, pageId: await page(w), parentPageId: folder });
    return "page.move";
  },
  deletePage: async (w) => (
    await pages.deletePage(db(), w.op, { knowledgebaseId: w.kbId, pageId: await page(w) }),
    "page.delete"
  ),
  createPortal: async (w) => (await portals.createPortal(db(), w.op, { name: name("Portal") }), "portal.create"),
  updatePortal: async (w) => (
    await portals.updatePortal(db(), w.op, {
      id: (await portals.createPortal(db(), w.op, { name: name("Portal") })).id,
      greeting: "Hi",
    }),
    "portal.update"
  ),
  rotateEmbedSecret: async (w) => (
    await portals.rotateEmbedSecret(db(), w.op, {
      id: (await portals.createPortal(db(), w.op, { name: name("Portal") })).id,
    }),
    "portal.embed_secret_rotate"
  ),
  admitGroup: async (w) => {
    const portal = await portals.createPortal(db(), w.op, { name: name("Portal") });
    await portalAdmissions.admitGroup(db(), w.op, { portalId: portal.id, groupId: (await group(w)).id });
    return "portal.admission_add";
  },
  removeAdmission: async (w) => {
    const portal = await portals.createPortal(db(), w.op, { name: name("Portal") });
    const { id: groupId } = await group(w);
    await portalAdmissions.admitGroup(db(), w.op, { portalId: portal.id, groupId });
    await portalAdmissions.removeAdmission(db(), w.op, { portalId: portal.id, groupId });
    return "portal.admission_remove";
  },
  approveReview: async (w) => (
    await reviews.approveReview(db(), w.op, { reviewId: await pendingReview(w) }),
    "review.approve"
  ),
  approveReviews: async (w) => (
    await reviews.approveReviews(db(), w.op, { reviewIds: [await pendingReview(w)] }),
    "review.approve"
  ),
  rejectReview: async (w) => (
    await reviews.rejectReview(db(), w.op, { reviewId: await pendingReview(w) }),
    "review.reject"
  ),
  createSource: async (w) => (
    await sources.createSource(db(), w.op, { knowledgebaseId: w.kbId, contentText: "Text" }, "console"),
    "source.create"
  ),
  addSource: async (w) => (
    await sources.addSource(db(), w.op, { knowledgebaseId: w.kbId, contentText: name("Text") }, { via: "api" }),
    "source.create"
  ),
  deleteSource: async (w) => {
    const { source } = await sources.createSource(
      db(),
      w.op,
      { knowledgebaseId: w.kbId, contentText: "Text" },
      "console",
    );
    await sources.deleteSource(db(), w.op, { knowledgebaseId: w.kbId, sourceId: source.id });
    return "source.delete";
  },
  retrySource: async (w) => {
    const { source } = await sources.createSource(
      db(),
      w.op,
      { knowledgebaseId: w.kbId, contentText: "Text" },
      "console",
    );
    await db().source.update({ where: { id: source.id }, data: { status: "failed" } });
    await sources.retrySource(db(), w.op, { knowledgebaseId: w.kbId, sourceId: source.id });
    return "source.retry";
  },
  updateSource: async (w) => {
    const source = await db().source.create({
      data: {
        organizationId: w.op.organizationId,
        knowledgebaseId: w.kbId,
        name: "A page",
        type: "url",
        url: "https://example.com/page",
        status: "ready",
        createdVia: "api",
      },
    });
    await sources.updateSource(db(), w.op, { knowledgebaseId: w.kbId, sourceId: source.id, refresh: "daily" });
    return "source.update";
  },
  createTierPlan: async (w) => (
    await tierPlans.createTierPlan(db(), w.op, { name: name("Plan"), creditAllowance: 5, withGroup: true }),
    "tier_plan.create"
  ),
  archiveTierPlan: async (w) => {
    const { tierPlan } = await tierPlans.createTierPlan(db(), w.op, {
      name: name("Plan"),
      creditAllowance: 5,
      withGroup: false,
    });
    await tierPlans.archiveTierPlan(db(), w.op, { tierPlanId: tierPlan.id });
    return "tier_plan.archive";
  },
  setModelPrice: async (w) => {
    const price = { modelId: "atrium-offline", inputCreditsPerMillion: 1, outputCreditsPerMillion: 2 };
    await modelPrices.setModelPrice(db(), w.op, price);
    return "model_price.create";
  },
  deleteModelPrice: async (w) => {
    const price = { modelId: "atrium-offline", inputCreditsPerMillion: 1, outputCreditsPerMillion: 2 };
    await modelPrices.setModelPrice(db(), w.op, price);
    await modelPrices.deleteModelPrice(db(), w.op, { modelId: "atrium-offline" });
    return "model_price.delete";
  },
  updateTierPlan: async (w) => {
    const { tierPlan } = await tierPlans.createTierPlan(db(), w.op, {
      name: name("Plan"),
      creditAllowance: 5,
      withGroup: false,
    });
    await tierPlans.updateTierPlan(db(), w.op, { tierPlanId: tierPlan.id, creditAllowance: 7 });
    return "tier_plan.update";
  },
  createUserGroup: async (w) => (await group(w), "user_group.create"),
  updateUserGroup: async (w) => (
    await userGroups.updateUserGroup(db(), w.op, { groupId: (await group(w)).id, description: "About" }),
    "user_group.update"
  ),
  deleteUserGroup: async (w) => (
    await userGroups.deleteUserGroup(db(), w.op, { groupId: (await group(w)).id }),
    "user_group.delete"
  ),
  addGroupMember: async (w) => (
    await userGroups.addGroupMember(db(), w.op, { groupId: (await group(w)).id, endUserId: (await endUser(w)).id }),
    "user_group.member_add"
  ),
  removeGroupMember: async (w) => {
    const { id: groupId } = await group(w);
    const { id: endUserId } = await endUser(w);
    await userGroups.addGroupMember(db(), w.op, { groupId, endUserId });
    await userGroups.removeGroupMember(db(), w.op, { groupId, endUserId });
    return "user_group.member_remove";
  },
  addGroupGrant: async (w) => (
    await userGroups.addGroupGrant(db(), w.op, { groupId: (await group(w)).id, targetKind: "app", targetId: w.appId }),
    "grant.create"
  ),
  removeGroupGrant: async (w) => {
    const { id: groupId } = await group(w);
    const { grant } = await userGroups.addGroupGrant(db(), w.op, { groupId, targetKind: "app", targetId: w.appId });
    await userGroups.removeGroupGrant(db(), w.op, { groupId, grantId: grant.id });
    return "grant.delete";
  },
};

async function guardedFunctionNames(): Promise<string[]> {
  const names = new Set<string>();
  for (const file of readdirSync(SERVICES_DIR, { recursive: true, encoding: "utf8" }).filter((entry) =>
    entry.endsWith(".ts"),
  )) {
    const exports = (await import(path.join(SERVICES_DIR, file))) as Record<string, unknown>;
    for (const [exported, value] of Object.entries(exports)) {
      if (typeof value === "function" && ("requirement" in value || "requirementFor" in value)) names.add(exported);
    }
  }
  return [...names].sort();
}

let world: World;

beforeAll(async () => {
  const tenant = await newOrganization();
  const op: OperatorActor = {
    ...tenant.operator,
    origin: { door: "cli", requestId: null, ipAddress: null, userAgent: null },
  };
  const kb = await knowledgebases.createKnowledgebase(getDb(), op, { name: "Handbook" });
  const app = await builder.createItem(getDb(), op, "app", { name: "Helpdesk" });
  const scimKey = await issueKey(tenant.operator, { kind: "organization", scopes: ["scim"], name: "Entra ID" });
  const directoryActor: KeyActor = {
    kind: "key",
    organizationId: tenant.organization.id,
    keyId: scimKey.id,
    keyName: "Entra ID",
    keyKind: "organization",
    scopes: ["scim"],
    member: null,
    origin: { door: "scim", requestId: null, ipAddress: null, userAgent: null },
  };
  world = { tenant, op, directory: directoryActor, kbId: kb.knowledgebase.id, appId: app.id as string };
});

describe("every write path records an event", () => {
  it("classifies every guarded service function as a write with a scenario, or a read or run", async () => {
    const unclassified = (await guardedFunctionNames()).filter((fn) => !(fn in WRITES) && !READS_AND_RUNS.has(fn));
    expect(unclassified, "add a scenario to WRITES (and record its event) or list it in READS_AND_RUNS").toEqual([]);
  });

  it.each(Object.keys(WRITES))("%s records its event, in the organization, with actor and door", async (fn) => {
    const since = new Date(Date.now() - 1);
    const action = await WRITES[fn]!(world);
    const events = await getDb().auditEvent.findMany({
      where: { organizationId: world.tenant.organization.id, action, occurredAt: { gte: since } },
    });
    expect(events.length, `${fn} recorded no ${action}`).toBeGreaterThan(0);
    // Scenarios act as the operator (the CLI), except a member changing their own password or
    // notification emails (the console) and the directory's SCIM calls.
    const expected =
      fn === "changeOwnPassword" ||
      fn === "setNotificationEmails" ||
      fn === "confirmMfaEnrollment" ||
      fn === "removeOwnMfa"
        ? { actorType: "member", door: "console" }
        : THROUGH_DIRECTORY.has(fn)
          ? { actorType: "directory", door: "scim" }
          : { actorType: "operator", door: "cli" };
    expect(
      events.map((event) => ({ actorType: event.actorType, door: event.door, outcome: event.outcome })),
    ).toContainEqual({ ...expected, outcome: "success" });
  });

  // Runs after the scenarios above, in order: what they recorded is every kind of event there is.
  it("records no action the console's activity lists cannot put in words", async () => {
    const recorded = await getDb().auditEvent.findMany({
      where: { organizationId: world.tenant.organization.id },
      distinct: ["action"],
      select: { action: true },
    });
    expect(recorded.length).toBeGreaterThan(50);
    expect(recorded.map((event) => event.action).filter((action) => actionWords(action) === action)).toEqual([]);
  });
});
