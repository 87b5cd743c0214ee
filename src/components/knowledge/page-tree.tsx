"use client";
import { useMutation } from "@tanstack/react-query";
import { FileText, Folder } from "lucide-react";
import { useState, type DragEvent } from "react";
import {
  Button,
  ErrorAlert,
  fieldProblem,
  FormActions,
  FormField,
  Panel,
  Select,
  useZodForm,
} from "@/components/console";
import { useTRPC } from "@/lib/trpc";
import type { PageIndexEntry } from "@/schemas/knowledge/knowledgebase";
import { CreatePageInput } from "@/schemas/knowledge/page";
import { MAX_TITLE_CHARS } from "@/schemas/limits";
import { useRefreshKnowledgebase } from "./use-refresh-knowledgebase";

/** The new page form's fields of the API's create input (the knowledgebase is the page's). */
const NewPageFields = CreatePageInput.pick({ title: true, parentPageId: true, isFolder: true });

/** The knowledgebase's pages as a tree (drag a page onto another to move it) and the form for a new one. */
export function PageTree({
  knowledgebaseId,
  pages,
  selected,
  onSelect,
}: {
  knowledgebaseId: string;
  pages: PageIndexEntry[];
  selected: string | null;
  onSelect: (id: string) => void;
}) {
  const trpc = useTRPC();
  const refresh = useRefreshKnowledgebase();
  const form = useZodForm(NewPageFields, { defaultValues: { title: "", isFolder: false, parentPageId: null } });
  const create = useMutation(
    trpc.knowledge.createPage.mutationOptions({
      onSuccess: (result) => {
        form.resetField("title");
        void refresh();
        onSelect(result.page.id);
      },
    }),
  );
  // Drag a page onto another page (or the top-level zone) to move it there; the server refuses cycles.
  const move = useMutation(trpc.knowledge.movePage.mutationOptions({ onSuccess: () => void refresh() }));
  const [dragging, setDragging] = useState<string | null>(null);
  const dropOn = (parentPageId: string | null) => ({
    onDragOver: (event: DragEvent) => {
      if (dragging && dragging !== parentPageId) event.preventDefault();
    },
    onDrop: (event: DragEvent) => {
      event.preventDefault();
      event.stopPropagation();
      if (dragging && dragging !== parentPageId) move.mutate({ knowledgebaseId, pageId: dragging, parentPageId });
      setDragging(null);
    },
  });
  const children = (parent: string | null) =>
    pages
      .filter((p) => p.parentPageId === parent)
      .sort((a, b) => Number(b.isFolder) - Number(a.isFolder) || a.title.localeCompare(b.title));
  const renderLevel = (parent: string | null) => (
    <ul className={parent ? "page-tree nested" : "page-tree"}>
      {children(parent).map((page) => (
        <li
          key={page.id}
          draggable
          onDragStart={(event) => (event.stopPropagation(), setDragging(page.id))}
          onDragEnd={() => setDragging(null)}
          {...dropOn(page.id)}
        >
          <Button
            variant={selected === page.id ? "primary" : "secondary"}
            className="page-tree-link"
            onClick={() => onSelect(page.id)}
            data-testid="page-link"
          >
            {page.isFolder ? (
              <Folder size={16} aria-hidden className="icon" />
            ) : (
              <FileText size={16} aria-hidden className="icon" />
            )}
            {page.title}
          </Button>
          {renderLevel(page.id)}
        </li>
      ))}
    </ul>
  );
  const submit = form.handleSubmit((fields) => create.mutate({ knowledgebaseId, ...fields }));
  return (
    <Panel title="Pages" label="Pages">
      {pages.length === 0 && <p className="muted">No pages yet: name the first one below.</p>}
      <nav aria-label="Page tree">{renderLevel(null)}</nav>
      {dragging && (
        <div className="muted page-tree-drop" {...dropOn(null)}>
          Drop here to move to the top level
        </div>
      )}
      <ErrorAlert error={move.error} />
      <form className="form page-tree-new" onSubmit={(event) => void submit(event)} aria-label="New page">
        <FormField label="New page title" error={fieldProblem(form, "title")}>
          <input required maxLength={MAX_TITLE_CHARS} {...form.register("title")} />
        </FormField>
        <FormField label="Inside">
          <Select
            {...form.register("parentPageId", { setValueAs: (id: string | null) => id || null })}
            options={pages.map((p) => ({ value: p.id, label: p.path.join(" / ") }))}
            placeholder="(top level)"
          />
        </FormField>
        <label className="inline">
          <input type="checkbox" {...form.register("isFolder")} /> Folder
        </label>
        <FormActions error={create.error} submitLabel="Create page" pending={create.isPending} />
      </form>
    </Panel>
  );
}
