-- atrium_search_text (20261204180000_linear_text_search) breaks runs of 32 characters without
-- whitespace with a regular expression. A text of fewer than 32 bytes holds no such run, and most
-- texts it reads are that short: a question's words, synonyms and light words, titles and chunk
-- headings, some thirty a search. Those now skip the expression (BENCHMARKS.md, 2026-12-07). The
-- text it returns is the same for every input. Not STRICT: PostgreSQL inlines a strict SQL
-- function only when its body is strict too, and a CASE is not; a null still gives null.
CREATE OR REPLACE FUNCTION "atrium_search_text"(body text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN octet_length(body) < 32 THEN translate(body, '<', U&'\E000')
    ELSE regexp_replace(translate(body, '<', U&'\E000'), '[^ \t\n\r\f\v]{32}', '\&' || chr(11), 'g') END
$$;
