"use client";
// The end user's own conversations, newest first: searchable by title and text, each renamed or
// deleted by its owner (deleting hides it from them; the organization's records stay). Used on
// the Conversations page and as the chat's history drawer.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { useCursorList } from "@/components/console/use-cursor-list";
import { dateLocale } from "./credits";
import { usePortalLanguage } from "./i18n/provider";
import { portalError } from "./portal-errors";
import { PortalErrorLine } from "./portal-error-line";
import { usePortalTRPC } from "./portal-trpc";
import { usePortalBase } from "./portal-place";

const PAGE = 20;

type Row = { id: string; appId: string; appName: string; title: string; updatedAt: string };

function HistoryRow({
  portal,
  row,
  current,
  onChanged,
}: {
  portal: string;
  row: Row;
  current: boolean;
  onChanged: (deleted: boolean) => void;
}) {
  const trpc = usePortalTRPC();
  const { t } = useTranslation();
  const language = usePortalLanguage();
  const base = usePortalBase(portal);
  const [mode, setMode] = useState<"view" | "rename" | "delete">("view");
  const [title, setTitle] = useState(row.title);
  const rename = useMutation(
    trpc.conversations.rename.mutationOptions({ onSuccess: () => (setMode("view"), onChanged(false)) }),
  );
  const remove = useMutation(trpc.conversations.delete.mutationOptions({ onSuccess: () => onChanged(true) }));
  const failure = rename.error ?? remove.error;
  const shownTitle = row.title || t("history.untitled");

  function saveTitle(event: FormEvent) {
    event.preventDefault();
    if (title.trim()) rename.mutate({ portal, conversationId: row.id, title: title.trim() });
  }

  return (
    <li data-testid="portal-conversation" aria-current={current ? "true" : undefined}>
      {mode === "rename" ? (
        <form onSubmit={saveTitle} className="portal-history-edit" aria-label={t("history.renameForm")}>
          <input
            value={title}
            onChange={(e) => setTitle(e.target.value)}
            maxLength={200}
            aria-label={t("history.titleLabel")}
            autoFocus
          />
          <button type="submit" className="primary" disabled={rename.isPending}>
            {t("history.save")}
          </button>
          <button type="button" onClick={() => (setMode("view"), setTitle(row.title))}>
            {t("history.cancel")}
          </button>
        </form>
      ) : (
        <Link href={`${base}/apps/${row.appId}?c=${row.id}`}>
          {shownTitle}
          <span className="muted">
            {row.appName} ·{" "}
            {new Intl.DateTimeFormat(dateLocale(language), { dateStyle: "medium", timeStyle: "short" }).format(
              new Date(row.updatedAt),
            )}
          </span>
        </Link>
      )}
      {mode === "view" && (
        <div className="portal-history-actions">
          <button
            type="button"
            className="link"
            onClick={() => setMode("rename")}
            aria-label={t("history.renameNamed", { title: shownTitle })}
          >
            {t("history.rename")}
          </button>
          <button
            type="button"
            className="link"
            onClick={() => setMode("delete")}
            aria-label={t("history.deleteNamed", { title: shownTitle })}
          >
            {t("history.delete")}
          </button>
        </div>
      )}
      {mode === "delete" && (
        <div className="portal-history-actions" role="group" aria-label={t("history.deleteConfirm")}>
          <span>{t("history.deleteConfirm")}</span>
          <button
            type="button"
            className="danger"
            onClick={() => remove.mutate({ portal, conversationId: row.id })}
            disabled={remove.isPending}
          >
            {t("history.delete")}
          </button>
          <button type="button" onClick={() => setMode("view")}>
            {t("history.keep")}
          </button>
        </div>
      )}
      {failure && <PortalErrorLine error={failure} />}
    </li>
  );
}

export function ConversationHistory({
  portal,
  currentId,
  onDeletedCurrent,
}: {
  portal: string;
  currentId?: string | null;
  onDeletedCurrent?: () => void;
}) {
  const trpc = usePortalTRPC();
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [query, setQuery] = useState("");
  const q = query.trim();
  const list = useCursorList(
    (cursor) =>
      trpc.conversations.list.queryOptions({ portal, limit: PAGE, ...(q ? { q } : {}), ...(cursor ? { cursor } : {}) }),
    (page) => page.conversations,
  );
  const changed = (id: string) => (deleted: boolean) => {
    void queryClient.invalidateQueries({ queryKey: trpc.conversations.list.pathKey() });
    if (deleted && id === currentId) onDeletedCurrent?.();
  };
  const error = list.error && portalError(list.error);

  return (
    <div className="portal-history">
      <input
        type="search"
        value={query}
        onChange={(e) => setQuery(e.target.value)}
        placeholder={t("history.search")}
        aria-label={t("history.search")}
        maxLength={200}
      />
      {list.isLoading && <p className="muted">{t("frame.loading")}</p>}
      {error && error.status !== 401 && <PortalErrorLine error={list.error} />}
      {list.isLoaded && list.items.length === 0 && (
        <p className="muted">{q ? t("history.noMatch") : t("history.none")}</p>
      )}
      {list.items.length > 0 && (
        <ul className="portal-conversations">
          {list.items.map((row) => (
            <HistoryRow
              key={row.id}
              portal={portal}
              row={row}
              current={row.id === currentId}
              onChanged={changed(row.id)}
            />
          ))}
        </ul>
      )}
      {list.hasMore && (
        <button type="button" className="load-more" onClick={list.loadMore} disabled={list.isLoadingMore}>
          {list.isLoadingMore ? t("history.loadingMore") : t("history.loadMore")}
        </button>
      )}
    </div>
  );
}
