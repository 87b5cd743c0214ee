"use client";
// Organization › Webhooks: endpoints that receive events (signed per Standard Webhooks), the
// secret shown once, each endpoint's deliveries with their attempts and a replay, a signed test
// event showing what was sent and what came back, and a sample of each event type's payload.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import {
  Button,
  CheckboxGroup,
  ConfirmButton,
  CopyButton,
  DataTable,
  ErrorAlert,
  fieldProblem,
  FormField,
  LoadMore,
  notifyDone,
  PageHeader,
  Panel,
  SecretShownOnce,
  Select,
  useCursorList,
  useFieldValue,
  useMay,
  useZodForm,
  When,
} from "@/components/console";
import { useTRPC } from "@/lib/trpc";
import { TEST_EVENT_TYPES, WEBHOOK_SAMPLES } from "@/schemas/org/webhook-samples";
import { CreateWebhookEndpointInput, SendWebhookTestEventInput, WEBHOOK_EVENT_TYPES } from "@/schemas/org/webhooks";

export default function WebhooksPage() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const mayChangeSettings = useMay("settings");
  const endpoints = useEndpointList(mayChangeSettings);
  const [secret, setSecret] = useState<{ url: string; secret: string } | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.webhooks.list.queryKey() });

  return (
    <>
      <PageHeader
        title="Webhooks"
        description="Atrium POSTs the events you choose to your endpoints, signed per Standard Webhooks, retrying for about a day and a half when they fail."
      />
      {!mayChangeSettings && <p className="muted">Admins manage webhooks.</p>}
      {secret && (
        <SecretShownOnce secret={secret.secret} testId="webhook-secret" onDone={() => setSecret(null)}>
          Signing secret for <strong>{secret.url}</strong>. Copy it now: it is shown only once.
        </SecretShownOnce>
      )}
      {mayChangeSettings && (
        <AddEndpointPanel
          onCreated={(created) => {
            setSecret(created);
            void refresh();
          }}
        />
      )}
      {mayChangeSettings && <EndpointsPanel endpoints={endpoints} refresh={refresh} />}
      <PayloadSamples />
    </>
  );
}

/** The organization's endpoints, 50 at a time; only admins ask for them. */
function useEndpointList(enabled: boolean) {
  const trpc = useTRPC();
  return useCursorList(
    (cursor) => ({
      ...trpc.webhooks.list.queryOptions({ limit: 50, ...(cursor ? { cursor } : {}) }),
      enabled,
    }),
    (page) => page.endpoints,
  );
}

/** The endpoints, each with a test event, its deliveries, enabling, a new secret and removal. */
function EndpointsPanel({
  endpoints,
  refresh,
}: {
  endpoints: ReturnType<typeof useEndpointList>;
  refresh: () => Promise<void>;
}) {
  const trpc = useTRPC();
  const [open, setOpen] = useState<string | null>(null);
  const [testing, setTesting] = useState<string | null>(null);
  const update = useMutation(trpc.webhooks.update.mutationOptions({ onSuccess: () => void refresh() }));
  const remove = useMutation(
    trpc.webhooks.delete.mutationOptions({ onSuccess: () => (notifyDone("Endpoint removed."), void refresh()) }),
  );
  const rotate = useMutation(trpc.webhooks.rotateSecret.mutationOptions());
  return (
    <Panel>
      <ErrorAlert error={endpoints.error ?? update.error ?? remove.error ?? rotate.error} />
      {rotate.data && (
        <div className="notice" role="status">
          <p>New secret (the old one keeps signing for 24 hours). Copy it now:</p>
          <code className="secret">{rotate.data.secret}</code> <CopyButton text={rotate.data.secret} />
        </div>
      )}
      <DataTable
        label="Webhook endpoints"
        cards
        rows={endpoints.items}
        empty={
          endpoints.isLoading ? "Loading…" : "No endpoints yet: add one above to be told of events as they happen."
        }
        columns={[
          { key: "url", header: "URL", cell: (endpoint) => endpoint.url },
          {
            key: "events",
            header: "Events",
            cell: (endpoint) => (endpoint.eventTypes.includes("*") ? "All events" : endpoint.eventTypes.join(", ")),
          },
          {
            key: "status",
            header: "Status",
            cell: (endpoint) =>
              endpoint.enabled ? (
                <span className="badge">Enabled</span>
              ) : (
                <span className="badge revoked">{endpoint.disabledReason ?? "Disabled"}</span>
              ),
          },
          {
            key: "actions",
            header: "",
            cell: (endpoint) => (
              <EndpointActions
                enabled={endpoint.enabled}
                url={endpoint.url}
                testing={testing === endpoint.id}
                onTest={() => setTesting(testing === endpoint.id ? null : endpoint.id)}
                onDeliveries={() => setOpen(open === endpoint.id ? null : endpoint.id)}
                onToggle={() => update.mutate({ id: endpoint.id, enabled: !endpoint.enabled })}
                onRotate={() => rotate.mutate({ id: endpoint.id })}
                onRemove={() => remove.mutate({ id: endpoint.id })}
              />
            ),
          },
        ]}
      />
      <LoadMore list={endpoints} />
      {testing && (
        <TestEvent
          key={testing}
          endpointId={testing}
          url={endpoints.items.find((endpoint) => endpoint.id === testing)?.url ?? ""}
        />
      )}
      {open && <Deliveries endpointId={open} />}
    </Panel>
  );
}

