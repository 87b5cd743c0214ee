"use client";
import { useQuery } from "@tanstack/react-query";
import { Settings } from "lucide-react";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useRef } from "react";
import {
  PageFailed,
  PageHeader,
  PageLoading,
  Panel,
  RecentActivity,
  RefusedButton,
  useMay,
  usePageState,
} from "@/components/console";
import { useTRPC } from "@/lib/trpc";
import { KnowledgeSearch } from "./knowledge-search";
import { KnowledgeSources } from "./knowledge-sources";
import { KnowledgebaseSettings, settingsSummary } from "./knowledgebase-settings";
import { PageEditor } from "./page-editor";
import { PageTree } from "./page-tree";
import { RetrievalTest } from "./retrieval-test";
import "./knowledge.css";

const BACK = { href: "/knowledge", label: "Knowledge" };

/** A knowledgebase: its settings, its pages (the selected one lives in the URL, ?page=…, so reload, back and links work), a retrieval test and its sources. */
export function KnowledgebaseView({ knowledgebaseId }: { knowledgebaseId: string }) {
  const router = useRouter();
  const pathname = usePathname();
  const search = useSearchParams();
  const trpc = useTRPC();
  const detail = useQuery(
    trpc.knowledge.get.queryOptions(
      { knowledgebaseId },
      // Live status: poll while a source is still being indexed.
      { refetchInterval: (query) => (query.state.data?.sources.some((s) => s.status === "processing") ? 1500 : false) },
    ),
  );
  const mayEdit = useMay("write");
  const [settingsOpen, setSettingsOpen] = usePageState(false);
  const settingsButton = useRef<HTMLButtonElement>(null);
  // The form goes away with its buttons: focus returns to what opened it.
  const closeSettings = () => {
    setSettingsOpen(false);
    settingsButton.current?.focus();
  };
  const selected = search.get("page");
  const setSelected = (pageId: string | null) => router.push(pageId ? `${pathname}?page=${pageId}` : pathname);

  if (detail.error) return <PageFailed title="Knowledgebase" back={BACK} error={detail.error} />;
  if (!detail.data) return <PageLoading title="Knowledgebase" />;
  const kb = detail.data;
  return (
    <>
      <PageHeader
        title={kb.name}
        back={BACK}
        actions={
          mayEdit ? (
            <button
              ref={settingsButton}
              type="button"
              aria-expanded={settingsOpen}
              onClick={() => setSettingsOpen((open) => !open)}
            >
              <Settings size={16} aria-hidden className="icon" />
              Settings
            </button>
          ) : (
            <RefusedButton label="Settings" icon={<Settings size={16} aria-hidden className="icon" />} needs="write" />
          )
        }
      />
      {kb.description && <p className="muted">{kb.description}</p>}
      <p className="muted">
        {kb.counts.sources} source{kb.counts.sources === 1 ? "" : "s"} · {kb.counts.pages} page
        {kb.counts.pages === 1 ? "" : "s"}
      </p>
      <p className="muted" data-testid="knowledgebase-settings-summary">
        {settingsSummary(kb)}
      </p>
      {settingsOpen && <KnowledgebaseSettings knowledgebase={kb} onClose={closeSettings} />}
      <KnowledgeSearch knowledgebaseId={knowledgebaseId} />
      <div className="knowledge-layout">
        <PageTree knowledgebaseId={knowledgebaseId} pages={kb.pages} selected={selected} onSelect={setSelected} />
        {selected ? (
          <PageEditor
            key={selected}
            knowledgebaseId={knowledgebaseId}
            pageId={selected}
            pages={kb.pages}
            onSelect={setSelected}
          />
        ) : (
          <Panel className="muted">Choose a page, or create one.</Panel>
        )}
      </div>
      <RetrievalTest knowledgebaseId={knowledgebaseId} />
      <KnowledgeSources knowledgebaseId={knowledgebaseId} sources={kb.sources} crawls={kb.crawls} />
      <RecentActivity targetId={knowledgebaseId} />
    </>
  );
}
