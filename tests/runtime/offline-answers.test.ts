// The built-in model answers from the passage: the sentences under the heading that matches the
// question (a list's items, a table's matching row), never a heading glued into a sentence and
// never the question said back.
import { describe, expect, it } from "vitest";
import { offlineAnswer } from "@/server/runtime/offline-model";
import { newOrganization } from "../helpers";
import { newKnowledgebase, newPage } from "../knowledge-helpers";
import { converse, oneAgentApp } from "../runtime-helpers";

// Written as people write markdown: some headings followed by a single line break, a list, a table.
const HANDBOOK = [
  "# Acme Cloud Backup handbook",
  "Acme Cloud Backup keeps copies of your files in two data centres.",
  "",
  "## Plans and prices",
  "",
  "| Plan | Storage | Price per month |",
  "|---|---|---|",
  "| Starter | 100 GB | $4 |",
  "| Team | 2 TB | $18 |",
  "| Enterprise | Unlimited | On quote |",
  "",
  "All plans include encryption at rest.",
  "",
  "## Restoring a file",
  "Open the Backup app and choose Restore.",
  "- Pick the date of the copy you want",
  "- Select the files and click Restore",
  "- The files come back to their original folder",
  "",
  "Restores of more than 50 GB are shipped on a drive within five working days.",
  "",
  "## Cancelling your subscription",
  "You can cancel at any time from Settings.",
  "Your backups are kept for 30 days after you cancel, then deleted.",
  "",
  "## Frequently asked questions",
  "### Is my data encrypted?",
  "Yes. Files are encrypted with AES-256 before they leave your computer.",
  "### Can I back up a network drive?",
  "Only on the Team and Enterprise plans. Map the drive first, then add it under Sources.",
  "",
  "## Contact",
  "Email support@acme.example or call +1 555 0100 on weekdays.",
].join("\n");

const HEADINGS = [
  "Acme Cloud Backup handbook",
  "Plans and prices",
  "Restoring a file",
  "Cancelling your subscription",
  "Frequently asked questions",
  "Contact",
];

const handbook = [{ title: "Handbook", text: HANDBOOK }];

function ask(message: string): string {
  return offlineAnswer({ message, knowledge: handbook });
}

function expectNoHeading(reply: string) {
  for (const heading of HEADINGS) expect(reply).not.toContain(heading);
}

describe("the built-in model answers from the passage", () => {
  it("answers with the sentences under the heading that matches, and nothing from other sections", () => {
    const reply = ask("How do I cancel my subscription?");
    expect(reply).toBe(
      "You can cancel at any time from Settings. Your backups are kept for 30 days after you cancel, then deleted.",
    );
  });

  it("keeps a section's list as its steps, without the heading", () => {
    const reply = ask("How do I restore a file?");
    expect(reply).toContain("Open the Backup app and choose Restore.");
    expect(reply).toContain("- Pick the date of the copy you want");
    expect(reply).toContain("- Select the files and click Restore");
    expect(reply).toContain("- The files come back to their original folder");
    expect(reply).not.toMatch(/cancel|AES|Starter/);
    expectNoHeading(reply);
  });

  it("answers from the table row that matches, named by its columns", () => {
    const reply = ask("What does the Team plan cost per month?");
    expect(reply).toContain("Team");
    expect(reply).toContain("$18");
    expect(reply).not.toContain("Starter");
    expect(reply).not.toContain("Enterprise");
    expect(reply).not.toContain("|");
  });

  it("answers a question that is a heading with what is under it, never the question", () => {
    const reply = ask("Is my data encrypted?");
    expect(reply).toBe("Yes. Files are encrypted with AES-256 before they leave your computer.");
    const drive = ask("can I back up a network drive");
    expect(drive).toBe("Only on the Team and Enterprise plans. Map the drive first, then add it under Sources.");
  });

  it("never glues a heading to the sentence after it", () => {
    const reply = ask("What is the support email?");
    expect(reply).toBe("Email support@acme.example or call +1 555 0100 on weekdays.");
    expectNoHeading(reply);
  });

  it("cites each passage it answers from", () => {
    const passages = [
      { title: "Handbook", text: HANDBOOK },
      { title: "Other", text: "## Holidays\nThe office is closed on public holidays." },
    ];
    const reply = offlineAnswer({
      message: "How do I cancel my subscription?",
      knowledge: passages,
      cite: (passage) => passages.indexOf(passage) + 1,
    });
    expect(reply).toBe(
      "You can cancel at any time from Settings [1]. Your backups are kept for 30 days after you cancel, then deleted [1].",
    );
  });

  it("answers an end user from a knowledgebase page through the conversation endpoint", async () => {
    const tenant = await newOrganization();
    const key = tenant.orgKey.secret;
    const knowledgebaseId = await newKnowledgebase(tenant);
    await newPage(key, knowledgebaseId, { title: "Backup handbook", markdown: HANDBOOK });
    const appId = await oneAgentApp(
      key,
      { name: "Backup helper", description: "Questions about Acme Cloud Backup", knowledge: [{ knowledgebaseId }] },
      { name: "Backup desk", orchestrationMode: "supervisor" },
    );
    const response = await converse(key, appId, { message: "How do I cancel my subscription?" });
    expect(response.status, response.text).toBe(200);
    const reply = response.body.reply as string;
    expect(reply).toContain("You can cancel at any time from Settings");
    expect(reply).toContain("kept for 30 days after you cancel");
    expect(reply).not.toMatch(/Restore|AES|Starter|\$18/);
    expectNoHeading(reply);
    expect(reply).not.toContain("How do I cancel my subscription");
  });
});
