"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useTRPC } from "@/lib/trpc";
import type { Organization } from "@/schemas/org/organization";
import { Button, ErrorAlert, FormField, PageHeader, Panel, Select, useMay } from "@/components/console";

const SWITCHES = [
  ["apiEnabled", "Developer API", "All of /api/v1."],
  ["appsApiEnabled", "Apps endpoints", "App conversation and transaction calls."],
  ["mcpEnabled", "MCP server", "AI clients connecting with personal keys."],
  ["groupsEnabled", "User groups", "Groups, group grants and portal admissions."],
  ["reviewAgentWrites", "Review agent writes", "Writes made with API keys wait in the review queue."],
  [
    "passwordSignIn",
    "Password sign-in",
    // Said of the state the box shows, on or off.
    {
      on: "On: members may sign in with their password. Turn it off to require single sign-on (owners, once it is set up on the Directory page).",
      off: "Off: members sign in with single sign-on only. Turn it on to let them use their password again.",
    },
  ],
] as const;

type Draft = Pick<Organization, (typeof SWITCHES)[number][0] | "name" | "accessMode" | "conversationRetentionDays">;

function toDraft(organization: Organization): Draft {
  return {
    name: organization.name,
    accessMode: organization.accessMode,
    apiEnabled: organization.apiEnabled,
    appsApiEnabled: organization.appsApiEnabled,
    mcpEnabled: organization.mcpEnabled,
    groupsEnabled: organization.groupsEnabled,
    reviewAgentWrites: organization.reviewAgentWrites,
    passwordSignIn: organization.passwordSignIn,
    conversationRetentionDays: organization.conversationRetentionDays,
  };
}

const cap = (value: number | null) => (value === null ? "no cap" : value.toLocaleString());

export default function SettingsPage() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const organization = useQuery(trpc.organization.get.queryOptions());
  const canEdit = useMay("settings");
  const [draft, setDraft] = useState<Draft | null>(null);
  const [saved, setSaved] = useState(false);

  // The form starts from the organization once it is read.
  if (organization.data && !draft) setDraft(toDraft(organization.data));

  const update = useMutation(
    trpc.organization.update.mutationOptions({
      onSuccess: (result) => {
        setDraft(toDraft(result));
        setSaved(true);
        void queryClient.invalidateQueries({ queryKey: trpc.organization.get.queryKey() });
        void queryClient.invalidateQueries({ queryKey: trpc.auth.me.queryKey() });
      },
    }),
  );

  if (!draft || !organization.data) return <p className="muted">Loading…</p>;

  function submit(event: FormEvent) {
    event.preventDefault();
    if (!draft) return;
    setSaved(false);
    update.mutate(draft);
  }

  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => {
    setSaved(false);
    setDraft({ ...draft, [key]: value });
  };

  return (
    <>
      <PageHeader title="Organization settings" />
      <Panel label="Organization settings" onSubmit={submit}>
        <p className="muted">
          Plan <strong>{organization.data.plan}</strong> · <strong>{organization.data.credits}</strong> credits ·
          quality checker <strong>{organization.data.qualityChecker ? "on" : "off"}</strong> · knowledgebases{" "}
          <strong>{cap(organization.data.maxKnowledgebases)}</strong> · sources per knowledgebase{" "}
          <strong>{cap(organization.data.maxSourcesPerKnowledgebase)}</strong>. These are set by the operator of this
          installation (admin CLI).
          {!canEdit && " Only owners and admins can change the settings below."}
        </p>
        <fieldset disabled={!canEdit} className="form" style={{ border: 0, padding: 0 }}>
          <FormField label="Name">
            <input required value={draft.name} onChange={(e) => set("name", e.target.value)} />
          </FormField>
          {SWITCHES.map(([key, label, help]) => (
            <label key={key} className="inline">
              <input type="checkbox" checked={draft[key]} onChange={(e) => set(key, e.target.checked)} />
              <span>
                {label}{" "}
                <span className="muted">— {typeof help === "string" ? help : draft[key] ? help.on : help.off}</span>
              </span>
            </label>
          ))}
          <FormField label="Access is managed with">
            <Select
              value={draft.accessMode}
              onChange={(e) => set("accessMode", e.target.value as Draft["accessMode"])}
              options={[
                { value: "grants", label: "per-user grants" },
                { value: "groups", label: "user groups" },
              ]}
            />
          </FormField>
          <FormField
            label="Delete conversations after (days)"
            hint="Empty keeps them. A daily sweep deletes conversations nobody added to for this long: their messages and the content of their runs. What the runs cost stays in usage and executions."
          >
            <input
              type="number"
              min={1}
              max={3650}
              step={1}
              inputMode="numeric"
              placeholder="Keep"
              value={draft.conversationRetentionDays ?? ""}
              onChange={(e) => set("conversationRetentionDays", e.target.value === "" ? null : Number(e.target.value))}
            />
          </FormField>
          <ErrorAlert error={update.error} />
          {saved && <p role="status">Settings saved.</p>}
          <div>
            <Button variant="primary" type="submit" disabled={update.isPending}>
              Save settings
            </Button>
          </div>
        </fieldset>
      </Panel>
    </>
  );
}
