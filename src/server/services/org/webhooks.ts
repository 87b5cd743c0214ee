// Webhook endpoints of an organization and their deliveries. Deliveries are never queued here:
// a trigger queues them from the events recordEvent() writes (events.ts), and the delivery
// worker (src/server/jobs/webhook-delivery.ts) sends them. The secret is shown once, and stored
// sealed with the installation's key (src/server/secret-box.ts), as provider keys are.
import { sealSecret } from "@/server/secret-box";
import { randomBytes } from "node:crypto";
import { WEBHOOK_SAMPLES } from "@/schemas/org/webhook-samples";
import type {
  CreateWebhookEndpointInput,
  SendWebhookTestEventInput,
  UpdateWebhookEndpointInput,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookTestEventOutput,
} from "@/schemas/org/webhooks";
import type { Actor } from "@/server/auth/actor";
import { guarded } from "@/server/auth/guarded";
import type { Db } from "@/server/db";
import { AppError } from "@/server/errors";
import { requireIntegrationUrl } from "@/server/integration-urls";
import type { Prisma } from "@/generated/prisma/client";
import { deliverNow } from "@/server/jobs/webhook-delivery";
import { changesBetween, eventInsertSql, eventSqlParams, recorded, SECRET_CHANGED } from "./events";
import { oldestFirst, newestFirst } from "../support/pagination";
import { pick } from "@/lib/pick";

/** After a rotation the old secret keeps signing for this long, so receivers can switch. */
export const SECRET_OVERLAP_MS = 24 * 3_600_000;

type EndpointRow = {
  id: string;
  url: string;
  eventTypes: string[];
  description: string;
  enabled: boolean;
  disabledReason: string | null;
  createdAt: Date;
  updatedAt: Date;
};

export function toWebhookEndpoint(row: EndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    url: row.url,
    eventTypes: row.eventTypes,
    description: row.description,
    enabled: row.enabled,
    disabledReason: row.disabledReason,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

type DeliveryRow = {
  id: string;
  eventId: string;
  type: string;
  status: string;
  attempts: unknown;
  nextAttemptAt: Date | null;
  createdAt: Date;
};

export function toWebhookDelivery(row: DeliveryRow): WebhookDelivery {
  return {
    ...pick(row, ["id", "eventId", "type"]),
    status: row.status as WebhookDelivery["status"],
    attempts: row.attempts as WebhookDelivery["attempts"],
    nextAttemptAt: row.status === "pending" ? (row.nextAttemptAt?.toISOString() ?? null) : null,
    createdAt: row.createdAt.toISOString(),
  };
}

/** `whsec_` and the base64 of 32 random bytes, as Standard Webhooks libraries read it. */
function newSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

/** "*" alone when it is given; otherwise each type once. */
function eventTypesOf(types: readonly string[]): string[] {
  return types.includes("*") ? ["*"] : [...new Set(types)];
}

function endpointTarget(row: { id: string; url: string }) {
  return { type: "webhook_endpoint", id: row.id, label: row.url };
}

async function findEndpoint(db: Db, actor: Actor, id: string) {
  const row = await db.webhookEndpoint.findFirst({ where: { id, organizationId: actor.organizationId } });
  if (!row) throw new AppError("not_found", "No webhook endpoint with that id.");
  return row;
}

export const createWebhookEndpoint = guarded(
  { scope: "webhooks:write", may: "settings" },
  async function createWebhookEndpoint(
    db: Db,
    actor: Actor,
    input: CreateWebhookEndpointInput,
  ): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
    await requireIntegrationUrl(input.url, "url");
    const secret = newSecret();
    const create = (tx: Prisma.TransactionClient) =>
      tx.webhookEndpoint.create({
        data: {
          organizationId: actor.organizationId,
          url: input.url,
          eventTypes: eventTypesOf(input.eventTypes),
          description: input.description ?? "",
          enabled: input.enabled ?? true,
          secret: sealSecret(secret, "secret"),
        },
      });
    const row = await recorded(db, actor, create, (endpoint) => ({
      action: "webhook_endpoint.create",
      target: endpointTarget(endpoint),
      changes: { url: [null, endpoint.url], eventTypes: [null, endpoint.eventTypes], secret: [null, SECRET_CHANGED] },
    }));
    return { endpoint: toWebhookEndpoint(row), secret };
  },
);

