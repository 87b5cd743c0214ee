"use client";
// A portal's settings: name, slug (its link), greeting, look and the apps listed first; its
// embedding in the organization's own pages.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useParams } from "next/navigation";
import type { CSSProperties, ReactNode } from "react";
import { useWatch, type UseFormReturn } from "react-hook-form";
import type { z } from "zod";
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
  fieldProblem,
  refusedField,
  Select,
  useFieldValue,
  useMay,
  useUnsavedChanges,
  useZodForm,
} from "@/components/console";
import { EntityName, EntityPicker, useEntityName } from "@/components/entity-picker";
import { PortalGroups } from "@/components/provisioning/group-portals";
import { PortalEmbed } from "@/components/provisioning/portal-embed";
import { useTRPC } from "@/lib/trpc";
import { PORTAL_LANGUAGES, UpdatePortalInput, type PortalDetail } from "@/schemas/portal/portal";
import { LANGUAGE_NAMES } from "@/components/portal/i18n/languages";
import { PageFailed, PageHeader, PageLoading } from "@/components/console";
import { ScopedUsage } from "@/components/usage/scoped-usage";
import Link from "next/link";
import { MAX_GREETING_CHARS, MAX_NAME_CHARS, MAX_PORTAL_SLUG_CHARS, MAX_URL_CHARS } from "@/schemas/limits";
import { pick } from "@/lib/pick";

/** The settings form's fields of the API's update input (embedding and sign-in have their own panels). */
const SettingsFields = UpdatePortalInput.pick({
  name: true,
  slug: true,
  greeting: true,
  logoUrl: true,
  accentColor: true,
  featuredAppIds: true,
  defaultLanguage: true,
});
type Settings = z.input<typeof SettingsFields>;
type Field = keyof Settings;
const FIELDS = Object.keys(SettingsFields.shape) as Field[];

/** Which field a refusal is about: a taken slug answers `conflict`; validation names its field. */
function fieldOf(error: unknown): Field | null {
  if (!error) return null;
  if (errorEnvelope(error).code === "conflict") return "slug";
  const field = refusedField(error);
  return field && FIELDS.includes(field as Field) ? (field as Field) : null;
}

function FieldError({ field, error }: { field: Field; error: unknown }) {
  if (!error || fieldOf(error) !== field) return null;
  return <ErrorAlert error={error} />;
}

function settingsOf(portal: PortalDetail): Settings {
  return pick(portal, FIELDS);
}

/** An empty text is no value (the default look, no logo). */
const textOrNull = (value: string | null) => value?.trim() || null;

const BACK = { href: "/portals", label: "Portals" };

