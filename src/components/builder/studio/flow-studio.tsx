"use client";
// The canvas-first flow editor: the canvas fills the page, the node library on its left, the
// selected step's settings or the test run on its right, the flow's own settings (and tests,
// publishing, versions) in a drawer. On a phone, a list of the same steps, edited in sheets.
import "@/components/builder/flow-editor.css";
import "./studio.css";
import { useQuery } from "@tanstack/react-query";
import dynamic from "next/dynamic";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useEffect, useState, type ReactNode } from "react";
import { Button, RecentActivity, Tabs } from "@/components/console";
import { useTRPC } from "@/lib/trpc";
import type { FlowInput, FlowNode } from "@/schemas/builder/builder";
import { flowFeedback, incompleteNodes } from "@/schemas/builder/flow-graph";
import { EditorShell, LastChange, type ComparedVersion, type EditorParts } from "../editor-shell";
import { shownFeedback } from "../flow-checks";
import { FlowDetails } from "../flow-details";
import { structuralProblem, toWrite, useNarrow } from "../flow-editor";
import { addNode, nodeTitle, placeBelow, placeNodes, type Place } from "../flow-nodes";
import { nodeChanges } from "../node-changes";
import { NodeFields } from "../node-fields";
import { useNodeHistory } from "../use-node-history";
import { Drawer } from "./drawer";
import { EmptyFlow, FlowProblems } from "./flow-problems";
import { NodeLibrary } from "./node-library";
import { StepList } from "./step-list";
import { StudioBar } from "./studio-bar";
import { TestRunPanel } from "./test-run-panel";
import { useTestRun } from "./use-test-run";

const FlowCanvas = dynamic(() => import("../flow-canvas"), {
  ssr: false,
  loading: () => <p className="muted studio-loading">Loading the canvas…</p>,
});

export function FlowStudio({ id }: { id: string }) {
  const [compared, setCompared] = useState<ComparedVersion | null>(null);
  return (
    <EditorShell
      kind="flows"
      id={id}
      toWrite={toWrite}
      holdBack={structuralProblem}
      onCompare={setCompared}
      frame={(parts) => (
        <StudioFrame id={id} parts={parts} compared={compared} onStopComparing={() => setCompared(null)} />
      )}
    >
      {() => null}
    </EditorShell>
  );
}

type Sheet = "settings" | "library" | "step" | "run" | null;

function StudioFrame({
  id,
  parts,
  compared,
  onStopComparing,
}: {
  id: string;
  parts: EditorParts;
  compared: ComparedVersion | null;
  onStopComparing: () => void;
}) {
  const { doc, update } = parts.body;
  const studio = useStudio(id, parts, compared);
  const { nodes, inputs, narrow, history, run, feedback, missing, changes } = studio;
  const { chosen, side, setSide, sheet, setSheet, setSelected, select, add, openRun } = studio.selection;

  const fields = (index: number) => (
    <NodeFields
      nodes={nodes}
      index={index}
      feedback={feedback}
      inputs={inputs}
      setNodes={history.setNodes}
      onMoved={(at) => (at === null ? (setSelected(null), setSheet(null)) : setSelected(at))}
      result={run.results?.get(nodes[index]!.id)}
    />
  );
  const testRun = <TestRunPanel flowId={id} inputs={inputs} run={run} saved={parts.saved} />;
  const hasStart = nodes.some((node) => node.type === "trigger_start");
  const steps = <StudioSteps studio={studio} onLibrary={narrow ? () => setSheet("library") : undefined} />;

  return (
    <div className="studio" data-testid="flow-studio">
      <StudioBar
        name={doc.name}
        status={parts.status}
        history={history}
        onSettings={() => setSheet("settings")}
        onRun={openRun}
        view={narrow ? undefined : studio.listed ? "list" : "canvas"}
        onView={studio.setView}
      />
      <div className="studio-alerts">
        {parts.alerts}
        {compared && changes && <CompareNote number={compared.number} changes={changes} onStop={onStopComparing} />}
      </div>
      <FlowProblems nodes={nodes} feedback={feedback} missing={missing} onSelect={select} />
      {narrow ? (
        steps
      ) : (
        <StudioDesk
          studio={studio}
          steps={steps}
          hasStart={hasStart}
          inspector={<StudioInspector chosen={chosen} side={side} onSide={setSide} fields={fields} testRun={testRun} />}
        />
      )}
      <Drawer open={sheet === "settings"} title="Flow settings" onClose={() => setSheet(null)}>
        <LastChange view={parts.body.view} />
        <FlowDetails doc={doc} update={update} />
        {parts.panels}
        <RecentActivity targetId={id} />
      </Drawer>
      {narrow && (
        <PhoneSheets
          sheet={sheet}
          onClose={() => setSheet(null)}
          chosen={chosen}
          fields={fields}
          testRun={testRun}
          onAdd={add}
          hasStart={hasStart}
        />
      )}
    </div>
  );
}