export const listWebhookEndpoints = guarded(
  { scope: "webhooks:read", may: "settings" },
  async function listWebhookEndpoints(db: Db, actor: Actor, input: { limit: number; cursor?: string }) {
    const page = await oldestFirst(input, (after, window) =>
      db.webhookEndpoint.findMany({ where: { organizationId: actor.organizationId, ...after }, ...window }),
    );
    return { endpoints: page.items.map(toWebhookEndpoint), nextCursor: page.nextCursor };
  },
);

export const getWebhookEndpoint = guarded(
  { scope: "webhooks:read", may: "settings" },
  async function getWebhookEndpoint(db: Db, actor: Actor, input: { id: string }) {
    return { endpoint: toWebhookEndpoint(await findEndpoint(db, actor, input.id)) };
  },
);

export const updateWebhookEndpoint = guarded(
  { scope: "webhooks:write", may: "settings" },
  async function updateWebhookEndpoint(db: Db, actor: Actor, input: UpdateWebhookEndpointInput) {
    const before = await findEndpoint(db, actor, input.id);
    if (input.url !== undefined) await requireIntegrationUrl(input.url, "url");
    const eventTypes = input.eventTypes && eventTypesOf(input.eventTypes);
    // Turning an endpoint on again starts its failure count afresh.
    const reenabled = input.enabled === true && !before.enabled ? { disabledReason: null, failingSince: null } : {};
    const update = (tx: Prisma.TransactionClient) =>
      tx.webhookEndpoint.update({
        where: { id: before.id, organizationId: actor.organizationId },
        data: { url: input.url, eventTypes, description: input.description, enabled: input.enabled, ...reenabled },
      });
    const row = await recorded(db, actor, update, (after) => ({
      action: "webhook_endpoint.update",
      target: endpointTarget(after),
      changes: changesBetween(before, { ...input, eventTypes }, ["url", "eventTypes", "description", "enabled"]),
    }));
    return { endpoint: toWebhookEndpoint(row) };
  },
);

export const deleteWebhookEndpoint = guarded(
  { scope: "webhooks:write", may: "settings" },
  async function deleteWebhookEndpoint(db: Db, actor: Actor, input: { id: string }) {
    const before = await findEndpoint(db, actor, input.id);
    const remove = (tx: Prisma.TransactionClient) =>
      tx.webhookEndpoint.delete({ where: { id: before.id, organizationId: actor.organizationId } });
    await recorded(db, actor, remove, () => ({ action: "webhook_endpoint.delete", target: endpointTarget(before) }));
  },
);

/** A new secret, shown once; the old one keeps signing beside it for SECRET_OVERLAP_MS. */
export const rotateWebhookSecret = guarded(
  { scope: "webhooks:write", may: "settings" },
  async function rotateWebhookSecret(db: Db, actor: Actor, input: { id: string }) {
    const before = await findEndpoint(db, actor, input.id);
    const secret = newSecret();
    const rotate = (tx: Prisma.TransactionClient) =>
      tx.webhookEndpoint.update({
        where: { id: before.id, organizationId: actor.organizationId },
        data: {
          secret: sealSecret(secret, "secret"),
          previousSecret: before.secret,
          previousSecretUntil: new Date(Date.now() + SECRET_OVERLAP_MS),
        },
      });
    await recorded(db, actor, rotate, () => ({
      action: "webhook_endpoint.rotate_secret",
      target: endpointTarget(before),
      changes: { secret: [SECRET_CHANGED, SECRET_CHANGED] },
    }));
    return { secret };
  },
);

