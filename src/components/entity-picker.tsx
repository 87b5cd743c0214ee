"use client";
// What people choose by name in the console (knowledgebases, apps, agents, flows, portals): a
// search over their list, and a chosen one shown as its name linked to its page with the id to
// copy. Nobody types or reads an id.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { CopyButton, SearchPicker } from "@/components/console";
import { useTRPC } from "@/lib/trpc";

export type EntityKind = "knowledgebase" | "app" | "agent" | "flow" | "portal";

export interface Entity {
  id: string;
  kind: EntityKind;
  name: string;
  /** Agents, flows and apps: whether a version is live. */
  published?: boolean;
  hint?: string;
}

const PAGES: Record<EntityKind, string> = { knowledgebase: "/knowledge", app: "/apps", agent: "/agents", flow: "/flows", portal: "/portals" };

export function entityHref(kind: EntityKind, id: string): string {
  return `${PAGES[kind]}/${id}`;
}

// Lists are read at their maximum page size: a picker filters what it holds.
const ALL = { limit: 200 } as const;

/** The organization's entities of these kinds (one list query per kind, shared across the page). */
export function useEntities(kinds: readonly EntityKind[]): { entities: Entity[]; loading: boolean } {
  const trpc = useTRPC();
  const wants = (kind: EntityKind) => kinds.includes(kind);
  const knowledgebases = useQuery({ ...trpc.knowledge.list.queryOptions(ALL), enabled: wants("knowledgebase") });
  const apps = useQuery({ ...trpc.apps.list.queryOptions({ ...ALL, include: "drafts" }), enabled: wants("app") });
  const agents = useQuery({ ...trpc.agents.list.queryOptions({ ...ALL, include: "drafts" }), enabled: wants("agent") });
  const flows = useQuery({ ...trpc.flows.list.queryOptions({ ...ALL, include: "drafts" }), enabled: wants("flow") });
  const portals = useQuery({ ...trpc.portals.list.queryOptions(ALL), enabled: wants("portal") });
  const built = (kind: "app" | "agent" | "flow", rows: { id: string; name?: string; published?: boolean }[] = []): Entity[] =>
    rows.map((row) => ({
      id: row.id,
      kind,
      name: row.name ?? "",
      published: row.published,
      hint: [kinds.length > 1 ? kind : "", row.published ? "" : "not published"].filter(Boolean).join(" · ") || undefined,
    }));
  const entities: Entity[] = [
    ...(knowledgebases.data?.knowledgebases ?? []).map((kb) => ({
      id: kb.id,
      kind: "knowledgebase" as const,
      name: kb.name,
      hint: `${kb.counts.pages} pages · ${kb.counts.sources} sources`,
    })),
    ...built("app", apps.data?.apps),
    ...built("agent", agents.data?.agents),
    ...built("flow", flows.data?.flows),
    ...(portals.data?.portals ?? []).map((portal) => ({ id: portal.id, kind: "portal" as const, name: portal.name })),
  ].filter((entity) => wants(entity.kind));
  const loading = [knowledgebases, apps, agents, flows, portals].some((query) => query.isLoading);
  return { entities, loading };
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
  const { entities, loading } = useEntities([kind]);
  const name = entities.find((entity) => entity.id === id)?.name ?? fallback;
  if (name !== undefined) return <EntityLink kind={kind} id={id} name={name} />;
  return (
    <span className="entity-name" style={INLINE}>
      {loading ? <span className="muted">Loading…</span> : <span className="error">No {kind} of this organization has this id</span>}
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
  const { entities } = useEntities(kinds);
  const offered = entities.filter((entity) => !exclude.includes(entity.id));
  return (
    <SearchPicker
      label={label}
      placeholder={`Type part of ${kinds.length === 1 ? `a${/^[aeiou]/.test(kinds[0]!) ? "n" : ""} ${kinds[0]}'s` : "a"} name…`}
      emptyText={entities.length === 0 ? emptyText : "Nothing matches."}
      options={offered.map((entity) => ({ id: entity.id, label: entity.name, hint: entity.hint }))}
      onPick={(option) => {
        const entity = offered.find((candidate) => candidate.id === option.id);
        if (entity) onPick(entity);
      }}
    />
  );
}
