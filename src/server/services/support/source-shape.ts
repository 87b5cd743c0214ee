// A source as the REST API shows it, from its row: shared by the sources service and the
// indexing worker (whose webhook events carry it) without either importing the other.
import type { Source } from "@/schemas/knowledge/source";
import { pick } from "@/lib/pick";

export type SourceRow = {
  id: string;
  name: string;
  type: string;
  status: string;
  searchable: boolean;
  disabled: boolean;
  url: string | null;
  sizeBytes: number;
  errorMessage: string | null;
  createdVia: string;
  createdAt: Date;
  updatedAt: Date;
  refresh: string | null;
  checkedAt: Date | null;
  refreshError: string | null;
  crawlId: string | null;
};

export function toSource(row: SourceRow): Source {
  return {
    ...pick(row, ["id", "name", "type"]),
    status: row.status as Source["status"],
    ...pick(row, ["searchable", "disabled"]),
    url: row.url ?? "",
    updatedAt: row.updatedAt.toISOString(),
    createdAt: row.createdAt.toISOString(),
    sizeBytes: row.sizeBytes,
    errorMessage: row.errorMessage ?? "",
    createdVia: row.createdVia,
    refresh: row.refresh === "daily" || row.refresh === "weekly" ? row.refresh : null,
    checkedAt: row.checkedAt?.toISOString() ?? null,
    refreshError: row.refreshError ?? "",
    crawlId: row.crawlId,
  };
}