export default function PortalSettingsPage() {
  const { portalId } = useParams<{ portalId: string }>();
  const trpc = useTRPC();
  const detail = useQuery(trpc.portals.get.queryOptions({ id: portalId }));
  const portal = detail.data?.portal;

  if (detail.error) return <PageFailed title="Portal" back={BACK} error={detail.error} />;
  if (!portal) return <PageLoading title="Portal" />;

  return (
    <>
      <PageHeader title={portal.name} back={BACK} />
      <Panel>
        <strong>Link</strong> <PortalLink slug={portal.slug} />
      </Panel>
      <PortalSettingsForm portal={portal} />
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

/** Name, slug, greeting, look, language and the apps listed first, checked with the API's schema. */
function PortalSettingsForm({ portal }: { portal: PortalDetail }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  // The form follows the saved portal each time it is read again (after a save, too).
  const form = useZodForm(SettingsFields, { values: settingsOf(portal) });
  const watched = useWatch({ control: form.control });
  // Typed in lowercase as it is stored.
  const [slug = "", setSlug] = useFieldValue(form, "slug");
  useUnsavedChanges(form.formState.isDirty);
  // Changing a portal is for admins: others read its settings.
  const mayGrant = useMay("grant");
  const update = useMutation(
    trpc.portals.update.mutationOptions({
      onSuccess: () => void queryClient.invalidateQueries({ queryKey: trpc.portals.pathKey() }),
    }),
  );
  const submit = form.handleSubmit((input) => update.mutate({ id: portal.id, ...input }));
  // Said until the next edit.
  const saved = update.isSuccess && !form.formState.isDirty;

  /** A field's problem: the schema's before sending, else the server's refusal when it names the field. */
  const problem = (field: Field) =>
    fieldProblem(form, field) ??
    (update.error && fieldOf(update.error) === field ? errorEnvelope(update.error).message : null);
  const unplaced = update.error && !fieldOf(update.error);
  // A field shows only the message; screen readers still hear the refusal when it happens.
  const besideField = ["name", "slug", "greeting", "logoUrl", "defaultLanguage"].includes(fieldOf(update.error) ?? "");

  return (
    <Panel label="Portal settings" onSubmit={(event) => void submit(event)}>
      <FormField label="Name" error={problem("name")}>
        <input required maxLength={MAX_NAME_CHARS} {...form.register("name")} />
      </FormField>
      <FormField
        label="Slug"
        hint={`The portal's address: /p/${slug || "…"}. Changing it breaks links already sent.`}
        error={problem("slug")}
      >
        <input
          required
          minLength={2}
          maxLength={MAX_PORTAL_SLUG_CHARS}
          pattern="[a-z0-9](?:[a-z0-9\-]*[a-z0-9])?"
          title="2 to 48 lowercase letters, digits and dashes"
          value={slug}
          onChange={(e) => setSlug(e.target.value.toLowerCase())}
        />
      </FormField>
      <FormField label="Greeting" error={problem("greeting")}>
        <textarea
          rows={3}
          maxLength={MAX_GREETING_CHARS}
          placeholder="Welcome! Ask our assistants anything."
          {...form.register("greeting")}
        />
      </FormField>
      <FormField label="Logo URL" error={problem("logoUrl")}>
        <input
          type="url"
          maxLength={MAX_URL_CHARS}
          placeholder="https://example.com/logo.svg"
          {...form.register("logoUrl", { setValueAs: textOrNull })}
        />
      </FormField>
      <FormField
        label="Default language"
        hint="The portal's own text is in each visitor's browser language when the portal speaks it (English, French, German), otherwise in this one. What you wrote is shown as written."
        error={problem("defaultLanguage")}
      >
        <Select
          {...form.register("defaultLanguage")}
          options={PORTAL_LANGUAGES.map((language) => ({ value: language, label: LANGUAGE_NAMES[language] }))}
        />
      </FormField>
      <AccentColourField form={form} name={watched.name || portal.name} logoUrl={watched.logoUrl ?? ""}>
        <FieldError field="accentColor" error={update.error} />
      </AccentColourField>
      <FeaturedAppsField form={form}>
        <FieldError field="featuredAppIds" error={update.error} />
      </FeaturedAppsField>
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
  );
}

type SettingsForm = UseFormReturn<Settings, unknown, z.output<typeof SettingsFields>>;

/** The accent colour, picked or typed, with a preview of the portal's header in it. */
function AccentColourField({
  form,
  name,
  logoUrl,
  children,
}: {
  form: SettingsForm;
  /** The portal's name and logo as typed, for the preview. */
  name: string;
  logoUrl: string;
  /** The refusal about the colour, if any. */
  children: ReactNode;
}) {
  const [accentColor, setAccentColor] = useFieldValue(form, "accentColor");
  const typed = accentColor ?? "";
  const theme = portalTheme(typed);
  return (
    <fieldset style={{ border: 0, padding: 0, margin: 0 }}>
      <legend style={{ fontSize: "0.9rem", marginBottom: "0.3rem" }}>Accent colour</legend>
      <div className="row" style={{ gap: "0.5rem" }}>
        <input
          type="color"
          aria-label="Pick the accent colour"
          value={/^#[0-9a-f]{6}$/i.test(typed) ? typed : theme.accent}
          onChange={(e) => setAccentColor(e.target.value)}
          style={{ width: "3rem", height: "2.4rem", padding: "0.15rem" }}
        />
        <input
          aria-label="Accent colour as #rrggbb"
          value={typed}
          placeholder={`${theme.accent} (default)`}
          pattern="#[0-9a-fA-F]{6}"
          title="A colour as #rrggbb"
          size={18}
          onChange={(e) => setAccentColor(textOrNull(e.target.value))}
        />
        {typed && (
          <button type="button" onClick={() => setAccentColor(null)}>
            Use the default
          </button>
        )}
      </div>
      {children}
      <div
        className="portal-preview"
        style={{ "--accent": theme.accent, "--accent-text": theme.accentText } as CSSProperties}
        aria-hidden="true"
      >
        <span className="row" style={{ gap: "0.5rem", fontWeight: 700 }}>
          {/^https?:\/\//.test(logoUrl) ? (
            <img src={logoUrl} alt="" style={{ height: 28, maxWidth: 120, objectFit: "contain" }} />
          ) : null}
          {name}
        </span>
        <span className="preview-button">Send</span>
      </div>
      <p className="muted" style={{ margin: "0.3rem 0 0" }}>
        Preview. Button text turns black or white, whichever reads better on the colour.
      </p>
    </fieldset>
  );
}

/** The apps end users see first, in order: add by name, move up and down, remove. */
function FeaturedAppsField({ form, children }: { form: SettingsForm; children: ReactNode }) {
  const [featured = [], setFeatured] = useFieldValue(form, "featuredAppIds");
  const move = (index: number, by: number) => {
    const ids = [...featured];
    const [id] = ids.splice(index, 1);
    ids.splice(index + by, 0, id!);
    setFeatured(ids);
  };
  return (
    <fieldset style={{ border: 0, padding: 0, margin: 0 }}>
      <legend style={{ fontSize: "0.9rem", marginBottom: "0.3rem" }}>Apps listed first</legend>
      <p className="muted" style={{ margin: "0 0 0.5rem" }}>
        End users see these first, in this order, when their access allows them; their other apps follow by name.
      </p>
      {featured.length === 0 && <p className="muted">None.</p>}
      <ol style={{ paddingLeft: "1.2rem", display: "grid", gap: "0.35rem" }}>
        {featured.map((id, index) => (
          <FeaturedApp
            key={id}
            id={id}
            first={index === 0}
            last={index === featured.length - 1}
            onMove={(by) => move(index, by)}
            onRemove={() => setFeatured(featured.filter((other) => other !== id))}
          />
        ))}
      </ol>
      <EntityPicker
        kinds={["app"]}
        label="Add an app"
        emptyText="No apps yet: create one under Apps."
        exclude={featured}
        onPick={(app) => setFeatured([...featured, app.id])}
      />
      {children}
    </fieldset>
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