/** What can be done to one endpoint. */
function EndpointActions({
  enabled,
  url,
  testing,
  onTest,
  onDeliveries,
  onToggle,
  onRotate,
  onRemove,
}: {
  enabled: boolean;
  url: string;
  testing: boolean;
  onTest: () => void;
  onDeliveries: () => void;
  onToggle: () => void;
  onRotate: () => void;
  onRemove: () => void;
}) {
  return (
    <div className="row">
      <button type="button" aria-expanded={testing} onClick={onTest}>
        Send test event
      </button>
      <button type="button" onClick={onDeliveries}>
        Deliveries
      </button>
      <button type="button" onClick={onToggle}>
        {enabled ? "Disable" : "Enable"}
      </button>
      <button type="button" onClick={onRotate}>
        Rotate secret
      </button>
      <ConfirmButton
        label="Remove"
        title={`Remove ${url}?`}
        description="It receives nothing more."
        onConfirm={onRemove}
      />
    </div>
  );
}

/** JSON laid out to read, or the text as it came when it is not JSON. */
function readable(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** A new endpoint: its URL and the events it receives (every event unless chosen). */
function AddEndpointPanel({ onCreated }: { onCreated: (created: { url: string; secret: string }) => void }) {
  const trpc = useTRPC();
  const form = useZodForm(CreateWebhookEndpointInput, { defaultValues: { url: "", eventTypes: ["*"] } });
  const [types, setTypes] = useFieldValue(form, "eventTypes");
  const create = useMutation(
    trpc.webhooks.create.mutationOptions({
      onSuccess: (created) => {
        onCreated({ url: created.endpoint.url, secret: created.secret });
        form.resetField("url");
      },
    }),
  );
  const submit = form.handleSubmit((input) => create.mutate(input));
  return (
    <Panel
      title="Add an endpoint"
      label="Add a webhook endpoint"
      onSubmit={(event) => void submit(event)}
      className="webhook-form"
    >
      <FormField label="URL" error={fieldProblem(form, "url")}>
        <input required type="url" placeholder="https://crm.example.com/atrium" {...form.register("url")} />
      </FormField>
      <CheckboxGroup
        legend="Events"
        legendClassName="muted"
        lead={
          <label className="inline">
            <input
              type="checkbox"
              checked={types.includes("*")}
              onChange={() => setTypes(types.includes("*") ? [] : ["*"])}
            />
            All events
          </label>
        }
        listClassName="webhook-events"
        choices={WEBHOOK_EVENT_TYPES.map((type) => ({
          value: type,
          label: <code>{type}</code>,
          disabled: types.includes("*"),
        }))}
        // "*" ticks every type; its boxes are disabled then, so only a type list is ever changed here.
        value={types.includes("*") ? WEBHOOK_EVENT_TYPES : types}
        onChange={setTypes}
      />
      <ErrorAlert error={create.error} />
      <div>
        <Button variant="primary" type="submit" disabled={create.isPending || types.length === 0}>
          Add endpoint
        </Button>
      </div>
    </Panel>
  );
}

/** The test form's field of the API's input (the endpoint is the row's). */
const TestEventFields = SendWebhookTestEventInput.omit({ id: true });

/** Sends a signed ping (or an event type's sample) now, and shows what went and what came back. */
function TestEvent({ endpointId, url }: { endpointId: string; url: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const form = useZodForm(TestEventFields, { defaultValues: { type: "ping" } });
  const send = useMutation(
    trpc.webhooks.sendTest.mutationOptions({
      onSuccess: () => void queryClient.invalidateQueries({ queryKey: trpc.webhooks.deliveries.queryKey() }),
    }),
  );
  const submit = form.handleSubmit((input) => send.mutate({ id: endpointId, ...input }));
  const result = send.data;
  const answered = result?.response;
  return (
    <section aria-label="Test event" className="webhook-test">
      <h3>Test event for {url}</h3>
      <form className="row" onSubmit={(event) => void submit(event)}>
        <FormField label="Event">
          <Select
            {...form.register("type")}
            options={TEST_EVENT_TYPES.map((name) => ({
              value: name,
              label: name === "ping" ? "ping (a test event)" : `${name} (sample data)`,
            }))}
          />
        </FormField>
        <Button variant="primary" type="submit" disabled={send.isPending}>
          {send.isPending ? "Sending…" : "Send test event"}
        </Button>
      </form>
      <ErrorAlert error={send.error} />
      {result && answered && (
        <div className="webhook-exchange" data-testid="webhook-test-result">
          <p role="status" className={answered.error ? "webhook-outcome failed-outcome" : "webhook-outcome"}>
            {answered.status !== null && !answered.error
              ? `The endpoint answered ${answered.status} in ${answered.durationMs} ms.`
              : answered.status !== null
                ? `The endpoint answered ${answered.status} in ${answered.durationMs} ms: a failure (not retried).`
                : `No answer: ${answered.error}.`}
          </p>
          <div className="webhook-exchange-sides">
            <div>
              <h4>Sent</h4>
              <pre className="webhook-json">
                {`POST ${result.request.url}\n${Object.entries(result.request.headers)
                  .map(([name, value]) => `${name}: ${value}`)
                  .join("\n")}\n\n${readable(result.request.body)}`}
              </pre>
            </div>
            <div>
              <h4>Answered</h4>
              <pre className="webhook-json">
                {answered.status === null
                  ? (answered.error ?? "No answer")
                  : `HTTP ${answered.status}\n\n${answered.body ? readable(answered.body) : "(an empty body)"}`}
              </pre>
            </div>
          </div>
        </div>
      )}
    </section>
  );
}

/** What each event type's delivery carries, with made-up values: one type at a time. */
function PayloadSamples() {
  const [type, setType] = useState<(typeof WEBHOOK_EVENT_TYPES)[number]>(WEBHOOK_EVENT_TYPES[0]);
  return (
    <Panel title="Payload samples">
      <p className="muted flush-top">
        Each delivery is a POST of <code>{"{type, timestamp, data}"}</code> with the headers <code>webhook-id</code>,{" "}
        <code>webhook-timestamp</code> and <code>webhook-signature</code>. Verify it with your secret and the Standard
        Webhooks library of your language.
      </p>
      <FormField label="Event type">
        <Select
          value={type}
          onChange={(e) => setType(e.target.value as typeof type)}
          options={WEBHOOK_EVENT_TYPES.map((name) => ({ value: name, label: name }))}
        />
      </FormField>
      <pre className="webhook-json webhook-sample" data-testid="webhook-sample">
        {JSON.stringify({ type, timestamp: "2026-01-15T09:30:00.000Z", data: WEBHOOK_SAMPLES[type] }, null, 2)}
      </pre>
    </Panel>
  );
}

function Deliveries({ endpointId }: { endpointId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const deliveries = useQuery(trpc.webhooks.deliveries.queryOptions({ id: endpointId, limit: 50 }));
  const replay = useMutation(
    trpc.webhooks.replay.mutationOptions({
      onSuccess: () => (
        notifyDone("Queued again."),
        void queryClient.invalidateQueries({ queryKey: trpc.webhooks.deliveries.queryKey() })
      ),
    }),
  );
  return (
    <section aria-label="Deliveries">
      <h3>Deliveries</h3>
      <ErrorAlert error={deliveries.error ?? replay.error} />
      <DataTable
        label="Deliveries"
        cards
        rows={deliveries.data?.deliveries ?? []}
        empty={deliveries.isLoading ? "Loading…" : "Nothing sent yet."}
        columns={[
          {
            key: "when",
            header: "Queued",
            nowrap: true,
            cell: (delivery) => <When at={delivery.createdAt} />,
          },
          { key: "type", header: "Event", cell: (delivery) => delivery.type },
          { key: "status", header: "Status", cell: (delivery) => delivery.status },
          {
            key: "attempts",
            header: "Attempts",
            cell: (delivery) => delivery.attempts.map((attempt) => attempt.responseStatus ?? attempt.error).join(", "),
          },
          {
            key: "replay",
            header: "",
            cell: (delivery) => (
              <button type="button" onClick={() => replay.mutate({ id: endpointId, deliveryId: delivery.id })}>
                Replay
              </button>
            ),
          },
        ]}
      />
    </section>
  );
}
