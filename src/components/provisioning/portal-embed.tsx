"use client";
// A portal's Embed section: embedding on or off, the origins allowed to embed it, the plan an
// unknown visitor is provisioned on, the embed secret (shown once, on creation and rotation),
// and the snippets for the organization's backend (signing the token) and for its page.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import {
  Button,
  CopyButton,
  ErrorAlert,
  fieldProblem,
  FormField,
  LoadMore,
  Select,
  useMay,
  useZodForm,
} from "@/components/console";
import { useBrowserOrigin } from "@/lib/browser";
import { useTRPC } from "@/lib/trpc";
import { MAX_EMBED_ORIGINS, UpdatePortalInput } from "@/schemas/portal/portal";
import { useTierPlans } from "./use-lists";

interface EmbeddedPortal {
  id: string;
  slug: string;
  embed: { enabled: boolean; allowedOrigins: string[]; hasSecret: boolean };
  provisionPlanId: string | null;
}

/** The embedding form as typed: the origins one per line, the plan's id or nothing. */
interface EmbedFields {
  enabled: boolean;
  origins: string;
  planId: string;
}

/** What the organization's backend runs for each visitor, and what its page holds. */
export function embedSnippets(origin: string, portal: { id: string; slug: string }) {
  const node = `// npm install jose
import { SignJWT } from "jose";

const secret = new TextEncoder().encode(process.env.ATRIUM_EMBED_SECRET);

export function atriumToken(user) {
  return new SignJWT({ name: user.name })
    .setProtectedHeader({ alg: "HS256" })
    .setAudience("${portal.id}")
    .setSubject(user.email)
    .setIssuedAt()
    .setExpirationTime("15m") // at most 1 hour
    .sign(secret);
}`;
  const python = `# pip install pyjwt
import os, time, jwt

def atrium_token(user):
    now = int(time.time())
    claims = {"aud": "${portal.id}", "sub": user.email, "name": user.name,
              "iat": now, "exp": now + 15 * 60}  # at most 1 hour
    return jwt.encode(claims, os.environ["ATRIUM_EMBED_SECRET"], algorithm="HS256")`;
  const curl = `# Try a token by hand (the frame does this exchange for you):
curl -X POST ${origin}/api/portal/${portal.slug}/embed/session \\
  -H 'Content-Type: application/json' -H 'Origin: https://your-site.example' \\
  -d '{"token":"<token from your backend>"}'`;
  const page = `<script src="${origin}/embed.js" async></script>
<atrium-chat portal="${portal.slug}" token="<token from your backend>"></atrium-chat>
<script>
  // The session ends with its token: hand the element a fresh one.
  document.querySelector("atrium-chat").addEventListener("atrium-token-expired", async (event) => {
    event.target.setAttribute("token", await (await fetch("/atrium-token")).text());
  });
</script>`;
  return { node, python, curl, page };
}

export function PortalEmbed({ portal }: { portal: EmbeddedPortal }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const origin = useBrowserOrigin();
  const mayGrant = useMay("grant");
  const plans = useTierPlans();
  const form = useZodForm(UpdatePortalInput, {
    defaultValues: {
      enabled: portal.embed.enabled,
      origins: portal.embed.allowedOrigins.join("\n"),
      planId: portal.provisionPlanId ?? "",
    },
    asInput: ({ enabled, origins, planId }: EmbedFields) => ({
      id: portal.id,
      embed: { enabled, allowedOrigins: origins.split(/\s+/).filter(Boolean) },
      provisionPlanId: planId || null,
    }),
    fieldOf: (path: readonly PropertyKey[]) =>
      path[0] === "embed" ? "origins" : path[0] === "provisionPlanId" ? "planId" : null,
  });
  const [secret, setSecret] = useState<string | null>(null);
  const refresh = () => void queryClient.invalidateQueries({ queryKey: trpc.portals.pathKey() });
  const update = useMutation(
    trpc.portals.update.mutationOptions({ onSuccess: () => (form.reset(form.getValues()), refresh()) }),
  );
  const rotate = useMutation(
    trpc.portals.rotateEmbedSecret.mutationOptions({ onSuccess: (data) => (setSecret(data.secret), refresh()) }),
  );
  const snippets = embedSnippets(origin, portal);
  const save = form.handleSubmit((input) => update.mutate(input));
  // Said until the next edit.
  const saved = update.isSuccess && !form.formState.isDirty;

  return (
    <div className="stack">
      <form onSubmit={(event) => void save(event)} className="form" aria-label="Embedding settings">
        <label className="inline">
          <input type="checkbox" {...form.register("enabled")} />
          Let the sites below embed this portal&apos;s chat
        </label>
        <FormField
          label="Allowed origins"
          hint={`One per line, as https://www.example.com (with a port when not the default); no paths. At most ${MAX_EMBED_ORIGINS}.`}
          error={fieldProblem(form, "origins")}
        >
          <textarea rows={3} placeholder="https://www.example.com" {...form.register("origins")} />
        </FormField>
        <FormField
          label="Visitors without an account"
          hint="Refused, or given an account on this plan the first time they open the chat."
        >
          <Select
            {...form.register("planId")}
            options={plans.items.map((plan) => ({ value: plan.id, label: `Provisioned on ${plan.name}` }))}
            placeholder="Refused"
          />
        </FormField>
        <LoadMore list={plans} />
        <ErrorAlert error={fieldProblem(form, "root") ?? update.error} />
        <div className="row">
          <Button variant="primary" type="submit" disabled={update.isPending || !mayGrant}>
            {update.isPending ? "Saving…" : "Save embedding"}
          </Button>
          {saved && (
            <span role="status" className="muted">
              Saved.
            </span>
          )}
        </div>
      </form>

      <div className="stack">
        <strong>Embed secret</strong>
        <p className="muted" style={{ margin: 0 }}>
          Your backend signs each visitor&apos;s token with it (HS256). Keep it on your server, never in a page.
          {portal.embed.hasSecret ? " Rotating keeps the old secret working for 24 hours." : ""}
        </p>
        {secret && (
          <div role="status" className="row" data-testid="embed-secret">
            <code style={{ overflowWrap: "anywhere" }}>{secret}</code>
            <CopyButton text={secret} />
            <span className="muted">Shown this once: store it now.</span>
          </div>
        )}
        {rotate.error && <ErrorAlert error={rotate.error} />}
        <div className="row">
          <button
            type="button"
            onClick={() => rotate.mutate({ id: portal.id })}
            disabled={rotate.isPending || !mayGrant}
          >
            {portal.embed.hasSecret ? "Rotate secret" : "Create secret"}
          </button>
        </div>
      </div>

      <Snippet title="Your backend (Node.js)" text={snippets.node} />
      <Snippet title="Your backend (Python)" text={snippets.python} />
      <Snippet title="Checking a token (curl)" text={snippets.curl} />
      <Snippet title="Your page" text={snippets.page} />
    </div>
  );
}

function Snippet({ title, text }: { title: string; text: string }) {
  return (
    <details>
      <summary>{title}</summary>
      <pre style={{ overflowX: "auto" }}>
        <code>{text}</code>
      </pre>
      <CopyButton text={text} />
    </details>
  );
}
