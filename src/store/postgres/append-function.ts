/**
 * Migration 2's SQL: `baton_append`, the whole append in one statement, so an append is one round
 * trip (and, outside an explicit transaction, one commit) instead of BEGIN, lock, state, write,
 * COMMIT. Released SQL: never edit it; a change is a new migration that replaces the function.
 *
 * Who computes what. The client builds the events (ids, seq, prev, batch_end, canonical lines and
 * their SHA-256) on the head it believes is current, and sends that head with them. The function
 * takes the workspace's head-row lock, then decides against committed state, in this order:
 *   1. the idempotency key: used with the same digest → 'deduplicated' and the stored lines;
 *      with another digest → 'idempotency_conflict';
 *   2. the expected versions → 'conflict', naming the first stream that disagrees and its version;
 *   3. the head the client built on: when another writer moved it first → 'moved' with the current
 *      head (seq, hash, last id), and nothing written: the client rebuilds its events on that head
 *      and calls again (or, under sustained contention, locks the head itself first);
 * then inserts the rows (one INSERT over the lines, every column read from the line itself,
 * stream versions counted from each stream's current version), checks that they extend the chain
 * (seq head+1, head+2, …, each prev the hash before it; anything else raises, nothing written),
 * moves the head, records the key and notifies subscribers: 'written'.
 * Each statement of a volatile plpgsql function takes a fresh snapshot, so every read after the
 * lock sees every append committed before it. An error anywhere aborts the statement: the rows,
 * the head move and the key go together or not at all.
 *
 * p_expected_versions: a version ≥ 0 (0 = "no_stream"), or -1 for "stream_exists".
 */
export const APPEND_FUNCTION_SQL = `
CREATE FUNCTION baton_append(
  p_workspace text,
  p_head_seq bigint,
  p_head_hash text,
  p_key text,
  p_digest text,
  p_expected_streams text[],
  p_expected_versions integer[],
  p_lines text,
  p_channel text,
  OUT status text,
  OUT head_seq bigint,
  OUT head_hash text,
  OUT head_last_id text,
  OUT lines text[],
  OUT conflict_stream text,
  OUT conflict_actual integer
) LANGUAGE plpgsql VOLATILE
-- Every statement here has one good plan whatever the arguments (index probes on the workspace's
-- keys, one pass over the batch); without this the plan cache keeps re-planning them per call.
SET plan_cache_mode = force_generic_plan
AS $fn$
DECLARE
  v_head baton_heads%ROWTYPE;
  v_key baton_idempotency%ROWTYPE;
  v_inserted integer;
  v_broken integer;
  v_first_seq bigint;
  v_last_seq bigint;
  v_last_hash text;
  v_last_id text;
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

  -- The lines (canonical JSON, one per event, newline-separated: JSON never holds a raw newline)
  -- are the only copy of the events sent; every column is read from them, so no column can
  -- disagree with the line its hash covers.
  -- MATERIALIZED: an inlined CTE would repeat the jsonb parse for every field read from it, and
  -- the current-version probe for every row rather than once per stream.
  WITH parsed AS MATERIALIZED (
    SELECT l.line, l.line::jsonb AS j FROM unnest(string_to_array(p_lines, E'\\n')) AS l(line)
  ), r AS (
    SELECT (j->>'seq')::bigint AS seq, j->>'id' AS id, j->>'type' AS type, j->>'stream' AS stream,
      (j->>'at')::timestamptz AS at, j->>'actor' AS actor, j->'data' AS data, j->>'idempotency_key' AS idempotency_key,
      (j->>'batch_end')::bigint AS batch_end, j->>'prev' AS prev, j->>'hash' AS hash, line
    FROM parsed
  ), current_version AS MATERIALIZED (
    SELECT s.stream,
      coalesce((SELECT e.stream_version FROM baton_events e
                WHERE e.workspace_id = p_workspace AND e.stream = s.stream
                ORDER BY e.stream_version DESC LIMIT 1), 0) AS version
    FROM (SELECT DISTINCT stream FROM r) s
  ), inserted AS (
    INSERT INTO baton_events (workspace_id, seq, id, type, stream, stream_version, at, actor, data, idempotency_key, batch_end, prev, hash, line)
    SELECT p_workspace, r.seq, r.id, r.type, r.stream,
      cv.version + row_number() OVER (PARTITION BY r.stream ORDER BY r.seq),
      r.at, r.actor, r.data, r.idempotency_key, r.batch_end, r.prev, r.hash, r.line
    FROM r JOIN current_version cv ON cv.stream = r.stream
    ORDER BY r.seq
    RETURNING seq, id, idempotency_key, prev, hash
  ), linked AS (
    -- The batch must extend the locked head: seq head+1, head+2, …, each prev the hash before it.
    SELECT seq, id, hash,
      seq = v_head.seq + row_number() OVER (ORDER BY seq)
        AND prev = coalesce(lag(hash) OVER (ORDER BY seq), v_head.hash)
        AND idempotency_key IS NOT DISTINCT FROM p_key AS ok
    FROM inserted
  )
  SELECT count(*)::int, count(*) FILTER (WHERE NOT ok)::int, min(seq), max(seq),
    (array_agg(hash ORDER BY seq DESC))[1], (array_agg(id ORDER BY seq DESC))[1]
  INTO v_inserted, v_broken, v_first_seq, v_last_seq, v_last_hash, v_last_id
  FROM linked;
  IF v_inserted = 0 OR v_broken <> 0 THEN
    RAISE EXCEPTION 'baton_append: the batch does not extend the chain at seq % (% of % events out of line)', v_head.seq, v_broken, v_inserted;
  END IF;

  UPDATE baton_heads SET seq = v_last_seq, hash = v_last_hash, last_id = v_last_id
    WHERE workspace_id = p_workspace;
  IF p_key IS NOT NULL THEN
    INSERT INTO baton_idempotency (workspace_id, key, digest, first_seq, last_seq)
      VALUES (p_workspace, p_key, p_digest, v_first_seq, v_last_seq);
  END IF;
  PERFORM pg_notify(p_channel, v_last_seq::text);
  head_seq := v_last_seq;
  head_hash := v_last_hash;
  head_last_id := v_last_id;
  status := 'written';
END
$fn$;
`;
