// The kit's controls: Button, Select, CheckboxGroup and RadioGroup render the native elements a
// keyboard and a screen reader already know, with their names; useZodForm refuses what the API's
// own schema refuses, beside the field, and hands the parsed input on.
import { createElement, type ReactElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  Button,
  CheckboxGroup,
  CreateNamedItemPanel,
  fieldProblem,
  FormField,
  RadioGroup,
  Select,
  useZodForm,
} from "@/components/console";
import { CreateUserGroupInput } from "@/schemas/provisioning/provisioning";

const html = (element: ReactElement) => renderToStaticMarkup(element);

describe("Button", () => {
  it('is type="button" unless asked, so a button inside a form does not submit it', () => {
    expect(html(createElement(Button, null, "Cancel"))).toBe('<button type="button">Cancel</button>');
    expect(html(createElement(Button, { type: "submit", variant: "primary" }, "Save"))).toBe(
      '<button type="submit" class="primary">Save</button>',
    );
  });

  it("takes its look from the variant and size, keeping a page's layout class", () => {
    expect(html(createElement(Button, { variant: "danger" }, "Delete"))).toContain('class="danger"');
    expect(html(createElement(Button, { variant: "link" }, "Open"))).toContain('class="link"');
    expect(html(createElement(Button, { variant: "ghost", size: "small" }, "Hide"))).toContain(
      'class="ghost small-button"',
    );
    expect(
      html(createElement(Button, { size: "icon", "aria-label": "Remove Support", className: "load-more" }, "×")),
    ).toBe('<button aria-label="Remove Support" type="button" class="icon-only load-more">×</button>');
  });

  it("while busy says so to assistive technology and cannot be pressed again", () => {
    const busy = html(createElement(Button, { variant: "primary", busy: true }, "Saving…"));
    expect(busy).toContain('disabled=""');
    expect(busy).toContain('aria-busy="true"');
    expect(html(createElement(Button, null, "Save"))).not.toContain("aria-busy");
  });
});

describe("Select", () => {
  const PLANS = [
    { value: "pro", label: "Pro" },
    { value: "team", label: "Team", disabled: true },
  ];

  it("lists its options after the placeholder, the chosen one selected", () => {
    const markup = html(
      createElement(Select, {
        "aria-label": "Plan",
        options: PLANS,
        placeholder: "Any plan",
        value: "pro",
        onChange() {},
      }),
    );
    expect(markup).toBe(
      '<select aria-label="Plan"><option value="">Any plan</option><option value="pro" selected="">Pro</option>' +
        '<option value="team" disabled="">Team</option></select>',
    );
  });

  it("inside a FormField is named by the field's label and described by its hint and error", () => {
    const markup = html(
      createElement(FormField, {
        label: "Plan",
        hint: "Monthly credits follow it.",
        error: "Choose a plan.",
        children: createElement(Select, { options: PLANS, defaultValue: "pro" }) as ReactElement<never>,
      }),
    );
    const id = /<label for="([^"]+)">Plan<\/label>/.exec(markup)![1];
    expect(markup).toContain(`<select id="${id}" aria-describedby="${id}-hint ${id}-error" aria-invalid="true">`);
  });
});

describe("CheckboxGroup and RadioGroup", () => {
  const SCOPES = [
    { value: "apps:read", label: "apps:read" },
    { value: "apps:write", label: "apps:write" },
  ];

  it("are a fieldset named by its legend, each choice a native control inside its label", () => {
    const markup = html(
      createElement(CheckboxGroup, { legend: "Scopes", choices: SCOPES, value: ["apps:write"], onChange() {} }),
    );
    expect(markup).toMatch(/^<fieldset class="bare"><legend>Scopes<\/legend>/);
    expect(markup).toContain('<label class="inline"><input type="checkbox" value="apps:read"/>apps:read</label>');
    expect(markup).toContain(
      '<label class="inline"><input type="checkbox" checked="" value="apps:write"/>apps:write</label>',
    );
  });

  it("give radios one name, so the arrow keys move between them", () => {
    const markup = html(
      createElement(RadioGroup, {
        legend: "Kind",
        choices: [
          { value: "personal", label: "Personal" },
          { value: "organization", label: "Organization", disabled: true },
        ],
        value: "personal",
        onChange() {},
      }),
    );
    const names = [...markup.matchAll(/<input type="radio"[^>]* name="([^"]+)"/g)].map((match) => match[1]);
    expect(names).toHaveLength(2);
    expect(names[0]).toBe(names[1]);
    expect(markup).toMatch(/<input type="radio"[^>]* checked=""[^>]* value="personal"/);
    expect(markup).toMatch(/<input type="radio" disabled=""[^>]* value="organization"/);
  });

  it("show a choice's explanation under its name, as the choices look does", () => {
    const markup = html(
      createElement(RadioGroup, {
        legend: "Search mode",
        choices: [{ value: "lexical", label: "Lexical only", hint: "Matches words only." }],
        value: null,
        onChange() {},
      }),
    );
    expect(markup).toContain('<fieldset class="bare choices">');
    expect(markup).toContain('<label class="inline choice"><input type="radio"');
    expect(markup).toContain('<span>Lexical only<span class="muted">Matches words only.</span></span>');
  });
});

describe("useZodForm", () => {
  /** The form a component made with the hook, taken out of one render. */
  function formOf<Schema extends z.ZodType<Record<string, unknown>, Record<string, unknown>>>(
    schema: Schema,
    defaultValues: z.input<Schema>,
  ) {
    let made: ReturnType<typeof useZodForm<Schema>> | undefined;
    function Form() {
      made = useZodForm(schema, { defaultValues: defaultValues as never });
      return null;
    }
    html(createElement(Form));
    return made!;
  }

  it("refuses what the API's schema refuses, beside the field, and sends nothing", async () => {
    const form = formOf(CreateUserGroupInput, { name: "x".repeat(201) });
    const sent: unknown[] = [];
    let refused: Record<string, unknown> = {};
    await form.handleSubmit(
      (input) => void sent.push(input),
      (errors) => void (refused = errors),
    )();
    expect(sent).toEqual([]);
    expect(Object.keys(refused)).toEqual(["name"]);
    // What the page's next render reads (this test renders once, so it asks the form's control).
    const rendered = { formState: form.control._formState };
    expect(fieldProblem(rendered, "name")).toMatch(/200/);
    expect(fieldProblem(rendered, "description")).toBeNull();
  });

  it("hands the schema's parsed output to the submit", async () => {
    const schema = z.strictObject({ name: z.string().trim().min(1), credits: z.coerce.number().int() });
    const form = formOf(schema, { name: "  Support  ", credits: "40" });
    const sent: unknown[] = [];
    await form.handleSubmit((input) => void sent.push(input))();
    expect(sent).toEqual([{ name: "Support", credits: 40 }]);
  });
});

describe("CreateNamedItemPanel", () => {
  it("is a form named by its label, its name field bounded as the schema is", () => {
    const markup = html(
      createElement(CreateNamedItemPanel, {
        schema: CreateUserGroupInput,
        create: { mutate() {}, isPending: false, error: null },
        label: "Create a user group",
        submitLabel: "Create group",
        describe: true,
      }),
    );
    expect(markup).toMatch(/^<form class="panel form" aria-label="Create a user group">/);
    expect(markup).toMatch(/<label for="([^"]+)">Name<\/label><input required="" maxLength="200" id="\1" name="name"/);
    expect(markup).toContain(">Description</label>");
    expect(markup).toContain('<button class="primary" type="submit">Create group</button>');
  });
});
