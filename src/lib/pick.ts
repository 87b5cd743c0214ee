/**
 * The named fields of an object, copied: a mapper that keeps some fields as they are (a row's
 * columns in its API shape, a record's fields in a form) names them once instead of writing
 * `name: row.name` for each. What it computes or renames it writes beside: `{ ...pick(row, [...]), createdAt: … }`.
 */
export function pick<T extends object, K extends keyof T>(from: T, keys: readonly K[]): Pick<T, K> {
  const picked = {} as Pick<T, K>;
  for (const key of keys) picked[key] = from[key];
  return picked;
}
