// A console page's heading: an end user's email, its page title, wraps on a phone after the "@"
// instead of mid-word.
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { PageHeader } from "@/components/console";

function heading(title: string): string {
  return /<h1[^>]*>(.*?)<\/h1>/.exec(renderToStaticMarkup(createElement(PageHeader, { title })))![1]!;
}

describe("PageHeader", () => {
  it("offers a line break right after an email's @, and nowhere in other titles", () => {
    expect(heading("alexandrahamilton@customersupport.example")).toBe(
      "alexandrahamilton@<wbr/>customersupport.example",
    );
    expect(heading("Billing agent")).toBe("Billing agent");
    expect(heading("@handle")).toBe("@handle");
  });
});
