"use client";
// The list page of a kind: every item with its draft name and state, and a form to create one.
import {
  fieldProblem,
  FormActions,
  FormField,
  ListTable,
  PageHeader,
  Panel,
  useCursorList,
  useOpenPage,
  useZodForm,
  When,
} from "@/components/console";
import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { useWatch } from "react-hook-form";
import { ONE, useKindProcedures, type Doc, type KindPlural } from "./use-draft-editor";
import { CreateDraftInputs } from "@/schemas/builder/builder";
import { MAX_NAME_CHARS } from "@/schemas/limits";
import { DuplicateNameNote } from "./duplicate-name";
import { TemplatePicker } from "./template-picker";

const TITLES = { agents: "Agents", flows: "Flows", apps: "Apps" } as const;
const BLURB = {
  agents: "Agents answer end users with their instructions, model and knowledge.",
  flows: "Flows run a fixed graph of steps (model calls, knowledge searches, templates) over their inputs.",
  apps: "Apps put an adviser and member agents and flows together behind one conversation or transaction API.",
} as const;

export function BuilderList({ kind }: { kind: KindPlural }) {
  const procs = useKindProcedures(kind);
  const { opening, open } = useOpenPage();
  const list = useCursorList(
    (cursor) =>
      procs.list.queryOptions({ include: "drafts", limit: 100, ...(cursor ? { cursor } : {}) }) as {
        queryKey: readonly unknown[];
        queryFn?: () => Promise<Doc>;
      },
    (page) => (page[kind] ?? []) as Doc[],
  );
  const form = useZodForm(CreateDraftInputs[kind], { defaultValues: { name: "" } });
  const name = useWatch({ control: form.control, name: "name" });
  const create = useMutation(
    procs.create.mutationOptions({ onSuccess: (data: Doc) => open(editorHref(kind, data[ONE[kind]].id)) }),
  ) as {
    mutate: (input: Doc) => void;
    isPending: boolean;
    error: unknown;
  };

  const submit = form.handleSubmit(({ name }) => create.mutate({ name }));

  return (
    <>
      <PageHeader title={TITLES[kind]} />
      <p className="muted">{BLURB[kind]} Edits change the draft; nothing reaches end users until it is published.</p>
      <Panel label={`Create ${ONE[kind]}`} onSubmit={(event) => void submit(event)}>
        <FormField label="Name" error={fieldProblem(form, "name")}>
          <input required maxLength={MAX_NAME_CHARS} placeholder={`New ${ONE[kind]} name`} {...form.register("name")} />
        </FormField>
        <DuplicateNameNote kind={kind} name={name} />
        <FormActions error={create.error} submitLabel={`Create ${ONE[kind]}`} pending={create.isPending || opening} />
      </Panel>
      {kind !== "agents" && (
        <details className="templates">
          <summary>New from template</summary>
          <TemplatePicker open={kind} />
        </details>
      )}
      <Panel>
        {/* On a phone each item is a card of labelled cells, rather than columns squeezed letter by letter. */}
        <ListTable
          list={list}
          rowKey={(item) => item.id}
          label={TITLES[kind]}
          cards
          empty={`No ${kind} yet: name the first one above and create it.`}
          columns={[
            {
              key: "name",
              header: "Name",
              sortValue: (item) => item.name,
              cell: (item) => <Link href={editorHref(kind, item.id)}>{item.name}</Link>,
            },
            {
              key: "description",
              header: "Description",
              cell: (item) => <span className="muted">{item.description}</span>,
            },
            {
              key: "state",
              header: "State",
              nowrap: true,
              sortValue: (item) => (item.published ? 1 : 0),
              cell: (item) =>
                item.published ? (
                  <span className="badge">Published</span>
                ) : (
                  <span className="badge revoked">Draft</span>
                ),
            },
            {
              key: "updated",
              header: "Updated",
              sortValue: (item) => item.updatedAt,
              cell: (item) => (
                <span className="muted">
                  <When at={item.updatedAt} />
                </span>
              ),
            },
          ]}
        />
      </Panel>
    </>
  );
}

/** Where an item is edited: a flow opens in the full-screen canvas editor. */
const editorHref = (kind: KindPlural, id: string) => (kind === "flows" ? `/flows/${id}/studio` : `/${kind}/${id}`);