/** The draft's steps with what is checked on them, the view (canvas or list), its history, test run and selection. */
function useStudio(id: string, parts: EditorParts, compared: ComparedVersion | null) {
  const { doc, update } = parts.body;
  const nodes = doc.nodes as FlowNode[];
  const inputs = doc.inputs as FlowInput[];
  const trpc = useTRPC();
  const models = useQuery(trpc.models.list.queryOptions({}));
  const narrow = useNarrow();
  // At a desk the steps are drawn on the canvas, or listed (?view=list, kept in the URL).
  const router = useRouter();
  const pathname = usePathname();
  const listView = useSearchParams().get("view") === "list";
  const listed = narrow || listView;
  const setView = (view: "list" | "canvas") =>
    router.replace(view === "list" ? `${pathname}?view=list` : pathname, { scroll: false });
  const history = useNodeHistory(nodes, (next) => update({ nodes: next }));
  const run = useTestRun(id, nodes);
  const selection = useStudioSelection(nodes, narrow, history.setNodes);
  const modelIds = new Set(models.data?.models.map((m) => m.id) ?? ["atrium-offline"]);
  const feedback = shownFeedback(flowFeedback(nodes, modelIds, { allowIncomplete: true }), nodes);
  const missing = incompleteNodes(nodes);
  const changes = compared ? nodeChanges((compared.document.nodes ?? []) as FlowNode[], nodes) : null;
  return { nodes, inputs, narrow, listed, setView, history, run, selection, feedback, missing, changes };
}

/** At a desk: the node library, the steps on the canvas (or listed), and the inspector. */
function StudioDesk({
  studio,
  steps,
  hasStart,
  inspector,
}: {
  studio: ReturnType<typeof useStudio>;
  steps: ReactNode;
  hasStart: boolean;
  inspector: ReactNode;
}) {
  const { nodes, feedback, missing, history, run, changes } = studio;
  const { chosen, select, add } = studio.selection;
  return (
    <div className="studio-main">
      <NodeLibrary onAdd={(type) => add(type)} hasStart={hasStart} />
      {studio.listed ? (
        steps
      ) : (
        <div className="studio-canvas">
          <FlowCanvas
            nodes={nodes}
            feedback={feedback}
            missing={missing}
            selected={chosen}
            onSelect={select}
            setNodes={history.setNodes}
            results={run.results}
            onDropType={add}
            minimap
            marks={changes?.marks}
          />
          {nodes.length === 0 && <EmptyFlow onStart={() => add("trigger_start")} />}
        </div>
      )}
      {inspector}
    </div>
  );
}

/**
 * Which step is selected, which side tab and which sheet (on a phone) are open, and what
 * choosing a step, adding one or opening the test run does to them.
 */
