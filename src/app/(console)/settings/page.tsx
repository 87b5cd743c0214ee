"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { useWatch } from "react-hook-form";
import { useTRPC } from "@/lib/trpc";
import { ConsoleSettingsUpdate, type Organization } from "@/schemas/org/organization";
import {
  Button,
  ErrorAlert,
  fieldProblem,
  FormField,
  PageFailed,
  PageHeader,
  PageLoading,
  Panel,
  Select,
  useMay,
  useZodForm,
} from "@/components/console";
import { pick } from "@/lib/pick";

type SwitchKey =
  "apiEnabled" | "appsApiEnabled" | "mcpEnabled" | "reviewAgentWrites" | "groupsEnabled" | "passwordSignIn";
/** A switch: its setting, its name, and what it means (said of the state the box shows, when it differs). */
type Switch = readonly [SwitchKey, string, string | { on: string; off: string }];

interface SwitchGroup {
  legend: string;
  switches: readonly Switch[];
}

/** The organization's switches by what they are about. */
const SWITCH_GROUPS = {
  waysIn: {
    legend: "Ways in",
    switches: [
      ["apiEnabled", "Developer API", "Every endpoint under /api/v1, for your own systems."],
      ["appsApiEnabled", "Apps endpoints", "Conversation and transaction calls to published apps."],
      ["mcpEnabled", "MCP server", "AI clients that connect with a member's personal key."],
    ],
  },
  knowledge: {
    legend: "Knowledge",
    switches: [
      ["reviewAgentWrites", "Review agent writes", "Knowledge writes made with API keys wait in the review queue."],
    ],
  },
  provisioning: {
    legend: "Provisioning",
    switches: [["groupsEnabled", "User groups", "Groups, group grants and portal admissions."]],
  },
  signIn: {
    legend: "Sign-in",
    switches: [
      [
        "passwordSignIn",
        "Password sign-in",
        {
          on: "On: members may sign in with their password. Turn it off to require single sign-on (owners, once it is set up on the Directory page).",
          off: "Off: members sign in with single sign-on only. Turn it on to let them use their password again.",
        },
      ],
    ],
  },
} satisfies Record<string, SwitchGroup>;

const SWITCH_KEYS = Object.values(SWITCH_GROUPS).flatMap((group) => group.switches.map(([key]) => key));

type Draft = Pick<Organization, SwitchKey | "name" | "accessMode" | "conversationRetentionDays">;

function toDraft(organization: Organization): Draft {
  return pick(organization, ["name", "accessMode", "conversationRetentionDays", ...SWITCH_KEYS]);
}

const cap = (value: number | null) => (value === null ? "No cap" : value.toLocaleString());

export default function SettingsPage() {
  const trpc = useTRPC();
  const organization = useQuery(trpc.organization.get.queryOptions());
  if (organization.error) return <PageFailed title="Organization settings" error={organization.error} />;
  if (!organization.data) return <PageLoading title="Organization settings" />;
  return (
    <>
      <PageHeader title="Organization settings" />
      <SettingsForm organization={organization.data} />
      <OperatorLimits organization={organization.data} />
    </>
  );
}

/** What the operator of the installation sets for the organization: read here, changed with the admin CLI. */
function OperatorLimits({ organization }: { organization: Organization }) {
  return (
    <Panel title="Plan and limits" className="form-width">
      <p className="muted">Set by whoever runs this installation, with the admin CLI.</p>
      <dl className="facts">
        <dt>Plan</dt>
        <dd>{organization.plan}</dd>
        <dt>Credits left</dt>
        <dd>{organization.credits.toLocaleString()}</dd>
        <dt>Quality checker</dt>
        <dd>{organization.qualityChecker ? "On" : "Off"}</dd>
        <dt>Knowledgebases</dt>
        <dd>{cap(organization.maxKnowledgebases)}</dd>
        <dt>Sources per knowledgebase</dt>
        <dd>{cap(organization.maxSourcesPerKnowledgebase)}</dd>
      </dl>
    </Panel>
  );
}

/** The settings an admin changes, starting from the organization as read. */
function SettingsForm({ organization }: { organization: Organization }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const canEdit = useMay("settings");
  const form = useZodForm(ConsoleSettingsUpdate, { defaultValues: toDraft(organization) });
  const passwordSignIn = useWatch({ control: form.control, name: "passwordSignIn" });
  const update = useMutation(
    trpc.organization.update.mutationOptions({
      onSuccess: (result) => {
        form.reset(toDraft(result));
        void queryClient.invalidateQueries({ queryKey: trpc.organization.get.queryKey() });
        void queryClient.invalidateQueries({ queryKey: trpc.auth.me.queryKey() });
      },
    }),
  );
  const submit = form.handleSubmit((input) => update.mutate(input));
  // Said until the next edit.
  const saved = update.isSuccess && !form.formState.isDirty;

  // A group of switches under its legend; `more`: the group's other fields, after its switches.
  const switchGroup = ({ legend, switches }: SwitchGroup, more?: ReactNode) => (
    <fieldset className="bare choices">
      <legend>{legend}</legend>
      {switches.map(([key, label, help]) => (
        <label key={key} className="inline choice">
          <input type="checkbox" {...form.register(key)} />
          <span>
            {label}
            <span className="muted">{typeof help === "string" ? help : passwordSignIn ? help.on : help.off}</span>
          </span>
        </label>
      ))}
      {more}
    </fieldset>
  );

  return (
    <Panel label="Organization settings" onSubmit={(event) => void submit(event)}>
      {!canEdit && <p className="muted">Only owners and admins can change these settings.</p>}
      <fieldset disabled={!canEdit} className="form" style={{ border: 0, padding: 0 }}>
        <FormField label="Name" error={fieldProblem(form, "name")}>
          <input required {...form.register("name")} />
        </FormField>
        {switchGroup(SWITCH_GROUPS.waysIn)}
        {switchGroup(
          SWITCH_GROUPS.provisioning,
          <FormField label="Access is managed with">
            <Select
              {...form.register("accessMode")}
              options={[
                { value: "grants", label: "per-user grants" },
                { value: "groups", label: "user groups" },
              ]}
            />
          </FormField>,
        )}
        {switchGroup(SWITCH_GROUPS.knowledge)}
        {switchGroup(SWITCH_GROUPS.signIn)}
        <FormField
          label="Delete conversations after (days)"
          hint="Empty keeps them. A daily sweep deletes conversations nobody added to for this long: their messages and the content of their runs. What the runs cost stays in usage and executions."
          error={fieldProblem(form, "conversationRetentionDays")}
        >
          <input
            type="number"
            min={1}
            max={3650}
            step={1}
            inputMode="numeric"
            placeholder="Keep"
            {...form.register("conversationRetentionDays", {
              setValueAs: (days: string | number | null) => (days === "" || days === null ? null : Number(days)),
            })}
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
  );
}
