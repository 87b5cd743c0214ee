-- Text search in linear time (issue 44). PostgreSQL's default text-search parser backtracks: a
-- "<" that may open a tag or comment ("<!--") is scanned to the end of the text whenever the tag
-- never closes, and a run of characters without a space ("a@1a@1…", "a_a_…", "./././…") is
-- scanned again from each of its words. Both are quadratic: 200 KB of "<!--" took 169 s, 16 KB of
-- "a@1" 8 to 38 s. Every text handed to the parser (the generated tsvectors, the question, the
-- headline) first goes through atrium_search_text, one pass in C-implemented functions:
-- - "<" becomes U+E000 (private use, a separator to the parser, like "<" outside a tag), so no
--   tag or comment is ever opened: markup is indexed as words;
-- - a vertical tab (a space to the parser) follows every 32 characters of a run without
--   whitespace, so no scan goes further than 32 characters. Longer words, URLs and paths are
--   indexed in pieces.
-- The stored text is unchanged; snippets map both marks back (atrium_headline).
CREATE FUNCTION "atrium_search_text"(body text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT regexp_replace(translate(body, '<', U&'\E000'), '[^ \t\n\r\f\v]{32}', '\&' || chr(11), 'g')
$$;

-- A tsvector holds at most 1 MB: a page of a million characters of distinct words is more. The
-- text's opening is indexed then (halved until it fits: at most twice the work), never an error.
-- The functions that call atrium_search_text keep the search path they were made with, so that a
-- restore (pg_dump empties the search path) recomputes the generated columns. The exception block
-- is a subtransaction, which PostgreSQL before 17 refuses in parallel mode: restricted to the leader.
CREATE FUNCTION "atrium_tsvector"(config regconfig, body text) RETURNS tsvector LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL RESTRICTED
SET search_path FROM CURRENT AS $$
DECLARE
  searched text := atrium_search_text(body);
BEGIN
  LOOP
    BEGIN
      RETURN to_tsvector(config, searched);
    EXCEPTION WHEN program_limit_exceeded THEN
      searched := left(searched, length(searched) / 2);
    END;
  END LOOP;
END $$;

-- The best fragments of a passage's first 65,536 characters, in its own characters.
CREATE FUNCTION "atrium_headline"(config regconfig, body text, query tsquery, options text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path FROM CURRENT AS $$
  SELECT translate(ts_headline(config, atrium_search_text(left(body, 65536)), query, options), U&'\E000' || chr(11), '<')
$$;

-- A chunk's heading path is repeated on each of its document's chunks: its first 1,000
-- characters weigh as a heading, so a document with a huge heading is not parsed once per chunk.

DROP INDEX "source_chunks_opening_tsv_idx";
DROP INDEX "source_chunks_tsv_idx";
ALTER TABLE "source_chunks" DROP COLUMN "tsv";
ALTER TABLE "source_chunks" ADD COLUMN "tsv" tsvector GENERATED ALWAYS AS (
  setweight(atrium_tsvector("ts_config", left("heading", 1000)), 'A') || setweight(atrium_tsvector("ts_config", "text"), 'B')
) STORED;
CREATE INDEX "source_chunks_tsv_idx" ON "source_chunks" USING GIN ("tsv");
CREATE INDEX "source_chunks_opening_tsv_idx" ON "source_chunks" USING GIN ("tsv") WHERE "position" = 0;

DROP INDEX "pages_tsv_idx";
ALTER TABLE "pages" DROP COLUMN "tsv";
ALTER TABLE "pages" ADD COLUMN "tsv" tsvector GENERATED ALWAYS AS (
  setweight(atrium_tsvector("ts_config", coalesce("title", '')), 'A') || setweight(atrium_tsvector("ts_config", coalesce("markdown", '')), 'B')
) STORED;
CREATE INDEX "pages_tsv_idx" ON "pages" USING GIN ("tsv");