function useStudioSelection(nodes: FlowNode[], narrow: boolean, setNodes: (next: FlowNode[]) => void) {
  const [selected, setSelected] = useState<number | null>(null);
  const [side, setSide] = useState<"step" | "run">("run");
  const [sheet, setSheet] = useState<Sheet>(null);
  const chosen = selected !== null && selected < nodes.length ? selected : null;

  const select = (index: number | null) => {
    setSelected(index);
    if (index === null) return;
    setSide("step");
    if (narrow) setSheet("step");
  };
  /** A node from the library: where it was dropped, else below the others; every node keeps its place. */
  const add = (type: string, place?: Place) => {
    setNodes(addNode(placeNodes(nodes), type, place ?? placeBelow(nodes)));
    select(nodes.length);
  };
  const openRun = () => {
    setSelected(null);
    setSide("run");
    if (narrow) setSheet("run");
  };
  // Escape lets go of the selected step (outside fields and sheets, where it means something else).
  useEffect(() => {
    function onKey(event: KeyboardEvent) {
      const target = event.target as HTMLElement | null;
      if (event.key !== "Escape" || target?.closest("input, textarea, select, dialog")) return;
      setSelected(null);
    }
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);
  return { chosen, side, setSide, sheet, setSheet, setSelected, select, add, openRun };
}

/** The steps as a list (on a phone, or ?view=list), or the way to start an empty flow. */
function StudioSteps({
  studio,
  onLibrary,
}: {
  studio: ReturnType<typeof useStudio>;
  /** On a phone: opens the library's sheet. */
  onLibrary?: () => void;
}) {
  const { nodes, missing, run, changes, history } = studio;
  const { chosen, select, add } = studio.selection;
  return (
    <div className="studio-steps">
      {nodes.length === 0 ? (
        <EmptyFlow onStart={() => add("trigger_start")} />
      ) : (
        <StepList
          nodes={nodes}
          missing={missing}
          results={run.results}
          selected={chosen}
          marks={changes?.marks}
          onOpen={select}
          setNodes={history.setNodes}
        />
      )}
      {onLibrary && nodes.length > 0 && (
        <Button variant="primary" onClick={onLibrary}>
          Add a step
        </Button>
      )}
    </div>
  );
}

/** At a desk, the side: the selected step's settings, or the test run. */
function StudioInspector({
  chosen,
  side,
  onSide,
  fields,
  testRun,
}: {
  chosen: number | null;
  side: "step" | "run";
  onSide: (side: "step" | "run") => void;
  fields: (index: number) => ReactNode;
  testRun: ReactNode;
}) {
  return (
    <aside className="studio-side" aria-label="Inspector">
      <Tabs
        label="Inspector"
        selected={chosen === null ? "run" : side}
        onSelect={(tab) => onSide(tab as "step" | "run")}
        tabs={[
          {
            id: "step",
            label: "Step",
            panel: chosen === null ? <p className="muted">Select a step to edit it.</p> : fields(chosen),
          },
          { id: "run", label: "Test run", panel: testRun },
        ]}
      />
    </aside>
  );
}

/** On a phone, what the desk shows beside the canvas opens in sheets: a step, the library, the test run. */
function PhoneSheets({
  sheet,
  onClose,
  chosen,
  fields,
  testRun,
  onAdd,
  hasStart,
}: {
  sheet: Sheet;
  onClose: () => void;
  chosen: number | null;
  fields: (index: number) => ReactNode;
  testRun: ReactNode;
  onAdd: (type: string) => void;
  hasStart: boolean;
}) {
  return (
    <>
      <Drawer open={sheet === "step" && chosen !== null} title="Step settings" onClose={onClose}>
        {chosen !== null && fields(chosen)}
      </Drawer>
      <Drawer open={sheet === "library"} title="Add a step" onClose={onClose}>
        <NodeLibrary onAdd={(type) => onAdd(type)} hasStart={hasStart} />
      </Drawer>
      <Drawer open={sheet === "run"} title="Test run" onClose={onClose}>
        {testRun}
      </Drawer>
    </>
  );
}

/** What the canvas marks while a version is compared with the draft, and the steps it cannot show. */
function CompareNote({
  number,
  changes,
  onStop,
}: {
  number: number;
  changes: ReturnType<typeof nodeChanges>;
  onStop: () => void;
}) {
  const count = (change: "added" | "changed") => [...changes.marks.values()].filter((mark) => mark === change).length;
  const removed = changes.removed.map(nodeTitle);
  return (
    <div className="notice studio-compare" role="status" data-testid="compare-on-canvas">
      <p>
        Since version {number}: {count("added")} added, {count("changed")} changed (marked on the steps)
        {removed.length > 0 ? `; removed: ${removed.join(", ")}` : ""}.
      </p>
      <button type="button" onClick={onStop}>
        Stop comparing
      </button>
    </div>
  );
}
