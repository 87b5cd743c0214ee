"use client";
// "Insert link" in the page editor: search the knowledgebase's page titles and insert the markdown
// link the pages service reads (`[title](page:<id>)`) where the cursor is, or around the selection.
import { Link2 } from "lucide-react";
import { useState, type RefObject } from "react";
import { SearchPicker } from "@/components/console";
import { pageLinkMarkdown } from "@/schemas/knowledge/page";

export function PageLinkPicker({
  pages,
  textarea,
  onChange,
}: {
  /** The pages that can be linked to (the page being edited left out). */
  pages: { id: string; title: string }[];
  textarea: RefObject<HTMLTextAreaElement | null>;
  onChange: (markdown: string) => void;
}) {
  const [open, setOpen] = useState(false);

  function insert(page: { id: string; title: string }) {
    const box = textarea.current;
    setOpen(false);
    if (!box) return;
    const { selectionStart: start, selectionEnd: end, value } = box;
    const selected = value.slice(start, end);
    const link = pageLinkMarkdown({
      id: page.id,
      title: selected.includes("\n") || !selected.trim() ? page.title : selected,
    });
    onChange(value.slice(0, start) + link + value.slice(end));
    // Back to writing, just after the link.
    requestAnimationFrame(() => {
      box.focus();
      box.setSelectionRange(start + link.length, start + link.length);
    });
  }

  return (
    <div className="row" style={{ alignItems: "flex-end" }}>
      <button type="button" aria-expanded={open} onClick={() => setOpen(!open)}>
        <Link2 size={16} aria-hidden className="icon" /> Insert link
      </button>
      {open && (
        <SearchPicker
          label="Link to page"
          placeholder="Type part of a page title…"
          emptyText={pages.length === 0 ? "No other pages in this knowledgebase yet." : "No page title matches."}
          options={pages.map((page) => ({ id: page.id, label: page.title }))}
          onPick={(option) => insert({ id: option.id, title: option.label })}
          autoFocus
        />
      )}
    </div>
  );
}
