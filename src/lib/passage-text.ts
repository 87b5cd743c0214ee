// A passage's text as a list of results shows it: the markdown heading marks it was written
// with ("## Returns") dropped, as the page a reader opens does not show them either.

/** "Shipping ## Returns Returned parcels" → "Shipping Returns Returned parcels"; "#1" and "C#" stay. */
export function withoutHeadingMarks(text: string): string {
  return text.replace(/(^|\s)#{1,6}(?=\s)/g, "$1");
}
