/**
 * Migration 4's SQL: rows stop carrying copies of what their line already holds. `prev` and `hash`
 * were two 64-character hex texts per row, written beside the canonical line that contains both
 * (and that reads return and `verify` hashes); together they were an eighth of a row's bytes on
 * disk and in the WAL, and a batch append is bound by those bytes (one commit flushes them). They
 * become optional: `baton_append` leaves them NULL, rows written before keep theirs, and `verify`
 * still compares them with the line wherever they are present. The chain itself is unchanged: the
 * head row holds the last hash, each line holds its `prev` and `hash`, and the function still
 * requires each line to be exactly the canonical envelope of its columns, with seq and prev derived
 * from the locked head (head + position, the hash before).
 *
 * The unique index on (workspace, id) goes too: it cost every row an index entry (about a tenth of
 * its WAL) to guard what the contract already makes true by order: ids sort in seq order. The
 * function now requires it of every batch: each id greater than the one before it, the first
 * greater than the head's last id (when that is a ULID: a log imported from elsewhere may end in
 * another kind of id, which a new ULID cannot collide with). Strictly increasing ids are distinct,
 * so no appended id repeats one before it, without an index to look it up.
 *
 * The function keeps migration 3's signature (a Baton of migration 3's shape calls it unchanged)
 * and its steps, answers and guarantees. One more change inside: each row's `prev` comes from the
 * hashes shifted by one position (one array, unnested beside the others) instead of a subscript of
 * the hash array per row, which walks the array from its start every time; and the rows inserted are counted by the executor
 * (ROW_COUNT) instead of being returned into a tuple store and counted; and each row's stream
 * takes its current version by lookup instead of a join that hashed the batch's wide rows.
 *
 * Released SQL: never edit it; a change is a new migration.
 */
