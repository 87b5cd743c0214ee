"use client";
// A portal's settings: name, slug (its link), greeting, look and the apps listed first; its
// embedding in the organization's own pages.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useParams } from "next/navigation";
import { useState, type CSSProperties, type FormEvent } from "react";
import { PortalLink } from "@/components/portal/portal-link";
import { portalTheme } from "@/lib/portal-theme";
import "@/components/portal/portal-preview.css";
import {
  Button,
  ErrorAlert,
  errorEnvelope,
  FormField,
  Panel,
  RecentActivity,
  refusedField,
  Select,
  useMay,
  useUnsavedChanges,
} from "@/components/console";
import { EntityName, EntityPicker, useEntityName } from "@/components/entity-picker";
import { PortalGroups } from "@/components/provisioning/group-portals";
import { PortalEmbed } from "@/components/provisioning/portal-embed";
import { useTRPC } from "@/lib/trpc";
import { PORTAL_LANGUAGES, type PortalLanguage } from "@/schemas/portal/portal";
import { LANGUAGE_NAMES } from "@/components/portal/i18n/languages";
import { PageHeader } from "@/components/console";
import { ScopedUsage } from "@/components/usage/scoped-usage";
import Link from "next/link";
import { MAX_GREETING_CHARS, MAX_NAME_CHARS, MAX_PORTAL_SLUG_CHARS, MAX_URL_CHARS } from "@/schemas/limits";

interface Form {
  name: string;
  slug: string;
  greeting: string;
  logoUrl: string;
  accentColor: string;
  featuredAppIds: string[];
  defaultLanguage: PortalLanguage;
}

/** Which field a refusal is about: a taken slug answers `conflict`; validation names its field. */
function fieldOf(error: unknown): keyof Form | null {
  if (!error) return null;
  if (errorEnvelope(error).code === "conflict") return "slug";
  const field = refusedField(error);
  return field &&
    ["name", "slug", "greeting", "logoUrl", "accentColor", "featuredAppIds", "defaultLanguage"].includes(field)
    ? (field as keyof Form)
    : null;
}

function FieldError({ field, error }: { field: keyof Form; error: unknown }) {
  if (!error || fieldOf(error) !== field) return null;
  return <ErrorAlert error={error} />;
}

/** The refusal's message when it is about `field`, for that field's FormField. */
function fieldMessage(field: keyof Form, error: unknown): string | null {
  return error && fieldOf(error) === field ? errorEnvelope(error).message : null;
}

interface PortalFields {
  name: string;
  slug: string;
  greeting: string;
  logoUrl: string | null;
  accentColor: string | null;
  featuredAppIds: string[];
  defaultLanguage: PortalLanguage;
}

function formOf(portal: PortalFields): Form {
  return {
    name: portal.name,
    slug: portal.slug,
    greeting: portal.greeting,
    logoUrl: portal.logoUrl ?? "",
    accentColor: portal.accentColor ?? "",
    featuredAppIds: portal.featuredAppIds,
    defaultLanguage: portal.defaultLanguage,
  };
}

