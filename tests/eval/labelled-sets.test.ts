// The retrieval evaluation's labelled sets (eval/*/README.md) stay consistent: every label names
// a document of the set's corpus, the tuning and unseen halves are exactly the alternate split
// of questions.tsv (eval/split-questions.sh), and the sets of issue 34 keep their stated size.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const evalDir = join(__dirname, "../../eval");
const sets = ["retrieval", "command-manuals", "help-centre", "handbook", "policy", "config-manuals"];
// Sets written for issue 34: targets.tsv, at least 60 questions, 60–400 documents, exact headings.
const describedSets = new Set(["help-centre", "handbook", "policy", "config-manuals"]);

function lines(set: string, file: string): string[] {
  return readFileSync(join(evalDir, set, file), "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "" && !line.startsWith("#"));
}

/** A questions file's rows: `question<TAB>documents (comma-separated)[<TAB>heading]`. */
function labelled(set: string, file: string) {
  return lines(set, file).map((line) => {
    const [question = "", documents = "", heading = ""] = line.split("\t");
    return { question, documents: documents.split(","), heading };
  });
}

function headings(set: string, document: string): string[] {
  return readFileSync(join(evalDir, set, "corpus", `${document}.md`), "utf8")
    .split("\n")
    .filter((line) => /^#{1,4} /.test(line))
    .map((line) => line.replace(/^#+ /, "").trim());
}

describe.each(sets)("eval/%s", (set) => {
  const questions = labelled(set, "questions.tsv");

  it("labels only documents of its corpus", () => {
    const missing = questions
      .flatMap(({ documents }) => documents)
      .filter((document) => !existsSync(join(evalDir, set, "corpus", `${document}.md`)));
    expect(missing).toEqual([]);
  });

  it("splits its questions alternately into tuning.tsv and unseen.tsv", () => {
    expect(labelled(set, "tuning.tsv")).toEqual(questions.filter((_, index) => index % 2 === 0));
    expect(labelled(set, "unseen.tsv")).toEqual(questions.filter((_, index) => index % 2 === 1));
  });

  it.runIf(describedSets.has(set))("has its size, one description per question and exact headings", () => {
    const documents = readdirSync(join(evalDir, set, "corpus")).filter((name) => name.endsWith(".md"));
    expect(documents.length).toBeGreaterThanOrEqual(60);
    expect(documents.length).toBeLessThanOrEqual(400);
    expect(questions.length).toBeGreaterThanOrEqual(60);
    expect(new Set(questions.map(({ question }) => question)).size).toBe(questions.length);

    const targets = lines(set, "targets.tsv").map((line) => line.split("\t")[0]);
    expect(targets).toEqual(questions.map(({ documents }) => documents[0]));

    const wrongHeadings = questions
      .filter(({ documents: [first = ""], heading }) => heading && !headings(set, first).includes(heading))
      .map(({ question }) => question);
    expect(wrongHeadings).toEqual([]);
  });
});
