// Webhook endpoints and their deliveries (Standard Webhooks): shapes of /webhook-endpoints.
import { z } from "zod";
import { descriptionText, ListQuery, NextCursor, Timestamp, Uuid } from "../common";
import { ServiceUrl } from "./integration";

/** The event types an endpoint may listen for (the contract's list). */
export const WEBHOOK_EVENT_TYPES = [
  "end_user.created",
  "end_user.updated",
  "end_user.suspended",
  "end_user.reactivated",
  "end_user.deleted",
  "end_user.erased",
  "subscription.created",
  "subscription.canceled",
  "credits.low",
  "credits.exhausted",
  "review.requested",
  "review.decided",
  "source.ready",
  "source.failed",
  "page.changed",
  "app.published",
  "execution.failed",
  "execution.awaiting_approval",
  "execution.completed",
  "directory.sync_failed",
] as const;

export const WebhookEventType = z
  .enum([...WEBHOOK_EVENT_TYPES, "*"])
  .meta({ description: 'An event type, or "*" for all' });

export const WebhookEndpoint = z
  .object({
    id: Uuid,
    url: z.string(),
    eventTypes: z.array(z.string()),
    description: z.string(),
    enabled: z.boolean(),
    disabledReason: z
      .string()
      .nullable()
      .meta({ description: "Why Atrium turned the endpoint off (410 Gone, 5 days of failures); null otherwise" }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: "WebhookEndpoint" });
export type WebhookEndpoint = z.infer<typeof WebhookEndpoint>;

const EventTypes = z
  .array(WebhookEventType)
  .min(1)
  .max(WEBHOOK_EVENT_TYPES.length + 1);

export const CreateWebhookEndpointInput = z.strictObject({
  url: ServiceUrl,
  eventTypes: EventTypes,
  description: descriptionText.optional(),
  enabled: z.boolean().optional(),
});
export type CreateWebhookEndpointInput = z.infer<typeof CreateWebhookEndpointInput>;

export const WebhookEndpointIdInput = z.strictObject({ id: Uuid });

export const UpdateWebhookEndpointInput = z.strictObject({
  id: Uuid,
  url: ServiceUrl.optional(),
  eventTypes: EventTypes.optional(),
  description: descriptionText.optional(),
  enabled: z
    .boolean()
    .optional()
    .meta({ description: "true turns a disabled endpoint on again (and clears disabledReason)" }),
});
export type UpdateWebhookEndpointInput = z.infer<typeof UpdateWebhookEndpointInput>;

export const WebhookSecret = z
  .string()
  .meta({ description: "`whsec_…`: shown only in this answer. Verify deliveries with it (Standard Webhooks)." });

export const CreateWebhookEndpointOutput = z.object({ endpoint: WebhookEndpoint, secret: WebhookSecret });
export const ListWebhookEndpointsOutput = z.object({ endpoints: z.array(WebhookEndpoint), nextCursor: NextCursor });

export const WebhookAttempt = z.object({
  at: Timestamp,
  responseStatus: z.number().int().nullable(),
  durationMs: z.number().int(),
  error: z.string().nullable(),
});

export const WebhookDelivery = z
  .object({
    id: Uuid.meta({ description: "The `webhook-id` header of every attempt" }),
    eventId: Uuid,
    type: z.string(),
    status: z.enum(["pending", "succeeded", "failed"]),
    attempts: z.array(WebhookAttempt),
    nextAttemptAt: Timestamp.nullable(),
    createdAt: Timestamp,
  })
  .meta({ id: "WebhookDelivery" });
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

export const ListWebhookDeliveriesInput = ListQuery.extend({ id: Uuid });
export const ListWebhookDeliveriesOutput = z.object({ deliveries: z.array(WebhookDelivery), nextCursor: NextCursor });
export const ReplayWebhookDeliveryInput = z.strictObject({ id: Uuid, deliveryId: Uuid });

export const SendWebhookTestEventInput = z.strictObject({
  id: Uuid,
  type: z
    .enum([...WEBHOOK_EVENT_TYPES, "ping"])
    .default("ping")
    .meta({ description: "`ping` (the default), or an event type whose sample `data` is sent" }),
});
export type SendWebhookTestEventInput = z.infer<typeof SendWebhookTestEventInput>;

export const WebhookTestEventOutput = z
  .object({
    delivery: WebhookDelivery,
    request: z.object({
      url: z.string(),
      headers: z
        .record(z.string(), z.string())
        .meta({ description: "`webhook-id`, `webhook-timestamp`, `webhook-signature`…" }),
      body: z.string().meta({ description: "The JSON body exactly as signed and sent" }),
    }),
    response: z.object({
      status: z
        .number()
        .int()
        .nullable()
        .meta({ description: "The endpoint's HTTP status; null when it gave no answer" }),
      body: z.string().nullable().meta({ description: "The first 2,000 characters of its answer" }),
      durationMs: z.number().int(),
      error: z.string().nullable().meta({ description: "Why it failed, as a delivery attempt's `error`" }),
    }),
  })
  .meta({ id: "WebhookTestEvent" });
export type WebhookTestEventOutput = z.infer<typeof WebhookTestEventOutput>;

export const WebhookEndpointOutput = z.object({ endpoint: WebhookEndpoint });
export const WebhookSecretOutput = z.object({ secret: WebhookSecret });
export const WebhookDeliveryOutput = z.object({ delivery: WebhookDelivery });