export default function PortalSettingsPage() {
  const { portalId } = useParams<{ portalId: string }>();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const detail = useQuery(trpc.portals.get.queryOptions({ id: portalId }));
  const [form, setForm] = useState<Form | null>(null);
  const [saved, setSaved] = useState(false);
  const portal = detail.data?.portal;
  // The form follows the saved portal each time it is read again (after a save, too).
  const [formFrom, setFormFrom] = useState<typeof portal>(undefined);
  if (portal && portal !== formFrom) {
    setFormFrom(portal);
    setForm(formOf(portal));
  }
  useUnsavedChanges(!!portal && !!form && JSON.stringify(form) !== JSON.stringify(formOf(portal)));
  // Changing a portal is for admins: others read its settings.
  const mayGrant = useMay("grant");
  const update = useMutation(
    trpc.portals.update.mutationOptions({
      onSuccess: () => {
        setSaved(true);
        void queryClient.invalidateQueries({ queryKey: trpc.portals.pathKey() });
      },
    }),
  );

  if (detail.error) return <ErrorAlert error={detail.error} />;
  if (!portal || !form) return <p className="muted">Loading…</p>;

  const theme = portalTheme(form.accentColor);
  const set = (patch: Partial<Form>) => {
    setSaved(false);
    setForm({ ...form, ...patch });
  };
  const move = (index: number, by: number) => {
    const ids = [...form.featuredAppIds];
    const [id] = ids.splice(index, 1);
    ids.splice(index + by, 0, id!);
    set({ featuredAppIds: ids });
  };

  function submit(event: FormEvent) {
    event.preventDefault();
    if (!form) return;
    update.mutate({
      id: portalId,
      name: form.name,
      slug: form.slug,
      greeting: form.greeting,
      logoUrl: form.logoUrl.trim() || null,
      accentColor: form.accentColor || null,
      featuredAppIds: form.featuredAppIds,
      defaultLanguage: form.defaultLanguage,
    });
  }

  const unplaced = update.error && !fieldOf(update.error);
  // A field shows only the message; screen readers still hear the refusal when it happens.
  const besideField = ["name", "slug", "greeting", "logoUrl", "defaultLanguage"].includes(fieldOf(update.error) ?? "");

  return (
    <>
      <PageHeader title={portal.name} back={{ href: "/portals", label: "Portals" }} />
      <Panel>
        <strong>Link</strong> <PortalLink slug={portal.slug} />
      </Panel>
      <Panel label="Portal settings" onSubmit={submit}>
        <FormField label="Name" error={fieldMessage("name", update.error)}>
          <input
            required
            maxLength={MAX_NAME_CHARS}
            value={form.name}
            onChange={(e) => set({ name: e.target.value })}
          />
        </FormField>
        <FormField
          label="Slug"
          hint={`The portal's address: /p/${form.slug || "…"}. Changing it breaks links already sent.`}
          error={fieldMessage("slug", update.error)}
        >
          <input
            required
            minLength={2}
            maxLength={MAX_PORTAL_SLUG_CHARS}
            pattern="[a-z0-9](?:[a-z0-9\-]*[a-z0-9])?"
            title="2 to 48 lowercase letters, digits and dashes"
            value={form.slug}
            onChange={(e) => set({ slug: e.target.value.toLowerCase() })}
          />
        </FormField>
        <FormField label="Greeting" error={fieldMessage("greeting", update.error)}>
          <textarea
            rows={3}
            maxLength={MAX_GREETING_CHARS}
            value={form.greeting}
            onChange={(e) => set({ greeting: e.target.value })}
            placeholder="Welcome! Ask our assistants anything."
          />
        </FormField>
        <FormField label="Logo URL" error={fieldMessage("logoUrl", update.error)}>
          <input
            type="url"
            maxLength={MAX_URL_CHARS}
            value={form.logoUrl}
            onChange={(e) => set({ logoUrl: e.target.value })}
            placeholder="https://example.com/logo.svg"
          />
        </FormField>
        <FormField
          label="Default language"
          hint="The portal's own text is in each visitor's browser language when the portal speaks it (English, French, German), otherwise in this one. What you wrote is shown as written."
          error={fieldMessage("defaultLanguage", update.error)}
        >
          <Select
            value={form.defaultLanguage}
            onChange={(e) => set({ defaultLanguage: e.target.value as PortalLanguage })}
            options={PORTAL_LANGUAGES.map((language) => ({ value: language, label: LANGUAGE_NAMES[language] }))}
          />
        </FormField>
        <fieldset style={{ border: 0, padding: 0, margin: 0 }}>
          <legend style={{ fontSize: "0.9rem", marginBottom: "0.3rem" }}>Accent colour</legend>
          <div className="row" style={{ gap: "0.5rem" }}>
            <input
              type="color"
              aria-label="Pick the accent colour"
              value={/^#[0-9a-f]{6}$/i.test(form.accentColor) ? form.accentColor : theme.accent}
              onChange={(e) => set({ accentColor: e.target.value })}
              style={{ width: "3rem", height: "2.4rem", padding: "0.15rem" }}
            />
            <input
              aria-label="Accent colour as #rrggbb"
              value={form.accentColor}
              placeholder={`${theme.accent} (default)`}
              pattern="#[0-9a-fA-F]{6}"
              title="A colour as #rrggbb"
              size={18}
              onChange={(e) => set({ accentColor: e.target.value.trim() })}
            />
            {form.accentColor && (
              <button type="button" onClick={() => set({ accentColor: "" })}>
                Use the default
              </button>
            )}
          </div>
          <FieldError field="accentColor" error={update.error} />
          <div
            className="portal-preview"
            style={{ "--accent": theme.accent, "--accent-text": theme.accentText } as CSSProperties}
            aria-hidden="true"
          >
            <span className="row" style={{ gap: "0.5rem", fontWeight: 700 }}>
              {/^https?:\/\//.test(form.logoUrl) ? (
                <img src={form.logoUrl} alt="" style={{ height: 28, maxWidth: 120, objectFit: "contain" }} />
              ) : null}
              {form.name || portal.name}
            </span>
            <span className="preview-button">Send</span>
          </div>
          <p className="muted" style={{ margin: "0.3rem 0 0" }}>
            Preview. Button text turns black or white, whichever reads better on the colour.
          </p>
        </fieldset>
        <fieldset style={{ border: 0, padding: 0, margin: 0 }}>
          <legend style={{ fontSize: "0.9rem", marginBottom: "0.3rem" }}>Apps listed first</legend>
          <p className="muted" style={{ margin: "0 0 0.5rem" }}>
            End users see these first, in this order, when their access allows them; their other apps follow by name.
          </p>
          {form.featuredAppIds.length === 0 && <p className="muted">None.</p>}
          <ol style={{ paddingLeft: "1.2rem", display: "grid", gap: "0.35rem" }}>
            {form.featuredAppIds.map((id, index) => (
              <FeaturedApp
                key={id}
                id={id}
                first={index === 0}
                last={index === form.featuredAppIds.length - 1}
                onMove={(by) => move(index, by)}
                onRemove={() => set({ featuredAppIds: form.featuredAppIds.filter((other) => other !== id) })}
              />
            ))}
          </ol>
          <EntityPicker
            kinds={["app"]}
            label="Add an app"
            emptyText="No apps yet: create one under Apps."
            exclude={form.featuredAppIds}
            onPick={(app) => set({ featuredAppIds: [...form.featuredAppIds, app.id] })}
          />
          <FieldError field="featuredAppIds" error={update.error} />
        </fieldset>
        {unplaced && <ErrorAlert error={update.error} />}
        {besideField && <ErrorAlert error={update.error} announceOnly />}
        <div className="row">
          <Button
            variant="primary"
            type="submit"
            disabled={update.isPending || !mayGrant}
            aria-describedby={mayGrant ? undefined : "portal-admins-only"}
          >
            {update.isPending ? "Saving…" : "Save"}
          </Button>
          {!mayGrant && (
            <span id="portal-admins-only" className="muted">
              Admins and above only
            </span>
          )}
          {saved && (
            <span role="status" className="muted">
              Saved.
            </span>
          )}
        </div>
      </Panel>
      <Panel title="Embed" headingId="portal-embed">
        <PortalEmbed key={JSON.stringify([portal.embed, portal.provisionPlanId])} portal={portal} />
      </Panel>
      <Panel title="User groups admitted" headingId="portal-groups">
        <PortalGroups portalId={portalId} portalName={portal.name} />
      </Panel>
      <ScopedUsage
        scope={{ portalId }}
        whose="This portal's"
        empty={
          <>
            Nothing ran in this portal in this range. Its end users&apos; turns show here as they finish: give end users
            a plan and access to an app with this portal on the <Link href="/end-users">End users</Link> page, then
            share the portal&apos;s link.
          </>
        }
      />
      <RecentActivity targetId={portalId} />
    </>
  );
}

/** One of the apps a portal lists first: its name, and buttons to move it or take it off the list. */
function FeaturedApp({
  id,
  first,
  last,
  onMove,
  onRemove,
}: {
  id: string;
  first: boolean;
  last: boolean;
  onMove: (by: number) => void;
  onRemove: () => void;
}) {
  const name = useEntityName("app", id).name ?? "app";
  return (
    <li data-testid="featured-app">
      <span className="row tight">
        <EntityName kind="app" id={id} />
        <button type="button" aria-label={`Move ${name} up`} disabled={first} onClick={() => onMove(-1)}>
          ↑
        </button>
        <button type="button" aria-label={`Move ${name} down`} disabled={last} onClick={() => onMove(1)}>
          ↓
        </button>
        <button type="button" onClick={onRemove}>
          Remove
        </button>
      </span>
    </li>
  );
}
