// robots.txt (RFC 9309) for crawls: the group for our user agent ("AtriumFetcher"), else the
// group for "*"; the longest matching Allow or Disallow wins, Allow on a tie; `*` and `$` in
// paths. Parsed line by line, and paths matched without regular expressions: linear in the file.

const AGENT = "atriumfetcher";

interface Rule {
  allow: boolean;
  path: string;
}

/** The rules that apply to us from a robots.txt. */
export function robotsRules(text: string): Rule[] {
  const groups: { agents: string[]; rules: Rule[] }[] = [];
  let current: { agents: string[]; rules: Rule[] } | null = null;
  for (const raw of text.split("\n")) {
    const line = raw.split("#", 1)[0]!.trim();
    const colon = line.indexOf(":");
    if (colon < 0) continue;
    const field = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (field === "user-agent") {
      if (!current || current.rules.length > 0) groups.push((current = { agents: [], rules: [] }));
      current.agents.push(value.toLowerCase());
    } else if ((field === "allow" || field === "disallow") && current) {
      // An empty Disallow allows everything: no rule.
      if (value) current.rules.push({ allow: field === "allow", path: value });
    }
  }
  const ours = groups.filter((group) => group.agents.some((agent) => agent !== "*" && AGENT.startsWith(agent)));
  const chosen = ours.length > 0 ? ours : groups.filter((group) => group.agents.includes("*"));
  return chosen.flatMap((group) => group.rules);
}

/** True when `path` (with its query) matches a rule's pattern: `*` any run of characters, `$` the end. */
function matches(pattern: string, path: string): boolean {
  const anchored = pattern.endsWith("$");
  const parts = (anchored ? pattern.slice(0, -1) : pattern).split("*");
  if (!path.startsWith(parts[0]!)) return false;
  let at = parts[0]!.length;
  for (let i = 1; i < parts.length; i++) {
    const part = parts[i]!;
    const found = i === parts.length - 1 && anchored ? path.length - part.length : path.indexOf(part, at);
    if (found < at || !path.startsWith(part, found)) return false;
    at = found + part.length;
  }
  return !anchored || at === path.length;
}

/** Whether the rules let us fetch the URL. */
export function robotsAllow(rules: readonly Rule[], url: string): boolean {
  const { pathname, search } = new URL(url);
  const path = pathname + search;
  let best: Rule | null = null;
  for (const rule of rules) {
    if (!matches(rule.path, path)) continue;
    if (!best || rule.path.length > best.path.length || (rule.path.length === best.path.length && rule.allow))
      best = rule;
  }
  return best?.allow ?? true;
}
