// An evaluation dataset's file read into cases: CSV or JSONL, up to 1,000 cases, refused whole
// naming the first bad line.
import { EVAL_LIMITS, type EVAL_FORMATS } from "@/schemas/builder/evaluations";
import { isStorableText } from "@/schemas/text";
import { AppError } from "@/server/errors";
import { groupedDigits } from "@/lib/digits";

export interface ParsedCase {
  line: number;
  externalId: string;
  input: string;
  expectedBehavior: string;
}

/** A refusal of the file, naming the line (1-based) it is about; nothing is written. */
function badLine(line: number, message: string): AppError {
  return new AppError("invalid_request", `Invalid request: line ${line}: ${message}`, {
    line,
    problems: [{ path: "content", message: `line ${line}: ${message}` }],
  });
}

const COLUMN_NAMES: Record<string, keyof Omit<ParsedCase, "line">> = {
  input: "input",
  expectedbehavior: "expectedBehavior",
  expected_behavior: "expectedBehavior",
  expected: "expectedBehavior",
  id: "externalId",
};

function lineOf(content: string, offset: number): number {
  let line = 1;
  for (let i = content.indexOf("\n"); i !== -1 && i < offset; i = content.indexOf("\n", i + 1)) line++;
  return line;
}

/** One case's fields held to their bounds. */
function checkedCase(line: number, fields: Partial<Omit<ParsedCase, "line">>): ParsedCase {
  const input = fields.input ?? "";
  const expectedBehavior = fields.expectedBehavior ?? "";
  const externalId = fields.externalId ?? "";
  if (input.trim() === "") throw badLine(line, "`input` is empty.");
  const bounds = [
    ["input", input, EVAL_LIMITS.inputChars],
    ["expectedBehavior", expectedBehavior, EVAL_LIMITS.expectedChars],
    ["id", externalId, EVAL_LIMITS.idChars],
  ] as const;
  for (const [name, value, max] of bounds) {
    if (value.length > max) throw badLine(line, `\`${name}\` is over ${groupedDigits(max)} characters.`);
    if (!isStorableText(value)) throw badLine(line, `\`${name}\` holds text that cannot be stored.`);
  }
  return { line, input, expectedBehavior, externalId };
}

function tooManyCases(line: number): AppError {
  return badLine(line, `the file has more than ${groupedDigits(EVAL_LIMITS.cases)} cases.`);
}

async function parseCsv(content: string): Promise<ParsedCase[]> {
  const { default: Papa } = await import("papaparse");
  const rows: { line: number; fields: string[]; error: string | null }[] = [];
  let start = 0;
  Papa.parse<string[]>(content, {
    // Named, never guessed: a one-column file has no delimiter to detect.
    delimiter: ",",
    skipEmptyLines: false,
    step: (result) => {
      // A row begins after the line break that ended the previous one.
      let at = start;
      while (content[at] === "\r" || content[at] === "\n") at++;
      rows.push({ line: lineOf(content, at), fields: result.data, error: result.errors[0]?.message ?? null });
      start = result.meta.cursor;
    },
  });
  const filled = rows.filter((row) => row.error || row.fields.some((field) => field.trim() !== ""));
  const header = filled.shift();
  if (!header)
    throw badLine(1, "the file is empty; the first line names the columns (`input`, `expectedBehavior`, `id`).");
  if (header.error) throw badLine(header.line, header.error);
  const columns = header.fields.map((name) => {
    const column = COLUMN_NAMES[name.trim().toLowerCase()];
    if (!column) throw badLine(header.line, `unknown column "${name.trim()}" (use input, expectedBehavior, id).`);
    return column;
  });
  if (!columns.includes("input")) throw badLine(header.line, "no `input` column.");
  if (new Set(columns).size !== columns.length) throw badLine(header.line, "a column is named twice.");
  const cases: ParsedCase[] = [];
  for (const row of filled) {
    if (row.error) throw badLine(row.line, `${row.error}.`);
    if (row.fields.length !== columns.length)
      throw badLine(row.line, `${row.fields.length} fields where the header names ${columns.length}.`);
    if (cases.length === EVAL_LIMITS.cases) throw tooManyCases(row.line);
    cases.push(checkedCase(row.line, Object.fromEntries(columns.map((column, i) => [column, row.fields[i]]))));
  }
  return cases;
}

function parseJsonl(content: string): ParsedCase[] {
  const cases: ParsedCase[] = [];
  for (const [index, text] of content.split("\n").entries()) {
    const line = index + 1;
    if (text.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw badLine(line, "not a JSON object.");
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) throw badLine(line, "not a JSON object.");
    const fields: Partial<Omit<ParsedCase, "line">> = {};
    for (const [key, field] of Object.entries(value)) {
      const column = COLUMN_NAMES[key.toLowerCase()];
      if (!column) throw badLine(line, `unknown field "${key.slice(0, 100)}" (use input, expectedBehavior, id).`);
      if (typeof field !== "string" && !(column === "externalId" && typeof field === "number"))
        throw badLine(line, `\`${key}\` is not a string.`);
      fields[column] = String(field);
    }
    if (cases.length === EVAL_LIMITS.cases) throw tooManyCases(line);
    cases.push(checkedCase(line, fields));
  }
  return cases;
}

/** The file's cases, or the refusal naming its first bad line; the whole file is read before anything is written. */
export async function parseDataset(format: (typeof EVAL_FORMATS)[number], content: string): Promise<ParsedCase[]> {
  if (Buffer.byteLength(content, "utf8") > EVAL_LIMITS.fileBytes)
    throw new AppError(
      "invalid_request",
      `Invalid request: the file is over ${EVAL_LIMITS.fileBytes / 1024 / 1024} MiB.`,
      { problems: [{ path: "content", message: "too large" }] },
      { status: 413 },
    );
  const nul = content.indexOf("\u0000");
  if (nul !== -1) throw badLine(lineOf(content, nul), "holds a NUL byte.");
  const cases = format === "csv" ? await parseCsv(content) : parseJsonl(content);
  if (cases.length === 0) throw badLine(1, "the file has no cases.");
  return cases;
}
