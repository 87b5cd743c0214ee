"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
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
  return pick(organization, ["name", "accessMode", "conversationRetentionDays", ...SWITCHES.map(([key]) => key)]);
}

const cap = (value: number | null) => (value === null ? "no cap" : value.toLocaleString());

export default function SettingsPage() {
  const trpc = useTRPC();
  const organization = useQuery(trpc.organization.get.queryOptions());
  if (organization.error) return <PageFailed title="Organization settings" error={organization.error} />;
  if (!organization.data) return <PageLoading title="Organization settings" />;
  return (
    <>
      <PageHeader title="Organization settings" />
      <SettingsForm organization={organization.data} />
    </>
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

  return (
    <Panel label="Organization settings" onSubmit={(event) => void submit(event)}>
      <p className="muted">
        Plan <strong>{organization.plan}</strong> · <strong>{organization.credits}</strong> credits · quality checker{" "}
        <strong>{organization.qualityChecker ? "on" : "off"}</strong> · knowledgebases{" "}
        <strong>{cap(organization.maxKnowledgebases)}</strong> · sources per knowledgebase{" "}
        <strong>{cap(organization.maxSourcesPerKnowledgebase)}</strong>. These are set by the operator of this
        installation (admin CLI).
        {!canEdit && " Only owners and admins can change the settings below."}
      </p>
      <fieldset disabled={!canEdit} className="form" style={{ border: 0, padding: 0 }}>
        <FormField label="Name" error={fieldProblem(form, "name")}>
          <input required {...form.register("name")} />
        </FormField>
        {SWITCHES.map(([key, label, help]) => (
          <label key={key} className="inline">
            <input type="checkbox" {...form.register(key)} />
            <span>
              {label}{" "}
              <span className="muted">— {typeof help === "string" ? help : passwordSignIn ? help.on : help.off}</span>
            </span>
          </label>
        ))}
        <FormField label="Access is managed with">
          <Select
            {...form.register("accessMode")}
            options={[
              { value: "grants", label: "per-user grants" },
              { value: "groups", label: "user groups" },
            ]}
          />
        </FormField>
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
