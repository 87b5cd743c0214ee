/** A stored time in the reader's locale, or "never" for one that has not happened (a key never used). */
export function timeOrNever(value: string | null): string {
  return value ? new Date(value).toLocaleString() : "never";
}
