// The console kit: every console page is a PageHeader, a data hook and a few of these.
//
//   <PageHeader title="End users" description="…" actions={<button>…</button>} back={{ href, label }} />
//     sets the tab's title ("End users · Atrium"); one per page.
//   <Panel title="Keys" actions={…}>…</Panel>  a bordered block with its heading; with onSubmit, a form.
//   <FormActions error={create.error} submitLabel="Create" pending={create.isPending} />  a form's end.
//   <ErrorAlert error={query.error ?? mutation.error} />  the error envelope: message, code, request id
//     (or a message the page wrote itself); never a hand-written role="alert".
//     refusedField(mutation.error) names the input field a refusal is about, for its FormField.
//   <FormField label="Name" hint="…" error={fieldError}><input … /></FormField>  label, hint and
//     error tied to the control by id and aria-describedby.
//   <DataTable label="End users" columns={[{ key, header, cell, sortValue? }]} rows={…}
//     empty="No end users yet." />  sorts, says when empty, scrolls inside its own box on a phone;
//     rowKey={(row) => …} where rows have no `id`.
//   <ConfirmButton label="Delete" title="Delete this plan?" description="…" onConfirm={…} needs="delete" /> or a
//     controlled <ConfirmDialog open …/>: the one confirmation for delete, revoke, make live,
//     approve or reject, role change (destructive={false} for a non-destructive change).
//   <RefusedButton label="Settings" needs="write" />  a page's own action the role does not allow:
//     disabled, with who may ("Members and above only").
//   notifyDone("Plan saved.", undo?)  a toast; pass `undo` where the data allows putting it back.
//   const list = useCursorList((cursor) => trpc.x.list.queryOptions({ limit, cursor }), (page) => page.items);
//     then list.items, list.error, <LoadMore list={list} />; or <ListTable list={list} …DataTable props />
//     for "Loading…", the error, the table and "Load more" at once.
//   <Tabs label="…" tabs={[{ id, label, panel }]} selected={id} onSelect={…} />  the ARIA tabs pattern.
//   useMay("delete")  whether the signed-in member may (src/schemas/permissions.ts); ConfirmButton's `needs` says who may.
//   <When at={row.createdAt} />  a moment: "Today, 12:25 AM", the whole of it on hover; never a raw toLocaleString().
//   <RecentActivity targetId={id} />  the item's last audit events, last on its page (admins).
//   export default urlStatePage(AuditLog)  a page reading useSearchParams, inside Suspense ("Loading…").
//   const [open, setOpen] = usePageState(false)  state that resets when the page changes (no effect).
//   useUnsavedChanges(dirty)  a form with unsaved edits: reloads and link clicks ask before leaving.
//   <Button variant="primary" busy={save.isPending}>Save</Button>  type "button" unless "submit";
//     variants primary, secondary (the default), danger, ghost, link; sizes small, medium, icon.
//   <Select aria-label="Plan" options={[{ value, label }]} placeholder="Any plan" value onValueChange />
//     (inside a FormField it takes the field's label).
//   <CheckboxGroup legend="Plans" choices={[{ value, label, hint? }]} value={ids} onChange={setIds} />,
//     <RadioGroup legend="Kind" choices={…} value={kind} onChange={setKind} />: a fieldset and its legend.
//   const form = useZodForm(CreatePlanInput, { defaultValues }); then form.register("name"),
//     fieldProblem(form, "name") for its FormField, form.handleSubmit((input) => create.mutate(input));
//     const [kind, setKind] = useFieldValue(form, "kind") for a RadioGroup, CheckboxGroup or picker.
//     Fields typed otherwise than the API takes them (a list as comma-separated text): add
//     `asInput: (fields) => apiInput` and `fieldOf: (path) => field` (a problem without one: "root").
//   <CopyButton text={id} />, <SearchPicker …/>; icons come from lucide-react with aria-hidden.
//   { ...NAME_COLUMN, cell: (row) => <NameWithCode name={row.name} code={row.slug} /> },
//     <EditButton editing={url.get("edit") === row.slug} onClick={…} />: a row's name and its Edit button.
// Styles live in console.css (plain CSS over the variables of src/app/globals.css).
import "./console.css";

export { ConsoleShell, useMay, useViewerEmail } from "./app-shell";
export { CreateNamedItemPanel } from "./create-named-item";
export { Button, buttonClass, EditButton, type ButtonSize, type ButtonVariant } from "./button";
export { CheckboxGroup, RadioGroup, type Choice } from "./choice-group";
export { ConfirmButton, ConfirmDialog, RefusedButton } from "./confirm-dialog";
export { CopyableValue, CopyButton, SecretShownOnce } from "./copy-button";
export { DataTable, ListTable, NAME_COLUMN, NameWithCode, type Column, type DataTableProps } from "./data-table";
export { ErrorAlert, errorEnvelope, refusedField } from "./error-alert";
export { FormField } from "./form-field";
export { LoadMore } from "./load-more";
export { useOpenPage } from "./navigation-progress";
export { PageFailed, PageHeader, PageLoading, pageTitle } from "./page-header";
export { FormActions, Panel } from "./panel";
export { RecentActivity } from "./recent-activity";
export { When } from "./when";
export { SearchPicker, type PickerOption } from "./search-picker";
export { Select, type SelectGroup, type SelectOption } from "./select";
export { Tabs, type Tab } from "./tabs";
export { notifyDone, notifyFailed } from "./toasts";
export { useCursorList, type CursorList } from "./use-cursor-list";
export { usePageState } from "./use-page-state";
export { urlStatePage, useUrlState } from "./url-state-page";
export { UnsavedChangesGuard, useUnsavedChanges } from "./unsaved-changes";
export { fieldProblem, useFieldValue, useZodForm } from "./use-zod-form";
