"use client";
// Choose something by its name: type to filter, pick from the matches. The id stays behind the
// name; people never type one.
import { useEffect, useId, useRef, useState, type KeyboardEvent } from "react";
import "./search-picker.css";

export interface PickerOption {
  id: string;
  label: string;
  hint?: string;
}

export function SearchPicker({
  label,
  options,
  onPick,
  onQueryChange,
  placeholder = "Type to search…",
  emptyText = "Nothing matches.",
  max = 8,
  autoFocus = false,
  searching = false,
}: {
  label: string;
  /** The candidates; filtered here by label unless `onQueryChange` searches elsewhere. */
  options: PickerOption[];
  onPick: (option: PickerOption) => void;
  /** For lists searched on the server: the query as typed, and `options` are already its matches. */
  onQueryChange?: (query: string) => void;
  placeholder?: string;
  emptyText?: string;
  max?: number;
  /** Focus the search box when shown (a picker opened by a button). */
  autoFocus?: boolean;
  /** The server has not yet answered the query as typed: Enter pressed meanwhile picks its first match when it does. */
  searching?: boolean;
}) {
  const [query, setQuery] = useState("");
  const [open, setOpen] = useState(false);
  const [enterPending, setEnterPending] = useState(false);
  const listId = useId();
  const needle = query.trim().toLowerCase();
  const matches = (
    onQueryChange || !needle ? options : options.filter((option) => option.label.toLowerCase().includes(needle))
  ).slice(0, max);

  function pick(option: PickerOption) {
    onPick(option);
    setQuery("");
    onQueryChange?.("");
    setOpen(false);
    setEnterPending(false);
  }

  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key === "Enter") {
      event.preventDefault();
      if (matches[0]) pick(matches[0]);
      else if (searching) setEnterPending(true);
    } else if (event.key === "Escape") {
      setOpen(false);
      setEnterPending(false);
    }
  }

  // Someone who types a name and presses Enter before the server answers gets what they typed. The
  // answer's first match is picked through the latest render's `pick` (its props).
  const latestPick = useRef(pick);
  useEffect(() => {
    latestPick.current = pick;
  });
  const firstMatch = matches[0];
  if (enterPending && !searching && !firstMatch) setEnterPending(false);
  useEffect(() => {
    if (enterPending && !searching && firstMatch) latestPick.current(firstMatch);
  }, [enterPending, searching, firstMatch]);

  return (
    <div
      className="picker"
      onBlur={(e) => {
        if (!e.currentTarget.contains(e.relatedTarget)) setOpen(false);
      }}
    >
      <label>
        {label}
        <input
          type="search"
          value={query}
          placeholder={placeholder}
          aria-controls={open ? listId : undefined}
          autoComplete="off"
          autoFocus={autoFocus}
          onFocus={() => setOpen(true)}
          onChange={(e) => {
            setQuery(e.target.value);
            setEnterPending(false);
            onQueryChange?.(e.target.value);
            setOpen(true);
          }}
          onKeyDown={onKeyDown}
        />
      </label>
      {open && (
        <ul id={listId} className="picker-results" aria-label={`${label}: matches`}>
          {matches.length === 0 && <li className="muted">{emptyText}</li>}
          {matches.map((option) => (
            <li key={option.id}>
              {/* Keeps focus in the picker while clicking, so the list does not close first. */}
              <button type="button" onMouseDown={(e) => e.preventDefault()} onClick={() => pick(option)}>
                {option.label}
                {option.hint && <span className="muted"> {option.hint}</span>}
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
