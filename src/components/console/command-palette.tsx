"use client";
// The command palette (Ctrl+K or Cmd+K, or the shell's search button): go-to-page shortcuts and
// the organization's end users, apps, agents, flows, knowledgebases and pages found by name on the
// server (find.byName). A modal <dialog> holding the ARIA 1.2 combobox pattern: the input owns a
// listbox, the arrow keys move the active option (aria-activedescendant), Enter opens it, Escape
// closes. Written by hand: no palette library (such as cmdk) is installed.
import { useQuery } from "@tanstack/react-query";
import { Blocks, BookOpen, Bot, FileText, Search, UserCircle, Workflow, type LucideIcon } from "lucide-react";
import { useRouter } from "next/navigation";
import { useEffect, useId, useMemo, useRef, useState, type KeyboardEvent, type RefObject } from "react";
import type { FoundKind } from "@/schemas/find";
import { MAX_NAME_CHARS } from "@/schemas/limits";
import { useTRPC } from "@/lib/trpc";
import { announceNavigation } from "./navigation-progress";

export interface PaletteLink {
  href: string;
  label: string;
  icon: LucideIcon;
}

interface Option {
  key: string;
  href: string;
  label: string;
  detail: string;
  icon: LucideIcon;
  group: string;
}

const FOUND: Record<FoundKind, { group: string; icon: LucideIcon }> = {
  end_user: { group: "End users", icon: UserCircle },
  app: { group: "Apps", icon: Blocks },
  agent: { group: "Agents", icon: Bot },
  flow: { group: "Flows", icon: Workflow },
  knowledgebase: { group: "Knowledgebases", icon: BookOpen },
  page: { group: "Pages", icon: FileText },
};

/** Waits this long after the last keystroke before asking the server. */
const DEBOUNCE_MS = 150;

function useDebounced(value: string): string {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(value), DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [value]);
  return debounced;
}

export function CommandPalette({ links }: { links: PaletteLink[] }) {
  const trpc = useTRPC();
  const router = useRouter();
  const dialog = useRef<HTMLDialogElement>(null);
  const input = useRef<HTMLInputElement>(null);
  const opener = useRef<HTMLElement | null>(null);
  const [open, setOpen] = useState(false);
  const [text, setText] = useState("");
  // The active option, for the options it was chosen among: new options (typing) start at the first.
  const [chosen, setChosen] = useState({ among: "", index: 0 });
  const listboxId = useId();
  const titleId = useId();
  const q = useDebounced(text.trim());
  const found = useQuery({ ...trpc.find.byName.queryOptions({ q }), enabled: open && q.length > 0 });

  useOpenShortcuts(() => setOpen(true));
  useShownAsModal(dialog, open, (element) => {
    opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    element.showModal();
    input.current?.focus();
  });

  const options = useMemo<Option[]>(() => paletteOptions(links, text, q, found.data), [links, text, found.data, q]);

  const among = `${options.length}:${text}`;
  const active = chosen.among === among ? chosen.index : 0;
  const setActive = (next: number | ((index: number) => number)) =>
    setChosen({ among, index: typeof next === "function" ? next(active) : next });

  function go(option: Option | undefined) {
    if (!option) return;
    setOpen(false);
    if (new URL(option.href, window.location.href).pathname !== window.location.pathname) announceNavigation();
    router.push(option.href);
  }

  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key === "Enter") {
      event.preventDefault();
      go(options[active]);
      return;
    }
    const next = movedActive(event.key, active, options.length);
    if (next === null) return;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") event.preventDefault();
    setActive(next);
  }

  useEffect(() => {
    document.getElementById(`${listboxId}-${active}`)?.scrollIntoView({ block: "nearest" });
  }, [active, listboxId]);

  const searching = open && text.trim().length > 0 && (found.isFetching || q !== text.trim());
  return (
    <dialog
      ref={dialog}
      className="palette"
      aria-labelledby={titleId}
      onClose={() => {
        setOpen(false);
        setText("");
        opener.current?.focus();
      }}
      onClick={(event) => {
        // A click on the backdrop (the dialog element itself, outside its box) closes it.
        if (event.target === dialog.current) setOpen(false);
      }}
    >
      <h2 id={titleId} className="visually-hidden">
        Search and go to
      </h2>
      <div className="palette-input">
        <Search size={18} aria-hidden className="icon" />
        <input
          ref={input}
          role="combobox"
          aria-expanded={options.length > 0}
          aria-controls={listboxId}
          aria-autocomplete="list"
          aria-activedescendant={options.length ? `${listboxId}-${active}` : undefined}
          aria-label="Search end users, apps, agents, flows, knowledge and pages, or go to a page"
          placeholder="Search or go to…"
          maxLength={MAX_NAME_CHARS}
          value={text}
          onChange={(event) => setText(event.target.value)}
          onKeyDown={onKeyDown}
        />
        <kbd>Esc</kbd>
      </div>
      <PaletteOptions id={listboxId} options={options} active={active} onHover={setActive} onPick={go} />
      <p className="palette-status muted" role="status">
        {found.error
          ? "The search failed; try again."
          : searching
            ? "Searching…"
            : options.length === 0
              ? "Nothing matches."
              : ""}
      </p>
    </dialog>
  );
}

