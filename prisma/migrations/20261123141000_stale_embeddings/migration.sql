-- Hybrid search (issue 18): a page's vector goes the moment its content changes, so that search
-- never ranks the new text by the old text's vector; the embedding worker embeds it again.
-- (A document's chunks are replaced when it is indexed again, and their vectors go with them.)
CREATE FUNCTION "atrium_page_content_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "embeddings" WHERE "page_id" = NEW."id";
  RETURN NULL;
END $$;
CREATE TRIGGER "pages_embedding_stale" AFTER UPDATE OF "title", "markdown" ON "pages"
  FOR EACH ROW WHEN (OLD."title" IS DISTINCT FROM NEW."title" OR OLD."markdown" IS DISTINCT FROM NEW."markdown")
  EXECUTE FUNCTION "atrium_page_content_changed"();
