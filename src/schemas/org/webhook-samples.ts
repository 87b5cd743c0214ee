// What a delivery of each webhook event type carries, with made-up values: shown beside an
// endpoint in the console, and sent by "Send test event" when a type is picked. The shapes are
// those the OpenAPI document's `webhooks` describe (tests/audit/webhook-test-event.test.ts checks
// the end user ones against the EndUser schema).
import type { WEBHOOK_EVENT_TYPES } from "./webhooks";

export type WebhookEventTypeName = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The test event's own type: not a change, sent only when asked. */
export const PING_EVENT_TYPE = "ping";

const AT = "2026-01-15T09:30:00.000Z";
const END_USER = {
  id: "7f1c2a8e-0b7d-4c1e-9a51-2f3b4c5d6e7f",
  email: "alice@example.com",
  fullName: "Alice Example",
  authMethod: "email_code",
  emailVerifiedAt: AT,
  revokedAt: null,
  suspendedAt: null,
  lastSeenAt: AT,
  createdAt: AT,
};
const EXECUTION = {
  id: "3a9d1f20-5c6b-4e7a-8f90-1b2c3d4e5f60",
  kind: "conversation_turn",
  itemKind: "app",
  itemId: "5b6c7d8e-9f01-4a2b-8c3d-4e5f6a7b8c9d",
  status: "failed",
  credits: 0,
  latencyMs: 1840,
  endUserId: END_USER.id,
  error: { code: "provider_error", message: "The model provider did not answer." },
  createdAt: AT,
};

export const WEBHOOK_SAMPLES: Record<WebhookEventTypeName | typeof PING_EVENT_TYPE, unknown> = {
  ping: { object: "ping", message: "A test event from Atrium. Answer 2xx to show the endpoint works." },
  "end_user.created": END_USER,
  "end_user.updated": { ...END_USER, fullName: "Alice Liddell" },
  "end_user.suspended": { ...END_USER, suspendedAt: AT },
  "end_user.reactivated": END_USER,
  "end_user.deleted": { id: END_USER.id, email: END_USER.email, deleted: true },
  "end_user.erased": { id: END_USER.id, erasedAt: AT },
  "subscription.created": {
    id: "c0ffee00-1234-4abc-9def-000000000001",
    endUserId: END_USER.id,
    tierPlanId: "9e8d7c6b-5a49-4837-a261-504f3e2d1c0b",
    status: "active",
    creditAllowance: 1000,
    creditsUsed: 0,
    bonusCredits: 0,
    creditsResetAt: AT,
  },
  "subscription.canceled": {
    id: "c0ffee00-1234-4abc-9def-000000000001",
    endUserId: END_USER.id,
    tierPlanId: "9e8d7c6b-5a49-4837-a261-504f3e2d1c0b",
    status: "canceled",
  },
  "credits.low": {
    object: "credit_pool",
    subscriptionId: "c0ffee00-1234-4abc-9def-000000000001",
    endUserId: END_USER.id,
    tierPlanId: "9e8d7c6b-5a49-4837-a261-504f3e2d1c0b",
    creditAllowance: 1000,
    bonusCredits: 0,
    creditsUsed: 912,
    creditsLeft: 88,
  },
  "credits.exhausted": {
    object: "organization_credits",
    organizationId: "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
    credits: 0,
    reference: 50000,
  },
  "review.requested": {
    id: "d1e2f3a4-b5c6-4d7e-8f90-a1b2c3d4e5f6",
    kind: "page_update",
    status: "pending",
    reviewPath: "/reviews/d1e2f3a4-b5c6-4d7e-8f90-a1b2c3d4e5f6",
  },
  "review.decided": {
    id: "d1e2f3a4-b5c6-4d7e-8f90-a1b2c3d4e5f6",
    kind: "page_update",
    status: "approved",
    reviewPath: "/reviews/d1e2f3a4-b5c6-4d7e-8f90-a1b2c3d4e5f6",
  },
  "source.ready": {
    id: "e5f6a7b8-c9d0-4e1f-a2b3-c4d5e6f7a8b9",
    knowledgebaseId: "f0e1d2c3-b4a5-4968-8776-655443322110",
    name: "Refund policy.pdf",
    type: "file",
    status: "ready",
    errorMessage: null,
  },
  "source.failed": {
    id: "e5f6a7b8-c9d0-4e1f-a2b3-c4d5e6f7a8b9",
    knowledgebaseId: "f0e1d2c3-b4a5-4968-8776-655443322110",
    name: "Refund policy.pdf",
    type: "file",
    status: "failed",
    errorMessage: "The file is not a PDF.",
  },
  "page.changed": {
    id: "a9b8c7d6-e5f4-4a3b-9c2d-1e0f9a8b7c6d",
    knowledgebaseId: "f0e1d2c3-b4a5-4968-8776-655443322110",
    title: "Refunds",
    markdown: "Refunds are paid within 14 days.",
    deleted: false,
  },
  "app.published": { summary: "Answers billing questions", version: 3 },
  "execution.failed": EXECUTION,
  "execution.awaiting_approval": {
    execution: { ...EXECUTION, status: "awaiting_approval", error: null },
    approval: { nodeId: "approve-refund", message: "Refund over 500 EUR: approve?", expiresAt: AT },
  },
  "execution.completed": { ...EXECUTION, status: "succeeded", credits: 12, error: null },
  "directory.sync_failed": {
    object: "directory_sync_failure",
    request: "PATCH /scim/v2/Users/2819c223",
    status: 400,
    scimType: "invalidValue",
    detail: "userName must be an email address.",
  },
};

/** The event types a test event may be sent as: the ping, then each real type with its sample. */
export const TEST_EVENT_TYPES = Object.keys(WEBHOOK_SAMPLES) as (WebhookEventTypeName | typeof PING_EVENT_TYPE)[];
