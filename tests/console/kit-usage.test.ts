// Console pages are built from the kit (src/components/console, docs/console.md "Console kit"):
// a table is a DataTable (sorts, says when empty, scrolls on a phone), a failed call is an
// ErrorAlert (message, code and request id), a panel's heading sits flush by its class, an
// input's length comes from src/schemas/limits.ts, a text label is a FormField, a bordered
// block is a Panel and a moment is a When. This test names each hand-made twin with its file and line.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(__dirname, "..", "..");
/** What the console renders: its pages and the components they use (the portal has its own look). */
const SCANNED = ["src/app/(console)", "src/components"];
/** The kit's own files, and what the portal shows too (its own look, without the console's stylesheet). */
const SKIPPED = ["src/components/console/", "src/components/portal/", "src/components/chat/"];

interface Rule {
  name: string;
  pattern: RegExp;
  /** Files where the pattern is right, each with the reason. */
  allowed?: Record<string, string>;
}

const RULES: Rule[] = [
  {
    name: "a raw <table> (use DataTable)",
    pattern: /<table[\s>]/,
    allowed: {
      "src/app/(console)/audit-log/page.tsx":
        "one event's before and after, field by field: a comparison, not a list to sort or page",
    },
  },
  { name: 'a hand-written role="alert" (use ErrorAlert)', pattern: /role=["{]+alert/ },
  { name: "a hand-written error paragraph (use ErrorAlert)", pattern: /<(?:p|div)\s+className="error"/ },
  {
    name: "an inline marginTop: 0 (a panel's first line is flush already; else the flush-top class)",
    pattern: /marginTop:\s*0\b/,
    allowed: {
      // Being rewritten by the builder editor work; it adopts Panel there.
      "src/components/builder/app-editor.tsx": "temporary: the builder editor rewrite",
    },
  },
  { name: "a maxLength literal (use src/schemas/limits.ts)", pattern: /maxLength=\{\d/ },
  {
    // A label whose content starts with text; a checkbox's or radio's label starts with its
    // control, and `className="inline"` is that inline label.
    name: "a raw text <label> (use FormField)",
    pattern: /<label(?![^>]*className="inline)[^>]*>\s*(?!<)\S/,
    allowed: {
      "src/components/builder/agent-editor.tsx": "the model's hint holds a link, and FormField's hint is text",
    },
  },
  {
    name: 'a hand-written className="panel" (use Panel)',
    pattern: /className="panel[\s"]/,
    allowed: {
      "src/app/(console)/audit-log/page.tsx": "the filter is a row of fields; Panel's onSubmit stacks them as .form",
      "src/app/(console)/executions/page.tsx":
        "the log's panel scrolls sideways (inline overflow), which Panel does not set",
      "src/components/auth/second-factor.tsx":
        "the sign-in and invitation pages' card, outside the console shell, named by its PageHeader",
      "src/components/builder/fields.tsx": "Section is a collapsible <details>; Panel renders a <section>",
      "src/components/review-card.tsx": "each review is an <article> in the list of reviews",
      "src/components/runtime/chat-view.tsx": "the conversation list is an <aside> landmark beside the chat",
    },
  },
  {
    // A button whose look is a class string; Button's variant and size say it, and its type is
    // "button" unless the form's submit says so.
    name: "a raw styled <button> (use Button)",
    pattern: /<button\b(?:=>|[^>])*?\sclassName=/,
  },
  { name: "a raw <select> (use Select)", pattern: /<select[\s>]/ },
  {
    // "12/8/2026, 12:25:50 AM" reads raw beside "Today, 12:25 AM": a moment is a When (or
    // whenWords in a sentence), its whole form a title on hover.
    name: "a raw date and time (use When, or whenWords and fullWhen from src/lib/when.ts)",
    pattern: /new Date\([^)]*\)\.toLocale(?:Date)?String\(\)/,
  },
  {
    // Boxes ticked into one list of values: CheckboxGroup (RadioGroup for radios) gives the
    // fieldset, the legend and the toggling.
    name: "a hand-rolled checkbox or radio group (use CheckboxGroup or RadioGroup)",
    pattern: /\.map\(\(?[^)]*\)?\s*=>\s*\(?\s*<label[^>]*>\s*<input\s+type="(?:checkbox|radio)"/,
    allowed: {
      "src/app/(console)/settings/page.tsx":
        "each switch turns its own organization setting on or off; they are not choices of one list",
    },
  },
];

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".tsx") ? [path] : [];
  });
}

