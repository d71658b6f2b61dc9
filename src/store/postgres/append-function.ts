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
 *   4. the batch itself must extend the chain: seq head+1, head+2, … and each prev the hash before
 *      it (anything else is an internal error, raised, nothing written);
 * then inserts the rows (one INSERT over `unnest`, stream versions counted from each stream's
 * current version), moves the head, records the key and notifies subscribers: 'written'.
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
  p_seq bigint[],
  p_id text[],
  p_type text[],
  p_stream text[],
  p_at text[],
  p_actor text[],
  p_batch_end bigint,
  p_prev text[],
  p_hash text[],
  p_line text[],
  p_channel text,
  OUT status text,
  OUT head_seq bigint,
  OUT head_hash text,
  OUT head_last_id text,
  OUT lines text[],
  OUT conflict_stream text,
  OUT conflict_actual integer
) LANGUAGE plpgsql VOLATILE AS $fn$
DECLARE
  v_head baton_heads%ROWTYPE;
  v_key baton_idempotency%ROWTYPE;
  v_count integer := cardinality(p_seq);
  v_inserted integer;
BEGIN
  IF v_count IS NULL OR v_count = 0 THEN
    RAISE EXCEPTION 'baton_append: an empty batch';
  END IF;
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

  IF EXISTS (
    SELECT 1 FROM unnest(p_seq, p_prev) WITH ORDINALITY AS c(seq, prev, i)
    WHERE c.seq <> v_head.seq + c.i
       OR c.prev IS DISTINCT FROM (CASE WHEN c.i = 1 THEN v_head.hash ELSE p_hash[c.i - 1] END)
  ) THEN
    RAISE EXCEPTION 'baton_append: the batch does not extend the chain at seq %', v_head.seq;
  END IF;

  WITH u AS (
    SELECT * FROM unnest(p_seq, p_id, p_type, p_stream, p_at, p_actor, p_prev, p_hash, p_line)
      AS u(seq, id, type, stream, at, actor, prev, hash, line)
  ), current_version AS (
    SELECT s.stream,
      coalesce((SELECT e.stream_version FROM baton_events e
                WHERE e.workspace_id = p_workspace AND e.stream = s.stream
                ORDER BY e.stream_version DESC LIMIT 1), 0) AS version
    FROM (SELECT DISTINCT stream FROM u) s
  )
  INSERT INTO baton_events (workspace_id, seq, id, type, stream, stream_version, at, actor, data, idempotency_key, batch_end, prev, hash, line)
  SELECT p_workspace, u.seq, u.id, u.type, u.stream,
    cv.version + row_number() OVER (PARTITION BY u.stream ORDER BY u.seq),
    u.at::timestamptz, u.actor, (u.line::jsonb) -> 'data', p_key, p_batch_end, u.prev, u.hash, u.line
  FROM u JOIN current_version cv ON cv.stream = u.stream
  ORDER BY u.seq;
  GET DIAGNOSTICS v_inserted = ROW_COUNT;
  IF v_inserted <> v_count THEN
    RAISE EXCEPTION 'baton_append: wrote % of % events', v_inserted, v_count;
  END IF;

  UPDATE baton_heads SET seq = p_seq[v_count], hash = p_hash[v_count], last_id = p_id[v_count]
    WHERE workspace_id = p_workspace;
  IF p_key IS NOT NULL THEN
    INSERT INTO baton_idempotency (workspace_id, key, digest, first_seq, last_seq)
      VALUES (p_workspace, p_key, p_digest, p_seq[1], p_seq[v_count]);
  END IF;
  PERFORM pg_notify(p_channel, p_seq[v_count]::text);
  head_seq := p_seq[v_count];
  head_hash := p_hash[v_count];
  head_last_id := p_id[v_count];
  status := 'written';
END
$fn$;
`;
