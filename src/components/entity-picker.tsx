"use client";
// What people choose by name in the console (knowledgebases, apps, agents, flows, portals, user groups): a
// search by name on the server (the lists' `q`), and a chosen one shown as its name linked to its
// page with the id to copy. Nobody types or reads an id.
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useDeferredValue, useState } from "react";
import { CopyButton, SearchPicker } from "@/components/console";
import { useTRPC } from "@/lib/trpc";
import { itemStateWords } from "@/lib/item-state";
import { MAX_PAGE_SIZE } from "@/schemas/limits";

/** "1 page", "3 pages". */
function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

export type EntityKind = "knowledgebase" | "app" | "agent" | "flow" | "portal" | "group";

export interface Entity {
  id: string;
  kind: EntityKind;
  name: string;
  /** Agents, flows and apps: whether a version is live. */
  published?: boolean;
  hint?: string;
}

const PAGES: Record<EntityKind, string> = {
  knowledgebase: "/knowledge",
  app: "/apps",
  agent: "/agents",
  flow: "/flows",
  portal: "/portals",
  group: "/groups",
};

export function entityHref(kind: EntityKind, id: string): string {
  return `${PAGES[kind]}/${id}`;
}

// Without a search a list is read at its maximum page size, shared by the page's names; a search
// asks the server for its first matches, so an organization with thousands still finds one, and
// a name beyond that first page is read on its own (useEntityName): nothing stops at one page.
const ALL = { limit: MAX_PAGE_SIZE } as const;
const MATCHES = 20;

/** The organization's entities of these kinds whose name contains `search` (all of them, up to a page, when blank). */
export function useEntities(
  kinds: readonly EntityKind[],
  search = "",
): { entities: Entity[]; loading: boolean; searching: boolean; unavailable: boolean } {
  const trpc = useTRPC();
  const q = search.trim();
  const page = q ? { limit: MATCHES, q } : ALL;
  const wants = (kind: EntityKind) => kinds.includes(kind);
  // While the next matches load, the last ones stay (no flicker at every key).
  const keep = { placeholderData: keepPreviousData };
  const knowledgebases = useQuery({
    ...trpc.knowledge.list.queryOptions(page),
    enabled: wants("knowledgebase"),
    ...keep,
  });
  const apps = useQuery({
    ...trpc.apps.list.queryOptions({ ...page, include: "drafts" }),
    enabled: wants("app"),
    ...keep,
  });
  const agents = useQuery({
    ...trpc.agents.list.queryOptions({ ...page, include: "drafts" }),
    enabled: wants("agent"),
    ...keep,
  });
  const flows = useQuery({
    ...trpc.flows.list.queryOptions({ ...page, include: "drafts" }),
    enabled: wants("flow"),
    ...keep,
  });
  const portals = useQuery({ ...trpc.portals.list.queryOptions(page), enabled: wants("portal"), ...keep });
  // Refused (groups_disabled) where the organization has groups switched off: not retried.
  const groups = useQuery({
    ...trpc.userGroups.list.queryOptions(page),
    enabled: wants("group"),
    retry: false,
    ...keep,
  });
  const built = (
    kind: "app" | "agent" | "flow",
    rows: { id: string; name?: string; published?: boolean; updatedAt?: string }[] = [],
  ): Entity[] =>
    rows.map((row) => ({
      id: row.id,
      kind,
      name: row.name ?? "",
      published: row.published,
      // Draft or published and the last edit, so two items of one name can be told apart.
      hint: [kinds.length > 1 ? kind : "", itemStateWords(row)].filter(Boolean).join(" · "),
    }));
  const entities: Entity[] = [
    ...(knowledgebases.data?.knowledgebases ?? []).map((kb) => ({
      id: kb.id,
      kind: "knowledgebase" as const,
      name: kb.name,
      hint: `${count(kb.counts.pages, "page")} · ${count(kb.counts.sources, "source")}`,
    })),
    ...built("app", apps.data?.apps),
    ...built("agent", agents.data?.agents),
    ...built("flow", flows.data?.flows),
    ...(portals.data?.portals ?? []).map((portal) => ({ id: portal.id, kind: "portal" as const, name: portal.name })),
    // A plan's group follows its plan (people join it by subscribing), so it is never picked by itself.
    ...(groups.data?.userGroups ?? [])
      .filter((group) => group.planId === null)
      .map((group) => ({
        id: group.id,
        kind: "group" as const,
        name: group.name,
        hint: `${group.memberCount} member${group.memberCount === 1 ? "" : "s"}`,
      })),
  ].filter((entity) => wants(entity.kind));
  // Names that start with the search come first.
  const needle = q.toLowerCase();
  if (needle)
    entities.sort(
      (a, b) => Number(!a.name.toLowerCase().startsWith(needle)) - Number(!b.name.toLowerCase().startsWith(needle)),
    );
  const all = [knowledgebases, apps, agents, flows, portals, groups];
  const loading = all.some((query) => query.isLoading);
  // An earlier search's matches stand in while this one is asked: not yet its answer.
  const searching = loading || all.some((query) => query.isPlaceholderData);
  const unavailable = all.some((query) => query.isError);
  return { entities, loading, searching, unavailable };
}

