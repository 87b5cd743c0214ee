// The links of a fetched page, for a crawl: the anchors of an HTML page, or the <loc> entries of
// a sitemap, resolved against the page's URL, http(s) only, without fragments, each once. Runs in
// the extraction child (untrusted markup is parsed there). The sitemap's scan is a pass of
// indexOf, linear in its length.

/** More links than a crawl of at most 500 pages could use, and a bound on what one page costs. */
export const MAX_LINKS_PER_PAGE = 5_000;

function resolved(href: string, base: string): string | null {
  try {
    const url = new URL(href.trim(), base);
    if (url.protocol !== "http:" && url.protocol !== "https:") return null;
    url.hash = "";
    return url.href;
  } catch {
    return null;
  }
}

function unique(urls: (string | null)[]): string[] {
  return [...new Set(urls.filter((url): url is string => url !== null))].slice(0, MAX_LINKS_PER_PAGE);
}

/** True for a sitemap (`<urlset>` or `<sitemapindex>`), by its opening. */
export function isSitemap(text: string): boolean {
  const opening = text.slice(0, 2048);
  return opening.includes("<urlset") || opening.includes("<sitemapindex");
}

export function sitemapLinks(xml: string, base: string): string[] {
  const found: (string | null)[] = [];
  for (let at = xml.indexOf("<loc>"); at >= 0 && found.length < MAX_LINKS_PER_PAGE; at = xml.indexOf("<loc>", at)) {
    const end = xml.indexOf("</loc>", at);
    if (end < 0) break;
    const text = xml
      .slice(at + 5, end)
      .replace(/&amp;/g, "&")
      .trim();
    found.push(resolved(text, base));
    at = end;
  }
  return unique(found);
}

export async function htmlLinks(html: string, base: string): Promise<string[]> {
  const { parseHTML } = await import("linkedom");
  const { document } = parseHTML(html);
  const baseHref = document.querySelector("base[href]")?.getAttribute("href");
  const from = (baseHref && resolved(baseHref, base)) || base;
  const anchors = [...document.querySelectorAll("a[href]")].slice(0, MAX_LINKS_PER_PAGE * 2);
  return unique(anchors.map((anchor) => resolved(anchor.getAttribute("href") ?? "", from)));
}
