"use client";
import { ArrowDown, ArrowUp, ArrowUpDown } from "lucide-react";
import { Fragment, useState, type ReactNode } from "react";
import { ErrorAlert } from "./error-alert";
import { LoadMore } from "./load-more";
import type { CursorList } from "./use-cursor-list";

export interface Column<Row> {
  /** Unique per table; also the sort key's name. */
  key: string;
  header: ReactNode;
  cell: (row: Row) => ReactNode;
  /** Makes the column sortable by this value. */
  sortValue?: (row: Row) => string | number | null | undefined;
  /** Keeps the cell on one line (dates, counts, actions). */
  nowrap?: boolean;
  /** With `cards`: the cell's name on a phone, where the header row is hidden (the header when it is text). */
  label?: string;
}

/** The key, header and sort of the Name column a list of named things opens with: `{ ...NAME_COLUMN, cell }`. */
export const NAME_COLUMN = { key: "name", header: "Name", sortValue: (row: { name: string }) => row.name };

/** A name cell: the name, and below it the identifier it is used by (a slug, a model id) and what `children` add. */
export function NameWithCode({ name, code, children }: { name: ReactNode; code: string; children?: ReactNode }) {
  return (
    <>
      {name}
      <div className="muted">
        <code>{code}</code>
        {children}
      </div>
    </>
  );
}

type Sort = { key: string; direction: "ascending" | "descending" };

function compare(a: string | number | null | undefined, b: string | number | null | undefined): number {
  if (a == null) return b == null ? 0 : 1;
  if (b == null) return -1;
  if (typeof a === "number" && typeof b === "number") return a - b;
  return String(a).localeCompare(String(b), undefined, { numeric: true, sensitivity: "base" });
}

/** A row's React key: required unless rows have an `id`, which is the default. */
type RowKey<Row> = [Row] extends [{ id: string }]
  ? { rowKey?: (row: Row) => string }
  : { rowKey: (row: Row) => string };

interface TableProps<Row> {
  /** Names the table for assistive technology. */
  label: string;
  columns: Column<Row>[];
  /** Nothing is drawn while undefined (not loaded yet). */
  rows: Row[] | undefined;
  /** Shown instead of the table when there are no rows. */
  empty: ReactNode;
  /** The rows' data-testid: one for all, or each row's own. */
  rowTestId?: string | ((row: Row) => string);
  initialSort?: Sort;
  /** On a phone, each row as a card of labelled cells instead of a row that scrolls sideways (for long values such as emails). */
  cards?: boolean;
  /** A row's opened detail (a trace, a result), shown under it across every column; null when closed. */
  detail?: (row: Row) => ReactNode;
  rowKey?: (row: Row) => string;
}

export type DataTableProps<Row> = Omit<TableProps<Row>, "rowKey"> & RowKey<Row>;

const idOf = (row: unknown) => (row as { id: string }).id;

/**
 * A table that sorts by its sortable columns, says so when it is empty, and scrolls sideways
 * inside its own box on a narrow screen (the box is focusable so keyboards can scroll it).
 */
export const DataTable: <Row>(props: DataTableProps<Row>) => ReactNode = Table;

/**
 * A cursor list (use-cursor-list.ts) as a table: "Loading…" until its first page, its error, its
 * rows once loaded and "Load more" while pages remain.
 */
export function ListTable<Row>({ list, ...table }: { list: CursorList<Row> } & Omit<DataTableProps<Row>, "rows">) {
  return (
    <>
      {list.isLoading && <p className="muted">Loading…</p>}
      <ErrorAlert error={list.error} />
      <Table {...(table as Omit<TableProps<Row>, "rows">)} rows={list.isLoaded ? list.items : undefined} />
      <LoadMore list={list} />
    </>
  );
}

function Table<Row>({
  label,
  columns,
  rows,
  rowKey = idOf,
  empty,
  rowTestId,
  initialSort,
  cards = false,
  detail,
}: TableProps<Row>) {
  const [sort, setSort] = useState<Sort | undefined>(initialSort);
  if (!rows) return null;
  if (rows.length === 0) return <p className="table-empty">{empty}</p>;

  const sortColumn = sort && columns.find((column) => column.key === sort.key);
  const sorted = sortColumn?.sortValue
    ? [...rows].sort(
        (a, b) =>
          compare(sortColumn.sortValue!(a), sortColumn.sortValue!(b)) * (sort!.direction === "ascending" ? 1 : -1),
      )
    : rows;

  function toggle(key: string) {
    setSort((current) =>
      current?.key === key && current.direction === "ascending"
        ? { key, direction: "descending" }
        : { key, direction: "ascending" },
    );
  }

  return (
    <div className={cards ? "table-scroll table-cards" : "table-scroll"} role="region" aria-label={label} tabIndex={0}>
      <table>
        <thead>
          <tr>
            {columns.map((column) => {
              const active = sort?.key === column.key ? sort.direction : undefined;
              const Arrow = active === "ascending" ? ArrowUp : active === "descending" ? ArrowDown : ArrowUpDown;
              return (
                <th key={column.key} scope="col" aria-sort={active ?? (column.sortValue ? "none" : undefined)}>
                  {column.sortValue ? (
                    <button type="button" className="sort" onClick={() => toggle(column.key)}>
                      {column.header}
                      <Arrow size={14} aria-hidden className="icon" />
                    </button>
                  ) : (
                    column.header
                  )}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>
          {sorted.map((row) => {
            const opened = detail?.(row);
            return (
              <Fragment key={rowKey(row)}>
                <tr data-testid={typeof rowTestId === "function" ? rowTestId(row) : rowTestId}>
                  {columns.map((column) => (
                    <td
                      key={column.key}
                      className={column.nowrap ? "nowrap" : undefined}
                      data-label={column.label ?? (typeof column.header === "string" ? column.header : undefined)}
                    >
                      {column.cell(row)}
                    </td>
                  ))}
                </tr>
                {opened != null && opened !== false && (
                  <tr className="row-detail">
                    <td colSpan={columns.length}>{opened}</td>
                  </tr>
                )}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