export const listWebhookDeliveries = guarded(
  { scope: "webhooks:read", may: "settings" },
  async function listWebhookDeliveries(db: Db, actor: Actor, input: { id: string; limit: number; cursor?: string }) {
    const endpoint = await findEndpoint(db, actor, input.id);
    const page = await newestFirst(input, (before, window) =>
      db.webhookDelivery.findMany({
        where: { endpointId: endpoint.id, organizationId: actor.organizationId, ...before },
        ...window,
      }),
    );
    return { deliveries: page.items.map(toWebhookDelivery), nextCursor: page.nextCursor };
  },
);

/** Sends a delivery again (a new attempt with the same `webhook-id`), whatever its status. */
export const replayWebhookDelivery = guarded(
  { scope: "webhooks:write", may: "settings" },
  async function replayWebhookDelivery(db: Db, actor: Actor, input: { id: string; deliveryId: string }) {
    const endpoint = await findEndpoint(db, actor, input.id);
    const replay = (tx: Prisma.TransactionClient) =>
      tx.webhookDelivery.updateManyAndReturn({
        where: { id: input.deliveryId, endpointId: endpoint.id, organizationId: actor.organizationId },
        data: { status: "pending", attemptCount: 0, nextAttemptAt: new Date(), claimToken: null, leaseUntil: null },
      });
    const [row] = await recorded(db, actor, replay, (rows) =>
      rows.length
        ? {
            action: "webhook_delivery.replay",
            target: { type: "webhook_delivery", id: input.deliveryId, label: endpoint.url },
          }
        : null,
    );
    if (!row) throw new AppError("not_found", "No delivery with that id on this endpoint.");
    return { delivery: toWebhookDelivery(row) };
  },
);

/**
 * "Send test event": a signed event (`ping`, or an event type with its sample data) queued for
 * this endpoint alone and sent at once through the delivery worker's own path (claim, signature,
 * address check, outcome; not retried), answering what was sent and what the endpoint answered.
 * The test is recorded in the audit log, and its delivery is listed with the endpoint's others.
 */
export const sendWebhookTestEvent = guarded(
  { scope: "webhooks:write", may: "settings" },
  async function sendWebhookTestEvent(
    db: Db,
    actor: Actor,
    input: SendWebhookTestEventInput,
  ): Promise<WebhookTestEventOutput> {
    const endpoint = await findEndpoint(db, actor, input.id);
    if (!endpoint.enabled) throw new AppError("invalid_request", "This endpoint is turned off: turn it on to test it.");
    const type = input.type ?? "ping";
    // The event (no webhook type: the trigger queues nothing) and this endpoint's one delivery, in one statement.
    const params = eventSqlParams(actor, { type: [null, type] });
    const next = params.length + 1;
    const { rows } = await db.pool.query<{ id: string }>(
      `with event as (${eventInsertSql(
        1,
        `'webhook_endpoint.test', 'webhook_endpoint', $${next}::text, $${next + 1}::text, null, $${next + 2}::jsonb`,
        "(select 1) as one",
      )} returning id)
       insert into webhook_deliveries (id, organization_id, endpoint_id, event_id, type, next_attempt_at)
       select gen_random_uuid(), $1::uuid, $${next + 4}::uuid, event.id, $${next + 3}, null from event returning id`,
      [...params, endpoint.id, endpoint.url, JSON.stringify(WEBHOOK_SAMPLES[type]), type, endpoint.id],
    );
    const deliveryId = rows[0]!.id;
    const sent = await deliverNow(db, deliveryId);
    const delivery = await db.webhookDelivery.findFirstOrThrow({
      where: { id: deliveryId, organizationId: actor.organizationId },
    });
    if (!sent?.exchange) throw new AppError("conflict", "The test event could not be sent; try again.");
    return {
      delivery: toWebhookDelivery(delivery),
      request: sent.exchange.request,
      response: {
        status: sent.responseStatus,
        body: sent.exchange.responseBody,
        durationMs: sent.durationMs,
        error: sent.error,
      },
    };
  },
);
