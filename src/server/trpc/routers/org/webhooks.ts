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
import { restRouter } from "../../service-procedures";

export const webhooksRouter = restRouter("Webhooks", (rest) => ({
  create: rest.mutation("POST", createWebhookEndpoint, {
    path: "/webhook-endpoints",
    summary: "Register a webhook endpoint",
    description:
      "Events of the types listed are POSTed to `url`, signed per Standard Webhooks 1.0 with the `secret` answered here once. The URL must be public (unless the installation allows private integration URLs).",
    successStatus: 201,
    errors: ["invalid_request"],
    input: CreateWebhookEndpointInput,
    output: CreateWebhookEndpointOutput,
  }),

  list: rest.query(listWebhookEndpoints, {
    path: "/webhook-endpoints",
    summary: "List webhook endpoints",
    input: ListQuery,
    output: ListWebhookEndpointsOutput,
  }),

  get: rest.query(getWebhookEndpoint, {
    path: "/webhook-endpoints/{id}",
    summary: "Get a webhook endpoint",
    errors: ["not_found"],
    input: WebhookEndpointIdInput,
    output: WebhookEndpointOutput,
  }),

  update: rest.mutation("PATCH", updateWebhookEndpoint, {
    path: "/webhook-endpoints/{id}",
    summary: "Change a webhook endpoint",
    description: "Only the fields passed change.",
    errors: ["not_found", "invalid_request"],
    input: UpdateWebhookEndpointInput,
    output: WebhookEndpointOutput,
  }),

  delete: rest.remove(deleteWebhookEndpoint, {
    path: "/webhook-endpoints/{id}",
    summary: "Remove a webhook endpoint",
    errors: ["not_found"],
    input: WebhookEndpointIdInput,
  }),

  rotateSecret: rest.mutation("POST", rotateWebhookSecret, {
    path: "/webhook-endpoints/{id}/rotate-secret",
    summary: "Rotate the signing secret",
    description: "A new secret, shown once. The old one keeps signing too (a second signature) for 24 hours.",
    errors: ["not_found"],
    input: WebhookEndpointIdInput,
    output: WebhookSecretOutput,
  }),

  deliveries: rest.query(listWebhookDeliveries, {
    path: "/webhook-endpoints/{id}/deliveries",
    summary: "List deliveries and their attempts",
    description: "Newest first.",
    errors: ["not_found"],
    input: ListWebhookDeliveriesInput,
    output: ListWebhookDeliveriesOutput,
  }),

  replay: rest.mutation("POST", replayWebhookDelivery, {
    path: "/webhook-endpoints/{id}/deliveries/{deliveryId}/replay",
    summary: "Send a delivery again",
    description: "A new attempt with the same `webhook-id`, queued at once.",
    successStatus: 202,
    errors: ["not_found"],
    input: ReplayWebhookDeliveryInput,
    output: WebhookDeliveryOutput,
  }),

  sendTest: rest.mutation("POST", sendWebhookTestEvent, {
    path: "/webhook-endpoints/{id}/test",
    summary: "Send a test event",
    description:
      "Signs and sends one event to this endpoint now, through the delivery path of every event (address rules, signature, 15 s timeout), not retried: `ping`, or an event type with sample `data`. Answers what was sent and what the endpoint answered; the delivery is listed with the others.",
    errors: ["not_found", "invalid_request"],
    input: SendWebhookTestEventInput,
    output: WebhookTestEventOutput,
  }),
}));
