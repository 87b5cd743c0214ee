-- A snippet marks the question's words **like this**. A passage's own markdown bold ("**Note**")
-- read as a match in every client that splits on the marks, so the passage's own "**" are dropped
-- before the snippet is chosen: the reader of the rendered page sees no asterisks there either.
-- Otherwise as in 20261204180000_linear_text_search.
CREATE OR REPLACE FUNCTION "atrium_headline"(config regconfig, body text, query tsquery, options text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path FROM CURRENT AS $$
  SELECT translate(ts_headline(config, atrium_search_text(replace(left(body, 65536), '**', '')), query, options), U&'\E000' || chr(11), '<')
$$;
