/**
 * Migration 5's SQL: `baton_append` gains a one-event form taking scalars. A single append is the
 * common call (a claim, a checkpoint, a signal), and migration 4's batch form spent most of its
 * server time on the batch machinery around one row: splitting eight texts into arrays, unnesting
 * them, a window function and a sort for the stream versions, a materialised CTE. This form does
 * what one event needs and nothing else; anything but the plain case hands the call, unchanged, to
 * the batch form (one event as a batch of one), which decides it under the head lock as before.
 *
 * The plain case, and why its order is safe. It reads before it locks: the idempotency key (must be
 * unused) and the stream's current version (must be what the caller expected), then moves the head
 * with ONE conditional UPDATE that takes the head lock and requires the head to be exactly the one
 * the event was built on (seq, hash) and the event's id to sort after the head's last id. The
 * caller's head is one it saw committed, and every append that commits moves the head in the same
 * transaction as its rows and key; so when that UPDATE finds the head unmoved, nothing committed
 * since the reads' snapshots (each taken after the caller's head was committed, and before the lock),
 * and what they read is what the lock now guards. When the UPDATE finds nothing (the head moved,
 * the workspace has no head row yet, the id does not ascend) or a read says no (a used key, another
 * version), nothing has been written yet and the batch form takes over: it locks the head and
 * answers deduplicated, idempotency_conflict, conflict or moved exactly as before. Once the head is
 * held, the line must be exactly the canonical envelope of the scalars (seq = head + 1, prev = the
 * head's hash), or the call raises. Then one INSERT of the row, the key if any, and the notification:
 * the same rows, head, key and wake-up as the batch form writes for one event (batch_end NULL), so
 * `log verify`, reads and subscriptions see no difference. A failure at any step raises and the
 * transaction writes nothing.
 *
 * `p_expected` is the stream's expected version as the batch form takes it (≥ 0, "no_stream" as 0,
 * -1 for "stream_exists"), or NULL when the append has none. It keeps the name `baton_append`
 * (PostgreSQL tells the two forms apart by their arguments), so whatever watches for the append
 * in pg_stat_activity sees both.
 *
 * Released SQL: never edit it; a change is a new migration.
 */
export const APPEND_FUNCTION_V5_SQL = `
CREATE FUNCTION baton_append(
  p_workspace text,
  p_head_seq bigint,
  p_head_hash text,
  p_key text,
  p_digest text,
  p_expected integer,
  p_line text,
  p_id text,
  p_type text,
  p_stream text,
  p_at text,
  p_actor text,
  p_data text,
  p_hash text,
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
  v_version integer;
  v_opening text;
  v_plain boolean := true;
BEGIN
  IF p_key IS NOT NULL THEN
    PERFORM FROM baton_idempotency WHERE workspace_id = p_workspace AND key = p_key;
    v_plain := NOT FOUND;
  END IF;
  IF v_plain THEN
    v_version := coalesce((SELECT e.stream_version FROM baton_events e
                           WHERE e.workspace_id = p_workspace AND e.stream = p_stream
                           ORDER BY e.stream_version DESC LIMIT 1), 0);
    v_plain := p_expected IS NULL OR (CASE WHEN p_expected < 0 THEN v_version > 0 ELSE v_version = p_expected END);
  END IF;
  IF v_plain THEN
    UPDATE baton_heads SET seq = p_head_seq + 1, hash = p_hash, last_id = p_id
      WHERE workspace_id = p_workspace AND seq = p_head_seq AND hash = p_head_hash
        AND (p_id COLLATE "C" > last_id COLLATE "C" OR last_id !~ '^[0-9A-HJKMNP-TV-Z]{26}$');
    v_plain := FOUND;
  END IF;
  IF NOT v_plain THEN
    SELECT * INTO status, head_seq, head_hash, head_last_id, lines, conflict_stream, conflict_actual
      FROM baton_append(p_workspace, p_head_seq, p_head_hash, p_key, p_digest,
        CASE WHEN p_expected IS NULL THEN '{}'::text[] ELSE ARRAY[p_stream] END,
        CASE WHEN p_expected IS NULL THEN '{}'::integer[] ELSE ARRAY[p_expected] END,
        p_line, p_id, p_type, p_stream, p_at, p_actor, p_data, p_hash, p_channel);
    RETURN;
  END IF;

  -- The envelope version opens the line; the rest must be exactly the scalars in envelope order
  -- (seq and prev from the head the UPDATE found). A mismatch raises: nothing is written.
  v_opening := substr(p_line, 1, strpos(p_line, ',"seq":') - 1);
  IF v_opening !~ '^\\{"v":[0-9]+$' OR p_line <> v_opening || ',"seq":' || (p_head_seq + 1) || ',"id":"' || p_id
       || '","type":"' || p_type || '","stream":"' || p_stream || '","at":"' || p_at || '","actor":' || p_actor
       || ',"data":' || p_data || coalesce(',"idempotency_key":' || to_json(p_key)::text, '')
       || ',"prev":"' || p_head_hash || '","hash":"' || p_hash || '"}' THEN
    RAISE EXCEPTION 'baton_append: the line does not match its columns at seq %', p_head_seq + 1;
  END IF;
  INSERT INTO baton_events (workspace_id, seq, id, type, stream, stream_version, at, actor, data, idempotency_key, batch_end, line)
    VALUES (p_workspace, p_head_seq + 1, p_id, p_type, p_stream, v_version + 1, p_at::timestamptz, p_actor::json #>> '{}',
            p_data::jsonb, p_key, NULL, p_line);
  IF p_key IS NOT NULL THEN
    INSERT INTO baton_idempotency (workspace_id, key, digest, first_seq, last_seq)
      VALUES (p_workspace, p_key, p_digest, p_head_seq + 1, p_head_seq + 1);
  END IF;
  PERFORM pg_notify(p_channel, (p_head_seq + 1)::text);
  status := 'written';
  head_seq := p_head_seq + 1;
  head_hash := p_hash;
  head_last_id := p_id;
END
$fn$;
`;
