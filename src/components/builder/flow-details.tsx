"use client";
// A flow's own settings: name, slug, description, kind, questions and its declared inputs (the
// fields the preview's form and the published input schema are made of). Shown in the long
// editor and in the canvas editor's settings drawer.
import { FormField, Select } from "@/components/console";
import { FLOW_KINDS, type FlowInput } from "@/schemas/builder/builder";
import { NameSlugDescription } from "./duplicate-name";
import type { EditorBodyProps } from "./editor-shell";
import { QuestionsField, Section } from "./fields";

const INPUT_TYPES = ["text", "number", "integer", "boolean", "select", "multiselect"];

export function FlowDetails({ doc, update }: Pick<EditorBodyProps, "doc" | "update">) {
  const inputs = doc.inputs as FlowInput[];
  const setInput = (index: number, changes: Partial<FlowInput>) =>
    update({ inputs: inputs.map((input, i) => (i === index ? { ...input, ...changes } : input)) });
  return (
    <>
      <Section title="Flow" summary={[doc.name, doc.kind].filter(Boolean).join(" · ")}>
        <NameSlugDescription kind="flows" doc={doc} update={update} />
        <FormField label="Kind" hint="A form flow runs from a form of its inputs, below">
          <Select
            value={doc.kind}
            onChange={(event) => update({ kind: event.target.value })}
            options={[
              ...(!(FLOW_KINDS as readonly string[]).includes(doc.kind)
                ? [{ value: doc.kind, label: `${doc.kind} (set through the API)` }]
                : []),
              ...FLOW_KINDS.map((kind) => ({ value: kind, label: kind === "form" ? "Form" : kind })),
            ]}
          />
        </FormField>
        <QuestionsField value={doc.questions} onChange={(questions) => update({ questions })} />
      </Section>
      <Section title="Inputs" summary={count(inputs.length, "input")}>
        <p className="muted">
          Templates read them as <code>{"{{inputs.key}}"}</code>. Published, they become the flow&apos;s input JSON
          Schema.
        </p>
        <div className="list-editor">
          {inputs.map((input, index) => (
            <div className="item row" key={index}>
              <input
                aria-label="Input key"
                value={input.key}
                onChange={(e) => setInput(index, { key: e.target.value })}
                placeholder="key"
                style={{ width: "9rem" }}
              />
              <input
                aria-label="Input label"
                value={input.label}
                onChange={(e) => setInput(index, { label: e.target.value })}
                placeholder="Label"
              />
              <Select
                aria-label="Input type"
                value={input.type}
                onChange={(e) => setInput(index, { type: e.target.value })}
                options={INPUT_TYPES.map((type) => ({ value: type, label: type }))}
              />
              <label className="inline">
                <input
                  type="checkbox"
                  checked={input.required}
                  onChange={(e) => setInput(index, { required: e.target.checked })}
                />
                required
              </label>
              {(input.type === "select" || input.type === "multiselect") && (
                <input
                  aria-label="Options"
                  value={input.options.join(", ")}
                  onChange={(e) =>
                    setInput(index, {
                      options: e.target.value
                        .split(",")
                        .map((o) => o.trim())
                        .filter(Boolean),
                    })
                  }
                  placeholder="option a, option b"
                />
              )}
              <button type="button" onClick={() => update({ inputs: inputs.filter((_, i) => i !== index) })}>
                Remove
              </button>
            </div>
          ))}
          <div>
            <button
              type="button"
              onClick={() =>
                update({
                  inputs: [
                    ...inputs,
                    {
                      key: `input${inputs.length + 1}`,
                      label: "",
                      description: "",
                      type: "text",
                      required: false,
                      options: [],
                    },
                  ],
                })
              }
            >
              Add input
            </button>
          </div>
        </div>
      </Section>
    </>
  );
}

export const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;