export const APPEND_FUNCTION_V4_SQL = `
ALTER TABLE baton_events ALTER COLUMN prev DROP NOT NULL, ALTER COLUMN hash DROP NOT NULL;
COMMENT ON COLUMN baton_events.prev IS 'Since migration 4 NULL on appended rows: the line holds prev (line::jsonb->>''prev'').';
COMMENT ON COLUMN baton_events.hash IS 'Since migration 4 NULL on appended rows: the line holds hash (line::jsonb->>''hash''); the head row holds the last one.';
ALTER TABLE baton_events DROP CONSTRAINT baton_events_workspace_id_id_key;

CREATE OR REPLACE FUNCTION baton_append(
  p_workspace text,
  p_head_seq bigint,
  p_head_hash text,
  p_key text,
  p_digest text,
  p_expected_streams text[],
  p_expected_versions integer[],
  p_lines text,
  p_ids text,
  p_types text,
  p_streams text,
  p_ats text,
  p_actors text,
  p_data text,
  p_hashes text,
  p_channel text,
  OUT status text,
  OUT head_seq bigint,
  OUT head_hash text,
  OUT head_last_id text,
  OUT lines text[],
  OUT conflict_stream text,
  OUT conflict_actual integer
) LANGUAGE plpgsql VOLATILE
SET plan_cache_mode = force_generic_plan
AS $fn$
DECLARE
  v_head baton_heads%ROWTYPE;
  v_key baton_idempotency%ROWTYPE;
  v_ids text[];
  v_hashes text[];
  v_streams text[];
  v_n integer;
  v_tail text;
  v_opening text;
  v_batch_end bigint;
  v_inserted integer;
BEGIN
  SELECT * INTO v_head FROM baton_heads WHERE workspace_id = p_workspace FOR UPDATE;
  IF NOT FOUND THEN
    INSERT INTO baton_heads (workspace_id, seq, hash) VALUES (p_workspace, 0, repeat('0', 64)) ON CONFLICT DO NOTHING;
    SELECT * INTO v_head FROM baton_heads WHERE workspace_id = p_workspace FOR UPDATE;
  END IF;
  head_seq := v_head.seq;
  head_hash := v_head.hash;
  head_last_id := v_head.last_id;

  IF p_key IS NOT NULL THEN
    SELECT * INTO v_key FROM baton_idempotency WHERE workspace_id = p_workspace AND key = p_key;
    IF FOUND THEN
      IF v_key.digest <> p_digest THEN
        status := 'idempotency_conflict';
        RETURN;
      END IF;
      SELECT array_agg(e.line ORDER BY e.seq) INTO lines FROM baton_events e
        WHERE e.workspace_id = p_workspace AND e.seq BETWEEN v_key.first_seq AND v_key.last_seq;
      status := 'deduplicated';
      RETURN;
    END IF;
  END IF;

  SELECT c.stream, c.actual INTO conflict_stream, conflict_actual
  FROM (
    SELECT x.stream, x.expected, x.i,
      coalesce((SELECT e.stream_version FROM baton_events e
                WHERE e.workspace_id = p_workspace AND e.stream = x.stream
                ORDER BY e.stream_version DESC LIMIT 1), 0) AS actual
    FROM unnest(p_expected_streams, p_expected_versions) WITH ORDINALITY AS x(stream, expected, i)
  ) c
  WHERE NOT (CASE WHEN c.expected < 0 THEN c.actual > 0 ELSE c.actual = c.expected END)
  ORDER BY c.i LIMIT 1;
  IF FOUND THEN
    status := 'conflict';
    RETURN;
  END IF;

  IF v_head.seq <> p_head_seq OR v_head.hash <> p_head_hash THEN
    status := 'moved';
    RETURN;
  END IF;

  v_ids := string_to_array(p_ids, E'\\n');
  v_hashes := string_to_array(p_hashes, E'\\n');
  v_streams := string_to_array(p_streams, E'\\n');
  v_n := cardinality(v_ids);
  v_batch_end := CASE WHEN v_n > 1 THEN v_head.seq + v_n END;
  -- The envelope version opens every line; taken from the first and required of all, so the
  -- per-row check below is one string equality with no character walking.
  v_opening := substr(p_lines, 1, strpos(p_lines, ',"seq":') - 1);
  IF v_opening !~ '^\\{"v":[0-9]+$' THEN
    RAISE EXCEPTION 'baton_append: the first line does not open with an envelope version';
  END IF;
  -- Ids ascend with seq (which makes them unique): each after the one before it, the first after
  -- the head's last id unless that is not a ULID (an imported log's own kind of id).
  IF EXISTS (
    SELECT 1 FROM unnest(v_ids, array_prepend(v_head.last_id, v_ids[1:v_n - 1])) WITH ORDINALITY AS x(id, before, i)
    WHERE x.id COLLATE "C" <= x.before COLLATE "C" AND (x.i > 1 OR x.before ~ '^[0-9A-HJKMNP-TV-Z]{26}$')
  ) THEN
    RAISE EXCEPTION 'baton_append: event ids must ascend with seq (after %)', v_head.last_id;
  END IF;
  v_tail := coalesce(',"idempotency_key":' || to_json(p_key)::text, '') || coalesce(',"batch_end":' || v_batch_end, '') || ',"prev":"';

  WITH r AS (
    SELECT v_head.seq + u.i AS seq, u.id, u.type, u.stream, u.at, u.actor, u.data, u.line, u.hash, u.prev
    FROM unnest(v_ids, string_to_array(p_types, E'\\n'), v_streams, string_to_array(p_ats, E'\\n'),
                string_to_array(p_actors, E'\\n'), string_to_array(p_data, E'\\n'), string_to_array(p_lines, E'\\n'), v_hashes,
                -- Each row's prev: the head's hash, then every hash of the batch but its last.
                array_prepend(v_head.hash, v_hashes[1:v_n - 1]))
      WITH ORDINALITY AS u(id, type, stream, at, actor, data, line, hash, prev, i)
  ), current_version AS MATERIALIZED (
    SELECT s.stream,
      coalesce((SELECT e.stream_version FROM baton_events e
                WHERE e.workspace_id = p_workspace AND e.stream = s.stream
                ORDER BY e.stream_version DESC LIMIT 1), 0) AS version
    FROM (SELECT DISTINCT stream FROM unnest(v_streams) AS s(stream)) s
  )
  INSERT INTO baton_events (workspace_id, seq, id, type, stream, stream_version, at, actor, data, idempotency_key, batch_end, line)
    SELECT p_workspace, r.seq, r.id, r.type, r.stream,
      (SELECT cv.version FROM current_version cv WHERE cv.stream = r.stream) + row_number() OVER (PARTITION BY r.stream ORDER BY r.seq),
      r.at::timestamptz, r.actor::json #>> '{}', r.data::jsonb, p_key, v_batch_end, r.line
    -- The stream's current version looked up per row (a few streams at most), not joined: a join
    -- hashed the batch's wide rows to match them with a handful of versions.
    FROM r
    -- Every column is the line's own: the line must be exactly the canonical envelope of them.
    WHERE r.line = v_opening || ',"seq":' || r.seq || ',"id":"' || r.id || '","type":"' || r.type
      || '","stream":"' || r.stream || '","at":"' || r.at || '","actor":' || r.actor || ',"data":' || r.data
      || v_tail || r.prev || '","hash":"' || r.hash || '"}';
  -- Counted by the executor, not by returning each row into a tuple store and counting those.
  GET DIAGNOSTICS v_inserted = ROW_COUNT;
  IF v_inserted <> v_n THEN
    RAISE EXCEPTION 'baton_append: % of % lines do not match their columns at seq %', v_n - v_inserted, v_n, v_head.seq;
  END IF;

  head_seq := v_head.seq + v_n;
  head_hash := v_hashes[v_n];
  head_last_id := v_ids[v_n];
  UPDATE baton_heads SET seq = head_seq, hash = head_hash, last_id = head_last_id
    WHERE workspace_id = p_workspace;
  IF p_key IS NOT NULL THEN
    INSERT INTO baton_idempotency (workspace_id, key, digest, first_seq, last_seq)
      VALUES (p_workspace, p_key, p_digest, v_head.seq + 1, head_seq);
  END IF;
  PERFORM pg_notify(p_channel, head_seq::text);
  status := 'written';
END
$fn$;
`;