/** `file:line: rule` for each place in `text` that breaks a rule (a match may span lines). */
export function kitViolations(path: string, text: string): string[] {
  return [
    ...RULES.filter((rule) => !rule.allowed?.[path]).flatMap((rule) =>
      [...text.matchAll(new RegExp(rule.pattern.source, "g"))].map((match) => {
        const line = text.slice(0, match.index).split("\n").length;
        return `${path}:${line}: ${rule.name}`;
      }),
    ),
    ...formViolations(path, text),
  ];
}

/**
 * Every form (a `<form onSubmit>` or a `<Panel onSubmit>`) is driven by useZodForm: its values are
 * checked with the API's own schema before they are sent (docs/console.md "Console kit"). A file
 * holds at least as many useZodForm calls as forms; the forms past that count are named. The
 * portal's and the chat's forms (SKIPPED: the portal's sign-in and the chat's composer, edit and
 * feedback forms, which the portal shows too) are the end user's, not the console's.
 */
function formViolations(path: string, text: string): string[] {
  const forms = [...text.matchAll(/\bonSubmit=/g)];
  const driven = [...text.matchAll(/\buseZodForm\(/g)].length;
  return forms.slice(driven).map((form) => {
    const line = text.slice(0, form.index).split("\n").length;
    return `${path}:${line}: a form not driven by useZodForm (check it with its API schema)`;
  });
}

describe("console pages use the kit", () => {
  it("no console page or component hand-writes a table, an alert, a flush, a length, a label, a panel, a styled button, a select, a choice group or an unchecked form", () => {
    const found = SCANNED.flatMap((folder) => sourceFiles(join(ROOT, folder)))
      .map((file) => relative(ROOT, file).split("\\").join("/"))
      .filter((path) => !SKIPPED.some((skipped) => path.startsWith(skipped)))
      .flatMap((path) => kitViolations(path, readFileSync(join(ROOT, path), "utf8")));
    expect(found).toEqual([]);
  });

  it("catches what it is there for and leaves the kit's own use and the allowed files alone", () => {
    const tsx = [
      "<table>",
      '<p role="alert" className="error">{message}</p>',
      '<div className="error">Failed</div>',
      "<h2 style={{ marginTop: 0 }}>Keys</h2>",
      "<input maxLength={200} />",
      '<DataTable label="Keys" columns={columns} rows={rows} rowKey={(row) => row.id} empty="None." />',
      "<ErrorAlert error={create.error} />",
      "<label>",
      "  Name",
      "  <input />",
      "</label>",
      '<label htmlFor="model">Model</label>',
      '<div className="panel">',
      '<form className="panel form" onSubmit={submit}>',
      "<input maxLength={MAX_NAME_CHARS} />",
      '<label className="inline">',
      '  <input type="checkbox" /> Archived',
      "</label>",
      "<label>",
      '  <input type="checkbox" /> Select all',
      "</label>",
      '<FormField label="Name">',
      '<Panel title="Keys" className="narrow">',
      '<div className="panel-head">',
      '<button className="primary" type="submit">Save</button>',
      '<button type="button" onClick={() => setOpen(true)} className="link">',
      '<Button variant="primary" type="submit">Save</Button>',
      '<button type="button" onClick={() => setOpen(true)}>Open</button>',
      "<select value={plan} onChange={pick}>",
      '<Select aria-label="Plan" options={options} />',
      "{plans.map((plan) => (",
      '  <label key={plan.id} className="inline">',
      '    <input type="checkbox" checked={ids.includes(plan.id)} />',
      '<CheckboxGroup legend="Plans" choices={choices} value={ids} onChange={setIds} />',
    ].join("\n");
    expect(
      kitViolations("x.tsx", tsx)
        .map((line) => Number(line.split(":")[1]))
        .sort((a, b) => a - b),
    ).toEqual([1, 2, 3, 4, 5, 8, 12, 13, 14, 14, 25, 26, 29, 31]);
    expect(kitViolations("src/components/builder/app-editor.tsx", "<h2 style={{ marginTop: 0 }}>App</h2>")).toEqual([]);
    // A form submitted by hand is named; one whose values useZodForm checks is not.
    const handMade = ['<Panel label="Create a key" onSubmit={submit}>', "<form onSubmit={search}>"].join("\n");
    expect(kitViolations("x.tsx", handMade)).toEqual([
      "x.tsx:1: a form not driven by useZodForm (check it with its API schema)",
      "x.tsx:2: a form not driven by useZodForm (check it with its API schema)",
    ]);
    const checked = [
      "const form = useZodForm(CreateApiKeyInput, { defaultValues });",
      '<Panel label="Create a key" onSubmit={(event) => void submit(event)}>',
    ].join("\n");
    expect(kitViolations("x.tsx", checked)).toEqual([]);
    expect(
      kitViolations("src/components/builder/agent-editor.tsx", '<label htmlFor="agent-model">Model</label>'),
    ).toEqual([]);
  });
});
