// Pieces of SQL for hot reads that build their answer as JSON in PostgreSQL.

/** A timestamptz column as JavaScript's toISOString() writes it (null stays null). */
export const isoUtc = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
