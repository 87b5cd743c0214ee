import { z } from "zod";
import { ListQuery } from "@/schemas/common";
import {
  CreateWebhookEndpointInput,
  CreateWebhookEndpointOutput,
  ListWebhookDeliveriesInput,
  ListWebhookDeliveriesOutput,
  ListWebhookEndpointsOutput,
  ReplayWebhookDeliveryInput,
  SendWebhookTestEventInput,
  UpdateWebhookEndpointInput,
  WebhookEndpointIdInput,
  WebhookTestEventOutput,
  WebhookEndpointOutput,
  WebhookSecretOutput,
  WebhookDeliveryOutput,
} from "@/schemas/org/webhooks";
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookDeliveries,
  listWebhookEndpoints,
  replayWebhookDelivery,
  rotateWebhookSecret,
  sendWebhookTestEvent,
  updateWebhookEndpoint,
} from "@/server/services/org/webhooks";
import { router, scopedProcedure } from "../../init";

const TAGS = ["Webhooks"];

export const webhooksRouter = router({
  create: scopedProcedure(createWebhookEndpoint.requirement)
    .meta({
      openapi: {
        method: "POST",
        path: "/webhook-endpoints",
        tags: TAGS,
        summary: "Register a webhook endpoint",
        description:
          "Events of the types listed are POSTed to `url`, signed per Standard Webhooks 1.0 with the `secret` answered here once. The URL must be public (unless the installation allows private integration URLs).",
      },
      successStatus: 201,
      errors: ["invalid_request"],
    })
    .input(CreateWebhookEndpointInput)
    .output(CreateWebhookEndpointOutput)
    .mutation(async ({ ctx, input }) => {
      ctx.response.status = 201;
      return createWebhookEndpoint(ctx.db, ctx.actor, input);
    }),

  list: scopedProcedure(listWebhookEndpoints.requirement)
    .meta({ openapi: { method: "GET", path: "/webhook-endpoints", tags: TAGS, summary: "List webhook endpoints" } })
    .input(ListQuery)
    .output(ListWebhookEndpointsOutput)
    .query(({ ctx, input }) => listWebhookEndpoints(ctx.db, ctx.actor, input)),

  get: scopedProcedure(getWebhookEndpoint.requirement)
    .meta({
      openapi: { method: "GET", path: "/webhook-endpoints/{id}", tags: TAGS, summary: "Get a webhook endpoint" },
      errors: ["not_found"],
    })
    .input(WebhookEndpointIdInput)
    .output(WebhookEndpointOutput)
    .query(({ ctx, input }) => getWebhookEndpoint(ctx.db, ctx.actor, input)),

  update: scopedProcedure(updateWebhookEndpoint.requirement)
    .meta({
      openapi: {
        method: "PATCH",
        path: "/webhook-endpoints/{id}",
        tags: TAGS,
        summary: "Change a webhook endpoint",
        description: "Only the fields passed change.",
      },
      errors: ["not_found", "invalid_request"],
    })
    .input(UpdateWebhookEndpointInput)
    .output(WebhookEndpointOutput)
    .mutation(({ ctx, input }) => updateWebhookEndpoint(ctx.db, ctx.actor, input)),

  delete: scopedProcedure(deleteWebhookEndpoint.requirement)
    .meta({
      openapi: { method: "DELETE", path: "/webhook-endpoints/{id}", tags: TAGS, summary: "Remove a webhook endpoint" },
      successStatus: 204,
      errors: ["not_found"],
    })
    .input(WebhookEndpointIdInput)
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      await deleteWebhookEndpoint(ctx.db, ctx.actor, input);
      ctx.response.status = 204;
    }),

  rotateSecret: scopedProcedure(rotateWebhookSecret.requirement)
    .meta({
      openapi: {
        method: "POST",
        path: "/webhook-endpoints/{id}/rotate-secret",
        tags: TAGS,
        summary: "Rotate the signing secret",
        description: "A new secret, shown once. The old one keeps signing too (a second signature) for 24 hours.",
      },
      errors: ["not_found"],
    })
    .input(WebhookEndpointIdInput)
    .output(WebhookSecretOutput)
    .mutation(({ ctx, input }) => rotateWebhookSecret(ctx.db, ctx.actor, input)),

  deliveries: scopedProcedure(listWebhookDeliveries.requirement)
    .meta({
      openapi: {
        method: "GET",
        path: "/webhook-endpoints/{id}/deliveries",
        tags: TAGS,
        summary: "List deliveries and their attempts",
        description: "Newest first.",
      },
      errors: ["not_found"],
    })
    .input(ListWebhookDeliveriesInput)
    .output(ListWebhookDeliveriesOutput)
    .query(({ ctx, input }) => listWebhookDeliveries(ctx.db, ctx.actor, input)),

  replay: scopedProcedure(replayWebhookDelivery.requirement)
    .meta({
      openapi: {
        method: "POST",
        path: "/webhook-endpoints/{id}/deliveries/{deliveryId}/replay",
        tags: TAGS,
        summary: "Send a delivery again",
        description: "A new attempt with the same `webhook-id`, queued at once.",
      },
      successStatus: 202,
      errors: ["not_found"],
    })
    .input(ReplayWebhookDeliveryInput)
    .output(WebhookDeliveryOutput)
    .mutation(async ({ ctx, input }) => {
      ctx.response.status = 202;
      return replayWebhookDelivery(ctx.db, ctx.actor, input);
    }),

  sendTest: scopedProcedure(sendWebhookTestEvent.requirement)
    .meta({
      openapi: {
        method: "POST",
        path: "/webhook-endpoints/{id}/test",
        tags: TAGS,
        summary: "Send a test event",
        description:
          "Signs and sends one event to this endpoint now, through the delivery path of every event (address rules, signature, 15 s timeout), not retried: `ping`, or an event type with sample `data`. Answers what was sent and what the endpoint answered; the delivery is listed with the others.",
      },
      errors: ["not_found", "invalid_request"],
    })
    .input(SendWebhookTestEventInput)
    .output(WebhookTestEventOutput)
    .mutation(({ ctx, input }) => sendWebhookTestEvent(ctx.db, ctx.actor, input)),
});