/** The listbox of options; each option's id is the list's id and its index (the input's aria-activedescendant). */
function PaletteOptions({
  id,
  options,
  active,
  onHover,
  onPick,
}: {
  id: string;
  options: Option[];
  active: number;
  onHover: (index: number) => void;
  onPick: (option: Option) => void;
}) {
  return (
    <ul id={id} role="listbox" aria-label="Results" className="palette-options">
      {options.map((option, index) => {
        const Icon = option.icon;
        return (
          <li
            key={option.key}
            id={`${id}-${index}`}
            role="option"
            aria-selected={index === active}
            className={index === active ? "active" : undefined}
            onMouseMove={() => onHover(index)}
            onClick={() => onPick(option)}
          >
            <Icon size={16} aria-hidden className="icon" />
            <span className="palette-label">{option.label}</span>
            {option.detail && <span className="palette-detail">{option.detail}</span>}
            <span className="palette-group">{option.group}</span>
          </li>
        );
      })}
    </ul>
  );
}

/** Ctrl+K (Cmd+K) anywhere, and the shell's search button (openCommandPalette), call `open`. */
function useOpenShortcuts(open: () => void) {
  const latest = useRef(open);
  useEffect(() => {
    latest.current = open;
  });
  useEffect(() => {
    const shortcut = (event: globalThis.KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "k") {
        event.preventDefault();
        latest.current();
      }
    };
    const fromButton = () => latest.current();
    window.addEventListener("keydown", shortcut);
    window.addEventListener("atrium:open-palette", fromButton);
    return () => {
      window.removeEventListener("keydown", shortcut);
      window.removeEventListener("atrium:open-palette", fromButton);
    };
  }, []);
}

/** Shows the dialog as a modal (through `show`) when `open` turns true, and closes it when it turns false. */
function useShownAsModal(
  dialog: RefObject<HTMLDialogElement | null>,
  open: boolean,
  show: (element: HTMLDialogElement) => void,
) {
  const latestShow = useRef(show);
  useEffect(() => {
    latestShow.current = show;
  });
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (open && !element.open) latestShow.current(element);
    else if (!open && element.open) element.close();
  }, [dialog, open]);
}

/** The options for what is typed: the items found by name (when the search answered for this text), then the pages. */
function paletteOptions(
  links: PaletteLink[],
  text: string,
  searched: string,
  found: { items: { kind: FoundKind; id: string; href: string; name: string; detail: string }[] } | undefined,
): Option[] {
  const needle = text.trim().toLowerCase();
  const pages = links
    .filter((link) => !needle || link.label.toLowerCase().includes(needle))
    .map((link) => ({
      key: `go:${link.href}`,
      href: link.href,
      label: link.label,
      detail: "",
      icon: link.icon,
      group: "Go to",
    }));
  const items =
    needle && found && searched.toLowerCase() === needle
      ? found.items.map((item) => ({
          key: `${item.kind}:${item.id}`,
          href: item.href,
          label: item.name,
          detail: item.detail,
          icon: FOUND[item.kind].icon,
          group: FOUND[item.kind].group,
        }))
      : [];
  // Found items first once there are some: "ali" is more likely alice than a page named so.
  return [...items, ...pages];
}

/** The active option after a key of the listbox pattern, or null for a key that does not move it. */
function movedActive(key: string, active: number, count: number): number | null {
  if (key === "ArrowDown") return count ? (active + 1) % count : 0;
  if (key === "ArrowUp") return count ? (active - 1 + count) % count : 0;
  if (key === "Home" && count) return 0;
  if (key === "End" && count) return count - 1;
  return null;
}

/** Opens the palette from a button (touch screens have no Ctrl+K). */
export function openCommandPalette(): void {
  window.dispatchEvent(new Event("atrium:open-palette"));
}
