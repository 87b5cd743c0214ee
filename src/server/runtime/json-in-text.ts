// Models answer in text; these find the JSON value a reply holds, if any.

/** The first JSON object or array in the text, parsed; undefined when there is none. */
export function jsonIn(text: string): unknown {
  const match = /[[{][\s\S]*[\]}]/.exec(text);
  if (!match) return undefined;
  try {
    return JSON.parse(match[0]) as unknown;
  } catch {
    return undefined;
  }
}

/** The JSON object the text holds, if it holds one. */
export function jsonObjectIn(text: string): Record<string, unknown> | undefined {
  const value = jsonIn(text);
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
