-- Retrieval (issue 18): a text-search configuration per knowledgebase, heading paths on chunks.

-- The knowledgebase's language picks the PostgreSQL text-search configuration ("simple" for
-- mixed languages: no stemming, no stop words).
ALTER TABLE "knowledgebases" ADD COLUMN "language" TEXT NOT NULL DEFAULT 'english';
ALTER TABLE "knowledgebases" ADD CONSTRAINT "knowledgebases_language_check" CHECK ("language" IN (
  'simple', 'arabic', 'armenian', 'basque', 'catalan', 'danish', 'dutch', 'english', 'finnish', 'french', 'german',
  'greek', 'hindi', 'hungarian', 'indonesian', 'irish', 'italian', 'lithuanian', 'nepali', 'norwegian', 'portuguese',
  'romanian', 'russian', 'serbian', 'spanish', 'swedish', 'tamil', 'turkish', 'yiddish'));

-- Where a chunk sits in its document: the headings above it, joined by " > ".
ALTER TABLE "source_chunks" ADD COLUMN "heading" TEXT NOT NULL DEFAULT '';

-- Each indexed row carries its knowledgebase's configuration so that its generated tsvector can
-- use it (a generated column may only read its own row). Not in schema.prisma: PostgreSQL-only,
-- like the tsv columns. A trigger fills it on insert; changing a knowledgebase's language rewrites
-- its rows, which recomputes their tsvectors.
ALTER TABLE "pages" ADD COLUMN "ts_config" regconfig NOT NULL DEFAULT 'english';
ALTER TABLE "source_chunks" ADD COLUMN "ts_config" regconfig NOT NULL DEFAULT 'english';

CREATE FUNCTION "atrium_ts_config_of_knowledgebase"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW."ts_config" := (SELECT "language"::regconfig FROM "knowledgebases" WHERE "id" = NEW."knowledgebase_id");
  RETURN NEW;
END $$;
CREATE TRIGGER "pages_ts_config" BEFORE INSERT OR UPDATE OF "knowledgebase_id" ON "pages"
  FOR EACH ROW EXECUTE FUNCTION "atrium_ts_config_of_knowledgebase"();
CREATE TRIGGER "source_chunks_ts_config" BEFORE INSERT OR UPDATE OF "knowledgebase_id" ON "source_chunks"
  FOR EACH ROW EXECUTE FUNCTION "atrium_ts_config_of_knowledgebase"();

CREATE FUNCTION "atrium_knowledgebase_language_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "pages" SET "ts_config" = NEW."language"::regconfig WHERE "knowledgebase_id" = NEW."id";
  UPDATE "source_chunks" SET "ts_config" = NEW."language"::regconfig WHERE "knowledgebase_id" = NEW."id";
  RETURN NEW;
END $$;
CREATE TRIGGER "knowledgebases_language" AFTER UPDATE OF "language" ON "knowledgebases"
  FOR EACH ROW WHEN (OLD."language" IS DISTINCT FROM NEW."language") EXECUTE FUNCTION "atrium_knowledgebase_language_changed"();

-- The tsvectors follow the row's configuration; headings (and page titles) weigh A, text B.
DROP INDEX "source_chunks_tsv_idx";
ALTER TABLE "source_chunks" DROP COLUMN "tsv";
ALTER TABLE "source_chunks" ADD COLUMN "tsv" tsvector GENERATED ALWAYS AS (
  setweight(to_tsvector("ts_config", "heading"), 'A') || setweight(to_tsvector("ts_config", "text"), 'B')
) STORED;
CREATE INDEX "source_chunks_tsv_idx" ON "source_chunks" USING GIN ("tsv");

DROP INDEX "pages_tsv_idx";
ALTER TABLE "pages" DROP COLUMN "tsv";
ALTER TABLE "pages" ADD COLUMN "tsv" tsvector GENERATED ALWAYS AS (
  setweight(to_tsvector("ts_config", coalesce("title", '')), 'A') || setweight(to_tsvector("ts_config", coalesce("markdown", '')), 'B')
) STORED;
CREATE INDEX "pages_tsv_idx" ON "pages" USING GIN ("tsv");

-- Existing documents keep their chunks (no heading path) until they are indexed again; the
-- chunker that follows markdown headings applies from the next indexing of each source.
