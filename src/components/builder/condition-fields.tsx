"use client";
// A condition node's branches: each a name, a rule (a variable, an operator and a value, or JSON
// Logic) and where it goes; and where the run goes when no rule holds. On the canvas each branch
// is its own dot and line (flow-canvas.tsx); here the same branches are edited in words.
import { Plus, Trash2 } from "lucide-react";
import { useState } from "react";
import { Button, FormField, Select } from "@/components/console";
import type { FlowNode } from "@/schemas/builder/builder";
import { OPERATORS, pathOf, ruleLogic, simpleRule, type Operator, type SimpleRule } from "./condition-rule";
import { TextField } from "./fields";
import { branchesOf, nodeTitle, type Branch } from "./flow-nodes";
import { JsonField } from "./json-field";
import type { Variable } from "./variable-menu";

export function ConditionFields({
  nodes,
  index,
  variables,
  setData,
}: {
  nodes: FlowNode[];
  index: number;
  variables: Variable[];
  setData: (key: string, value: unknown, group?: string) => void;
}) {
  const node = nodes[index]!;
  const branches = branchesOf(node);
  const others = nodes.filter((_, i) => i !== index);
  const setBranch = (at: number, changes: Partial<Branch>, group?: string) =>
    setData(
      "branches",
      branches.map((branch, i) => (i === at ? { ...branch, ...changes } : branch)),
      group,
    );
  const first = others.find((other) => other.type !== "trigger_start");
  return (
    <div className="condition-fields" data-testid="condition-fields">
      <p className="muted flush-top">The first branch whose rule holds runs; none: the “otherwise” step.</p>
      {branches.map((branch, at) => (
        <fieldset key={at} className="condition-branch">
          <legend>{branch.name || `Branch ${at + 1}`}</legend>
          <TextField
            label="Branch name"
            value={branch.name}
            onChange={(name) => setBranch(at, { name }, `${index}:branch${at}:name`)}
          />
          <RuleField
            when={branch.when}
            variables={variables}
            onChange={(when, group) => setBranch(at, { when }, group && `${index}:branch${at}:${group}`)}
          />
          <TargetSelect
            label="Then goes to"
            nodes={others}
            value={branch.next}
            onChange={(next) => next && setBranch(at, { next })}
          />
          <button
            type="button"
            onClick={() => setData("branches", branches.length > 1 ? branches.filter((_, i) => i !== at) : undefined)}
          >
            <Trash2 size={16} aria-hidden /> Remove branch
          </button>
        </fieldset>
      ))}
      {first && (
        <button
          type="button"
          onClick={() =>
            setData("branches", [...branches, { name: `Branch ${branches.length + 1}`, when: true, next: first.id }])
          }
        >
          <Plus size={16} aria-hidden /> Add branch
        </button>
      )}
      <TargetSelect
        label="Otherwise goes to"
        nodes={others}
        value={node.data.else as string | undefined}
        none="Nowhere: the run ends"
        onChange={(next) => setData("else", next)}
      />
    </div>
  );
}

function TargetSelect({
  label,
  nodes,
  value,
  none = "Choose a step…",
  onChange,
}: {
  label: string;
  nodes: FlowNode[];
  value: unknown;
  none?: string;
  onChange: (id: string | undefined) => void;
}) {
  return (
    <FormField label={label}>
      <Select
        value={typeof value === "string" ? value : ""}
        onChange={(e) => onChange(e.target.value || undefined)}
        options={[{ value: "", label: none }, ...nodes.map((other) => ({ value: other.id, label: nodeTitle(other) }))]}
      />
    </FormField>
  );
}

/** The rule of one branch: the simple form while it can say it, else (or by choice) JSON Logic. */
function RuleField({
  when,
  variables,
  onChange,
}: {
  when: unknown;
  variables: Variable[];
  onChange: (when: unknown, group?: string) => void;
}) {
  const simple = simpleRule(when);
  const [advanced, setAdvanced] = useState(simple === null);
  if (advanced || simple === null)
    return (
      <div className="rule-field">
        <JsonField label="Rule (JSON Logic)" value={when} onChange={(value) => onChange(value, "when")} />
        {simple !== null && (
          <Button variant="link" onClick={() => setAdvanced(false)}>
            Edit as a simple rule
          </Button>
        )}
      </div>
    );
  const set = (changes: Partial<SimpleRule>, group?: string) => onChange(ruleLogic({ ...simple, ...changes }), group);
  return (
    <div className="rule-field">
      <div className="rule-row">
        <FormField label="When">
          <Select
            value={simple.path}
            onChange={(e) => set({ path: e.target.value })}
            options={variables.map((variable) => ({ value: pathOf(variable.reference), label: variable.shown }))}
            placeholder="Always"
          />
        </FormField>
        {simple.path !== "" && (
          <>
            <FormField label="Test">
              <Select
                value={simple.op}
                onChange={(e) => set({ op: e.target.value as Operator })}
                options={OPERATORS.map((o) => ({ value: o.op, label: o.label }))}
              />
            </FormField>
            <TextField label="Value" value={simple.value} onChange={(value) => set({ value }, "value")} />
          </>
        )}
      </div>
      <Button variant="link" onClick={() => setAdvanced(true)}>
        Write the rule as JSON Logic
      </Button>
    </div>
  );
}
