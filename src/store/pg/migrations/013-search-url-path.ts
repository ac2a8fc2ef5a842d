// The URL path as a search field, as SQLite migration 23: pages.path_words (and page_index_pending's, for a crawl's
// writes), indexed in the vector's B part with the headings (a page's address names it as a heading names a part).
// The stored pages' words are computed in JS, not here (one definition: search-index/path-words.ts): the store's open
// fills every page whose path_words is still NULL (path-words-fill.ts), and the vector follows through the trigger,
// which then swaps only the B part (the content is not read again).
import type { PgMigration } from './index.js';
import { VECTOR_CONTENT_CHARS } from './001-schema-with-tsvector-search.js';

export const migration: PgMigration = {
  version: 13,
  name: 'the URL path as a search field',
  sql: `
ALTER TABLE pages ADD COLUMN path_words text COLLATE "C";
ALTER TABLE page_index_pending ADD COLUMN path_words text COLLATE "C";

-- The vector's B part: the page's headings and the words of its address.
CREATE FUNCTION svc_page_b_part(cfg regconfig, headings text, path_words text) RETURNS tsvector
LANGUAGE sql IMMUTABLE AS $$
  SELECT setweight(to_tsvector(cfg, COALESCE(headings, '')) || to_tsvector(cfg, COALESCE(path_words, '')), 'B')
$$;

CREATE FUNCTION svc_page_vector(cfg regconfig, title text, superwords text, headings text, path_words text, tags text, content text) RETURNS tsvector
LANGUAGE sql IMMUTABLE AS $$
  SELECT setweight(to_tsvector(cfg, title || ' ' || superwords), 'A')
      || svc_page_b_part(cfg, headings, path_words)
      || setweight(to_tsvector(cfg, replace(replace(tags, '/', ' '), '_', ' ')), 'C')
      || setweight(to_tsvector(cfg, left(content, ${VECTOR_CONTENT_CHARS})), 'D')
$$;

CREATE OR REPLACE FUNCTION pages_vector_follow() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND OLD.indexed IS NOT DISTINCT FROM NEW.indexed AND OLD.show_in_search IS NOT DISTINCT FROM NEW.show_in_search
     AND OLD.title IS NOT DISTINCT FROM NEW.title AND OLD.language IS NOT DISTINCT FROM NEW.language
     AND OLD.superwords IS NOT DISTINCT FROM NEW.superwords AND OLD.tags IS NOT DISTINCT FROM NEW.tags
     AND OLD.content IS NOT DISTINCT FROM NEW.content THEN
    -- Only the address's words changed (the open filling them): the B part alone is made again.
    IF OLD.path_words IS DISTINCT FROM NEW.path_words AND NEW.search_vector IS NOT NULL THEN
      NEW.search_vector := ts_filter(NEW.search_vector, '{a,c,d}')
        || svc_page_b_part(NEW.search_config, (SELECT headings FROM page_headings WHERE page_id = NEW.id), NEW.path_words);
    END IF;
    RETURN NEW;
  END IF;
  -- An upsert of a stored page proposes an insert first: its update (above) decides, so nothing is computed twice.
  IF TG_OP = 'INSERT' AND EXISTS (SELECT 1 FROM pages WHERE url = NEW.url) THEN
    RETURN NEW;
  END IF;
  IF NEW.indexed = 1 AND NEW.show_in_search = 1 THEN
    NEW.search_config := svc_ts_config(NEW.language);
    NEW.search_vector := svc_page_vector(NEW.search_config, NEW.title, NEW.superwords,
      (SELECT headings FROM page_headings WHERE page_id = NEW.id), NEW.path_words, NEW.tags, NEW.content);
    NEW.search_title := setweight(to_tsvector(NEW.search_config, NEW.title || ' ' || NEW.superwords), 'A');
    IF NOT EXISTS (SELECT 1 FROM search_configs WHERE config = NEW.search_config) THEN
      INSERT INTO search_configs (config) VALUES (NEW.search_config) ON CONFLICT DO NOTHING;
    END IF;
  ELSE
    NEW.search_config := NULL;
    NEW.search_vector := NULL;
    NEW.search_title := NULL;
  END IF;
  RETURN NEW;
END $$;

CREATE OR REPLACE FUNCTION page_headings_follow() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  pid bigint := CASE WHEN TG_OP = 'DELETE' THEN OLD.page_id ELSE NEW.page_id END;
  h text := CASE WHEN TG_OP = 'DELETE' THEN NULL ELSE NEW.headings END;
BEGIN
  UPDATE pages SET search_vector = ts_filter(search_vector, '{a,c,d}') || svc_page_b_part(search_config, h, path_words)
  WHERE id = pid AND search_vector IS NOT NULL;
  RETURN NULL;
END $$;
`,
};