/**
 * An entity's name by its id: from the list the page already read, else asked for on its own (one
 * beyond the list's first page, in a large organization); no name once loaded when it is none of ours.
 */
export function useEntityName(kind: EntityKind, id: string): { name?: string; loading: boolean } {
  const trpc = useTRPC();
  const { entities, loading } = useEntities([kind]);
  const listed = entities.find((entity) => entity.id === id)?.name;
  const alone = (of: EntityKind) => ({
    enabled: !loading && listed === undefined && kind === of,
    retry: false,
    staleTime: 60_000,
  });
  const knowledgebase = useQuery({
    ...trpc.knowledge.get.queryOptions({ knowledgebaseId: id }),
    ...alone("knowledgebase"),
  });
  const app = useQuery({ ...trpc.apps.getDraft.queryOptions({ appId: id }), ...alone("app") });
  const agent = useQuery({ ...trpc.agents.getDraft.queryOptions({ agentId: id }), ...alone("agent") });
  const flow = useQuery({ ...trpc.flows.getDraft.queryOptions({ flowId: id }), ...alone("flow") });
  const portal = useQuery({ ...trpc.portals.get.queryOptions({ id }), ...alone("portal") });
  const group = useQuery({ ...trpc.userGroups.get.queryOptions({ groupId: id }), ...alone("group") });
  const name =
    listed ??
    knowledgebase.data?.name ??
    app.data?.app.name ??
    agent.data?.agent.name ??
    flow.data?.flow.name ??
    portal.data?.portal.name ??
    group.data?.userGroup.name;
  return {
    name,
    loading: loading || [knowledgebase, app, agent, flow, portal, group].some((query) => query.isLoading),
  };
}

const INLINE = { display: "inline-flex", flexWrap: "wrap", alignItems: "center", gap: "0.5rem" } as const;

/** A name linked to its page, with the id to copy. */
export function EntityLink({ kind, id, name }: { kind: EntityKind; id: string; name: string }) {
  return (
    <span className="entity-name" style={INLINE}>
      <Link href={entityHref(kind, id)}>{name || "Untitled"}</Link>
      <CopyButton text={id} label="Copy id" />
    </span>
  );
}

/** A chosen entity by id: its name (linked) and its id to copy; an id of none of ours says so. */
export function EntityName({ kind, id, fallback }: { kind: EntityKind; id: string; fallback?: string }) {
  const found = useEntityName(kind, id);
  const name = found.name ?? fallback;
  const { loading } = found;
  if (name !== undefined) return <EntityLink kind={kind} id={id} name={name} />;
  return (
    <span className="entity-name" style={INLINE}>
      {loading ? (
        <span className="muted">Loading…</span>
      ) : (
        <span className="error">No {kind} of this organization has this id</span>
      )}
      <CopyButton text={id} label="Copy id" />
    </span>
  );
}

/** Search entities of these kinds by name and pick one; those in `exclude` are not offered. */
export function EntityPicker({
  kinds,
  label,
  exclude = [],
  emptyText,
  onPick,
}: {
  kinds: readonly EntityKind[];
  label: string;
  exclude?: readonly string[];
  /** Said when the organization has none of these kinds at all. */
  emptyText: string;
  onPick: (entity: Entity) => void;
}) {
  const [search, setSearch] = useState("");
  const deferredSearch = useDeferredValue(search);
  const { entities, loading, searching } = useEntities(kinds, deferredSearch);
  // The matches of an earlier search stay shown while the server answers: only those that match what is typed now.
  const needle = search.trim().toLowerCase();
  const offered = entities.filter(
    (entity) => !exclude.includes(entity.id) && entity.name.toLowerCase().includes(needle),
  );
  return (
    <SearchPicker
      label={label}
      placeholder={`Type part of ${kinds.length === 1 ? `a${/^[aeiou]/.test(kinds[0]!) ? "n" : ""} ${kinds[0]}'s` : "a"} name…`}
      emptyText={loading ? "Searching…" : search.trim() ? "Nothing matches." : emptyText}
      options={offered.map((entity) => ({ id: entity.id, label: entity.name, hint: entity.hint }))}
      onQueryChange={setSearch}
      searching={searching || deferredSearch !== search}
      onPick={(option) => {
        const entity = offered.find((candidate) => candidate.id === option.id);
        if (entity) onPick(entity);
      }}
    />
  );
}
