// The dashboard page: fetches the view envelopes from the server (the same ones `replay --view`
// prints), renders them, follows appends through server-sent events, and travels in time with the
// scrubber. No framework: a handful of render functions writing HTML strings, every value escaped.

const VIEWS = ['initiatives', 'agents', 'signals', 'flows', 'log'];
/** Cards a column shows before it is opened. */
const COLUMN_LIMIT = 20;
const STATE_ORDER = [
  'contaminated',
  'blocked',
  'stalled',
  'needs_relaunch',
  'worker_returned',
  'ready_for_finish',
  'awaiting_merge',
  'active',
  'claimed',
  'handoff_emitted',
  'eligible',
  'planned',
  'done',
];

const ui = {
  view: VIEWS.includes(location.hash.slice(1)) ? location.hash.slice(1) : 'initiatives',
  /** null: live (the head, following appends); else { to } or { at }. */
  position: null,
  axis: 'seq',
  data: null,
  headSeq: 0,
  span: { first_at: null, last_at: null },
  logFilter: { type: '', stream: '' },
  /** Columns opened past COLUMN_LIMIT: `INIT/wave`. */
  expanded: new Set(),
  verify: null,
  loading: false,
  again: false,
};

const $ = (id) => document.getElementById(id);
const esc = (value) => String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
const cls = (value) => String(value ?? '').replace(/[^a-z0-9_-]/gi, '_');

function query(extra = {}) {
  const params = new URLSearchParams();
  if (ui.position && 'to' in ui.position) params.set('to', String(ui.position.to));
  if (ui.position && 'at' in ui.position) params.set('at', ui.position.at);
  for (const [key, value] of Object.entries(extra)) if (value !== undefined && value !== '') params.set(key, String(value));
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

async function getJson(path) {
  const response = await fetch(path, { credentials: 'same-origin', cache: 'no-store' });
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  return response.json();
}

/** Fetch what the current view needs; a request made while one is running is coalesced into one more. */
async function refresh() {
  if (ui.loading) {
    ui.again = true;
    return;
  }
  ui.loading = true;
  try {
    do {
      ui.again = false;
      // Only the views of the tab on screen are computed (a tab of a large log costs its own folds only).
      const data = await getJson(`/api/dashboard${query({ tab: ui.view })}`);
      if (data.tab !== ui.view) {
        ui.again = true;
        continue;
      }
      if (ui.view === 'log') data.log = await getJson(`/api/log${query({ type: ui.logFilter.type, stream: ui.logFilter.stream, limit: 200 })}`);
      ui.data = data;
      const behind = ui.position === null && ui.headSeq > data.position.head_seq;
      ui.headSeq = Math.max(ui.headSeq, data.position.head_seq);
      ui.span = data.span;
      render();
      if (behind) ui.again = true;
    } while (ui.again);
  } catch (error) {
    $('main').innerHTML = `<p class="error">${esc(error.message)}</p>`;
  } finally {
    ui.loading = false;
  }
}

function render() {
  const data = ui.data;
  if (!data) return;
  document.body.dataset.seq = String(data.position.seq);
  document.body.dataset.live = String(data.position.live);
  $('workspace').textContent = `${data.workspace} · ${data.store}`;
  for (const tab of document.querySelectorAll('.tab')) tab.classList.toggle('active', tab.dataset.view === ui.view);
  renderScrubber(data.position);
  const main = $('main');
  if (ui.view !== 'initiatives') shownBoard = null;
  if (ui.view === 'initiatives') renderInitiativesInto(main, data);
  else if (ui.view === 'agents') main.innerHTML = renderAgents(data);
  else if (ui.view === 'signals') main.innerHTML = renderSignals(data);
  else if (ui.view === 'flows') main.innerHTML = renderFlows(data);
  else main.innerHTML = renderLog(data);
  main.dataset.view = ui.view;
}

// ——— the scrubber ———

function renderScrubber(position) {
  const scrub = $('scrub');
  const first = Date.parse(ui.span.first_at ?? '') || 0;
  const last = Date.parse(ui.span.last_at ?? '') || 0;
  if (ui.axis === 'seq') {
    scrub.min = '0';
    scrub.max = String(ui.headSeq);
    scrub.step = '1';
    if (document.activeElement !== scrub) scrub.value = String(position.seq);
  } else {
    scrub.min = String(first);
    scrub.max = String(Math.max(first, last));
    scrub.step = '1000';
    if (document.activeElement !== scrub) scrub.value = String(position.at ? Date.parse(position.at) : first);
  }
  for (const b of document.querySelectorAll('.axis-btn')) b.classList.toggle('active', b.dataset.axis === ui.axis);
  const when = position.at ? fmtTime(position.at) : 'before the first event';
  $('where').innerHTML = `<b>seq ${position.seq}</b> of ${ui.headSeq} · ${esc(when)}`;
  $('mode').innerHTML = position.live
    ? '<span class="pill live"><span class="dot"></span>LIVE</span>'
    : `<span class="pill past">PAST · seq ${position.seq}</span>`;
  $('live').classList.toggle('on', position.live);
}

let scrubTimer;
function onScrub() {
  const value = Number($('scrub').value);
  ui.position = ui.axis === 'seq' ? { to: value } : { at: new Date(value).toISOString() };
  clearTimeout(scrubTimer);
  scrubTimer = setTimeout(refresh, 15);
}

// ——— initiatives: the wave board ———

function claimants(data) {
  const byWu = new Map();
  for (const s of data.roster?.sessions ?? []) if (s.wu_id) byWu.set(s.wu_id, s);
  return byWu;
}

/**
 * The wave board as a model: per initiative its top (title, counts, banner), its columns of cards
 * and what is below. Scrubbing usually changes a few cards: when the layout (initiatives, columns,
 * which WU in which column) is the one on screen, only what changed is replaced, so a board of a
 * thousand cards is not parsed and laid out again at every step.
 */
function boardModel(data) {
  const who = claimants(data);
  // Initiatives with work left come first; finished ones (every WU done) sink to the bottom.
  const finished = (doc) => doc.type === 'initiative_status' && doc.wus.length > 0 && doc.wus.every((w) => w.orchestration_state === 'done');
  const ordered = [...data.initiatives.filter((d) => !finished(d)), ...data.initiatives.filter(finished)];
  return ordered.map((doc) => initiativeModel(doc, who));
}

function layoutKey(model) {
  return JSON.stringify(model.map((i) => [i.id, i.error ?? null, i.columns.map((c) => [c.wave, c.total, c.cards.map((card) => card.wu)])]));
}

let shownBoard = null;

function renderInitiativesInto(main, data) {
  if (data.initiatives.length === 0) {
    shownBoard = null;
    main.innerHTML = empty('No initiatives yet', 'baton initiative create INIT-1 --title …');
    return;
  }
  const model = boardModel(data);
  const key = layoutKey(model);
  if (shownBoard !== null && shownBoard.key === key && main.dataset.view === 'initiatives' && main.querySelector('.initiative')) {
    patchBoard(main, shownBoard.model, model);
  } else {
    main.innerHTML = model.map(initiativeHtml).join('') + legend();
  }
  shownBoard = { key, model };
}

function patchBoard(main, before, after) {
  after.forEach((initiative, i) => {
    const old = before[i];
    const section = main.querySelector(`[data-initiative="${CSS.escape(initiative.id)}"]`);
    if (!section) return;
    if (old.top !== initiative.top) section.querySelector('.initiative-top').innerHTML = initiative.top;
    if (old.below !== initiative.below) section.querySelector('.below').innerHTML = initiative.below;
    initiative.columns.forEach((column, c) => {
      column.cards.forEach((card, k) => {
        if (old.columns[c].cards[k].html !== card.html) section.querySelector(`.wu[data-wu="${CSS.escape(card.wu)}"]`).outerHTML = card.html;
      });
    });
  });
}

function initiativeModel(doc, who) {
  if (doc.type === 'error') return { id: `error-${doc.code}`, error: `${doc.code}: ${doc.message}`, top: '', below: '', columns: [] };
  const waves = new Map();
  for (const wu of doc.wus) {
    const wave = wu.planned_wave ?? wu.logical_wave;
    if (!waves.has(wave)) waves.set(wave, []);
    waves.get(wave).push(wu);
  }
  const counts = {};
  for (const wu of doc.wus) counts[wu.orchestration_state] = (counts[wu.orchestration_state] ?? 0) + 1;
  const capacity = doc.max_active_workers === null ? 'unlimited' : `${doc.available_capacity ?? 0} of ${doc.max_active_workers} free`;
  const top = `<div class="initiative-head">
      <h2>${esc(doc.initiative)}</h2>
      <span class="meta">attempt ${esc(doc.launch_attempt ?? '–')} · capacity ${esc(capacity)} · ${doc.wus.length} WUs</span>
      <span class="counts">${STATE_ORDER.filter((s) => counts[s])
        .map((s) => `<span class="chip st-${s}">${counts[s]} ${esc(s.replace(/_/g, ' '))}</span>`)
        .join('')}</span>
    </div>
    ${doc.blocked_by_integrity ? '<div class="banner danger">Blocked by integrity: launches are refused until the findings below are resolved.</div>' : ''}`;
  const below = `<div class="panel"><h3>Next safe actions</h3>${
    doc.next_safe_actions.length === 0
      ? '<p class="muted">None: nothing to do right now.</p>'
      : `<ol class="actions">${doc.next_safe_actions
          .map(
            (a) =>
              `<li><span class="action act-${cls(a.type)}">${esc(a.type.replace(/_/g, ' '))}</span> <b>${esc((a.wu_ids ?? [a.wu_id]).join(', '))}</b> <span class="muted">${esc(a.reason)}</span></li>`,
          )
          .join('')}</ol>`
  }</div>
      <div class="panel"><h3>Integrity findings</h3>${
        doc.integrity_findings.length === 0
          ? '<p class="muted ok">None.</p>'
          : `<ul class="findings">${doc.integrity_findings.map((f) => `<li><code>#${esc(f.seq)}</code> <b>${esc(f.code)}</b> ${esc(f.message)}</li>`).join('')}</ul>`
      }</div>`;
  // A column of hundreds of cards shows its first COLUMN_LIMIT (the ones needing attention lead,
  // in the projection's order within a state) until it is opened: a glance, not a scroll.
  const rank = (wu) => STATE_ORDER.indexOf(wu.orchestration_state);
  const columns = [...waves.keys()]
    .sort((a, b) => a - b)
    .map((wave) => {
      const all = waves.get(wave);
      const open = all.length <= COLUMN_LIMIT || ui.expanded.has(`${doc.initiative}/${wave}`);
      const shown = open ? all : [...all].sort((a, b) => rank(a) - rank(b)).slice(0, COLUMN_LIMIT);
      return { wave, total: all.length, cards: shown.map((wu) => ({ wu: wu.wu_id, html: renderCard(wu, who.get(wu.wu_id)) })) };
    });
  return { id: doc.initiative, top, below, columns };
}

function initiativeHtml(initiative) {
  if (initiative.error) return `<section class="card-panel"><p class="error">${esc(initiative.error)}</p></section>`;
  return `<section class="initiative" data-initiative="${esc(initiative.id)}">
    <div class="initiative-top">${initiative.top}</div>
    <div class="board">${initiative.columns
      .map(
        (column) =>
          `<div class="column" data-wave="${column.wave}"><h3>Wave ${column.wave}<small>${column.total}</small></h3>${column.cards.map((card) => card.html).join('')}${
            column.total > column.cards.length
              ? `<button class="more" data-expand="${esc(`${initiative.id}/${column.wave}`)}">show all ${column.total} (${column.total - column.cards.length} more)</button>`
              : ''
          }</div>`,
      )
      .join('')}</div>
    <div class="below">${initiative.below}</div>
  </section>`;
}

function renderCard(wu, session) {
  const state = wu.orchestration_state;
  const claimant = session ? session.display_name : '';
  return `<button class="wu st-${cls(state)}" data-wu="${esc(wu.wu_id)}" data-state="${esc(state)}" title="Open the evidence trail (wu explain)">
    <div class="wu-top"><span class="wu-id">${esc(wu.wu_id)}</span><span class="badge st-${cls(state)}">${esc(state.replace(/_/g, ' '))}</span></div>
    <div class="wu-title">${esc(wu.title)}</div>
    <div class="wu-meta">${wu.lane ? `<span class="lane">${esc(wu.lane)}</span>` : ''}${claimant ? `<span class="who">${esc(claimant)}</span>` : ''}</div>
    ${wu.blockers.length ? `<div class="wu-blockers">waits for ${esc(wu.blockers.join(', '))}</div>` : ''}
    ${wu.contamination_paths.length ? `<div class="wu-blockers danger">dirty: ${esc(wu.contamination_paths.join(', '))}</div>` : ''}
    <div class="wu-time">${wu.last_activity_at ? `last activity ${esc(fmtTime(wu.last_activity_at))}` : 'no activity yet'}</div>
  </button>`;
}

function legend() {
  return `<footer class="legend">${STATE_ORDER.map((s) => `<span class="chip st-${s}">${esc(s.replace(/_/g, ' '))}</span>`).join('')}</footer>`;
}

async function openExplain(wuId) {
  $('drawer').hidden = false;
  $('drawer-content').innerHTML = '<p class="muted">Loading…</p>';
  const view = await getJson(`/api/view/wu_explain${query({ target: wuId })}`);
  if (view.type === 'error') {
    $('drawer-content').innerHTML = `<p class="error">${esc(view.message)}</p>`;
    return;
  }
  const next = view.next_safe_action;
  $('drawer-content').innerHTML =
    `<h2>${esc(view.wu_id)} <span class="badge st-${cls(view.orchestration_state)}">${esc(String(view.orchestration_state).replace(/_/g, ' '))}</span></h2>
    <p class="muted">${view.initiative ? `${esc(view.initiative)} · ` : ''}decided by rule ${esc(view.rule)} of the decision table</p>
    ${next ? `<p class="next"><span class="action act-${cls(next.type)}">${esc(next.type.replace(/_/g, ' '))}</span> ${esc(next.reason)}</p>` : ''}
    <h3>Predicates</h3>
    <table class="grid"><tbody>${view.predicates
      .map(
        (p) =>
          `<tr><td><code>${esc(p.name)}</code></td><td><b>${esc(typeof p.value === 'string' ? p.value : JSON.stringify(p.value))}</b></td><td class="muted">${p.evidence.map((seq) => `#${esc(seq)}`).join(' ')}</td></tr>`,
      )
      .join('')}</tbody></table>
    <h3>Evidence trail</h3>
    <ol class="evidence">${view.evidence
      .map(
        (e) =>
          `<li><code>#${esc(e.seq)}</code> <b>${esc(e.type)}</b> <span class="muted">${esc(fmtTime(e.at))} · ${esc(shortId(e.actor))}</span><div>${esc(e.summary)}</div></li>`,
      )
      .join('')}</ol>
    ${view.integrity_findings.length ? `<h3>Integrity findings</h3><ul class="findings">${view.integrity_findings.map((f) => `<li><code>#${esc(f.seq)}</code> <b>${esc(f.code)}</b> ${esc(f.message)}</li>`).join('')}</ul>` : ''}`;
}

// ——— agents ———

function renderAgents(data) {
  const roster = data.roster?.sessions ?? [];
  const sessions = data.sessions?.sessions ?? [];
  const lsp = data.status?.lastStoppingPoint;
  // A session whose recorded lapse stands shows as lapsed, with the WUs it held.
  const lapses = new Map(sessions.filter((s) => s.baton?.lapse && s.status === 'abandoned').map((s) => [s.id, s.baton.lapse]));
  const statusBadge = (id, status) =>
    lapses.has(id)
      ? `<span class="badge ss-abandoned" title="lease lapsed ${esc(fmtTime(lapses.get(id).lapsed_at))}">lapsed</span> <span class="muted">held ${esc(lapses.get(id).held_wus.join(', '))}</span>`
      : `<span class="badge ss-${cls(status)}">${esc(status)}</span>`;
  const rosterRows = roster.length
    ? `<table class="grid"><thead><tr><th>Name</th><th>Identity</th><th>Role</th><th>WU</th><th>Lane</th><th>Status</th><th>Last heartbeat</th></tr></thead><tbody>${roster
        .map(
          (s) =>
            `<tr data-session="${esc(s.session_id)}"><td><b>${esc(s.display_name)}</b></td><td><code>${esc(s.agent_identity ?? '–')}</code></td><td>${esc(s.role ?? '–')}</td><td>${esc(s.wu_id ?? '–')}</td><td>${esc(s.lane ?? '–')}</td><td>${statusBadge(s.session_id, s.status)}</td><td>${esc(fmtTime(s.last_heartbeat_at))}</td></tr>`,
        )
        .join('')}</tbody></table>`
    : '<p class="muted">No sessions.</p>';
  const lspPanel = lsp
    ? `<section class="panel wide"><h3>Last stopping point</h3>
        <p class="next">${esc(lsp.nextAction?.description ?? '')}</p>
        ${lsp.resumeCommand ? `<p>Resume: <code class="cmd">${esc(lsp.resumeCommand)}</code></p>` : ''}
        <p class="muted">${lsp.activeTasks.length} active · ${lsp.queuedTasks.length} queued · ${lsp.stoppedTasks.length} stopped · ${lsp.recentlyCompletedTasks.length} recently completed</p>
      </section>`
    : '';
  const cards = sessions
    .map((s) => {
      const detail = data.session_details?.[s.id];
      const resume = data.resume?.[s.id];
      const tasks = detail?.tasks ?? [];
      const subagents = detail?.baton?.subagents ?? [];
      return `<article class="session" data-session="${esc(s.id)}">
        <header><b>${esc(s.baton?.display_name ?? s.id)}</b> ${statusBadge(s.id, s.status)}<code class="muted">${esc(s.id)}</code></header>
        ${s.goal ? `<p>Goal: ${esc(s.goal)}${s.branch ? ` · branch <code>${esc(s.branch)}</code>` : ''}</p>` : ''}
        <p class="muted">${esc(s.baton?.agent_identity ?? '')}${s.baton?.role ? ` · ${esc(s.baton.role)}` : ''}</p>
        ${tasks.length ? `<ul class="tasks">${tasks.map((t) => `<li><span class="badge ts-${cls(t.state)}">${esc(String(t.state).replace(/_/g, ' '))}</span> ${esc(t.label)}${t.subagentKind ? ` <span class="muted">(${esc(t.subagentKind)})</span>` : ''}</li>`).join('')}</ul>` : '<p class="muted">No tasks.</p>'}
        ${subagents.length ? `<p class="muted">Subagents: ${subagents.map((a) => esc(a.kind ?? a.subagentKind ?? a.id ?? '')).join(', ')}</p>` : ''}
        ${resume && resume.type !== 'error' ? `<p class="resume">Next: ${esc(resume.description)}<br><code class="cmd">${esc(resume.baton?.resume_command ?? '')}</code></p>` : ''}
      </article>`;
    })
    .join('');
  return `<div class="two"><section class="panel wide"><h3>Roster</h3>${rosterRows}</section>${lspPanel}</div><h3 class="section-title">Sessions</h3><div class="sessions">${cards || '<p class="muted">No sessions.</p>'}</div>`;
}

// ——— signals ———

function renderSignals(data) {
  const signals = data.inbox?.signals ?? [];
  if (signals.length === 0) return empty('No signals yet', 'baton mem signal "…" --to NAME');
  const convergence = new Map((data.convergence?.threads ?? []).map((t) => [t.thread_id, t]));
  const threads = new Map();
  for (const s of signals) {
    if (!threads.has(s.thread_id)) threads.set(s.thread_id, []);
    threads.get(s.thread_id).push(s);
  }
  const receipt = (signalId, reader) => {
    const found = data.inbox_by_reader?.[reader]?.signals?.find((x) => x.signal_id === signalId);
    return found?.read ? (found.delivery_state ?? 'read') : 'unread';
  };
  return [...threads.entries()]
    .reverse()
    .map(([thread, list]) => {
      const c = convergence.get(thread);
      return `<section class="thread" data-thread="${esc(thread)}">
        <header><code>${esc(thread)}</code>${c ? `<span class="badge cv-${cls(c.state)}">${esc(c.state)}</span><span class="muted">agreed ${esc(c.agreed.join(', ') || '–')} · pending ${esc(c.pending.join(', ') || '–')} · rejected ${esc(c.rejected.join(', ') || '–')}</span>` : ''}</header>
        ${list
          .map(
            (s) => `<div class="signal" data-signal="${esc(s.signal_id)}">
            <div class="signal-head"><span class="intent in-${cls(s.intent)}">${esc(s.intent)}</span> <b>${esc(s.sender_display_name ?? s.sender_identity)}</b> → ${esc(s.recipients.length ? s.recipients.join(', ') : 'everyone')} <span class="muted">#${esc(s.seq)} · ${esc(fmtTime(s.created_at))} · ${esc(s.interrupt_class)}</span></div>
            <div class="message">${esc(s.message)}</div>
            <div class="receipts">${s.recipients.map((r) => `<span class="receipt rc-${cls(receipt(s.signal_id, r))}">${esc(r)}: ${esc(receipt(s.signal_id, r))}</span>`).join('')}</div>
          </div>`,
          )
          .join('')}
      </section>`;
    })
    .join('');
}

// ——— flows ———

const PHASES = ['exploration', 'planning', 'implementation', 'review', 'verification', 'review_verification'];

function renderFlows(data) {
  const flow = data.flow?.flow;
  if (!flow) return empty('No flow yet', 'baton flow init Add login rate limiting');
  const gates = flow.gates ?? {};
  const order = [...PHASES.filter((p) => p in gates), ...Object.keys(gates).filter((p) => !PHASES.includes(p))];
  return `<section class="panel wide flow" data-flow="${esc(flow.flow_id)}">
    <h2>${esc(flow.task)}</h2>
    <p class="meta"><span class="badge fl-${cls(flow.status)}">${esc(flow.status)}</span> ${esc(flow.variant)} · ${esc(flow.mode)} · phase <b>${esc(flow.current_phase)}</b>${flow.next_phase ? ` (next ${esc(flow.next_phase)})` : ''} · iteration ${esc(flow.iteration)}/${esc(flow.max_iterations)}</p>
    <div class="gates">${order
      .map((phase) => {
        const g = gates[phase];
        return `<div class="gate g-${cls(g.status)}${phase === flow.current_phase ? ' current' : ''}"><div class="gate-name">${esc(phase.replace(/_/g, ' '))}</div><div class="gate-status">${esc(g.status)}</div><div class="muted">${esc(g.agent ?? '')}</div>${g.message ? `<div class="gate-msg">${esc(g.message)}</div>` : ''}</div>`;
      })
      .join('<span class="arrow">→</span>')}</div>
    ${Object.entries(flow.parallel_groups ?? {})
      .map(
        ([name, group]) => `<h3>Parallel group ${esc(name.replace(/_/g, ' '))} <span class="badge g-${cls(group.status)}">${esc(group.status)}</span></h3>
      <div class="gates">${['review', 'verification']
        .filter((t) => group[t])
        .map(
          (t) =>
            `<div class="gate g-${cls(group[t].status)}"><div class="gate-name">${esc(t)}</div><div class="gate-status">${esc(group[t].status)}</div><div class="muted">${esc(group[t].agent ?? '')} ${esc(group[t].result ?? '')}</div></div>`,
        )
        .join('')}</div>`,
      )
      .join('')}
    ${flow.last_merge ? `<p class="muted">Last merge (iteration ${esc(flow.last_merge.iteration)}): ${esc(flow.last_merge.summary)}</p>` : ''}
    ${data.flow.warnings?.length ? `<div class="banner">${data.flow.warnings.map(esc).join('<br>')}</div>` : ''}
    <p class="muted">State file: <code>${esc(data.flow.state_file)}</code></p>
  </section>`;
}

// ——— log ———

function renderLog(data) {
  const page = data.log;
  if (!page) return '<p class="muted">Loading…</p>';
  const v = ui.verify;
  const verify = v
    ? v.ok
      ? `<span class="badge ok">verified</span> ${esc(v.checked)} events, hash chain unbroken`
      : `<span class="badge bad">NOT valid</span> at seq ${esc(v.first_bad?.seq)}: ${esc(v.first_bad?.reason)}`
    : '<button id="verify-btn" class="btn">Verify the log</button>';
  return `<section class="panel wide">
    <div class="log-head">
      <div>Head at this position: <b>seq ${esc(page.head.seq)}</b> <code class="hash">${esc(page.head.hash)}</code></div>
      <div class="verify">${verify}</div>
    </div>
    <form id="log-filter" class="filters">
      <input name="type" placeholder="type, e.g. wu.claimed" value="${esc(ui.logFilter.type)}">
      <input name="stream" placeholder="stream, e.g. wu/WU-1" value="${esc(ui.logFilter.stream)}">
      <button class="btn" type="submit">Filter</button>
    </form>
    <table class="grid log"><thead><tr><th>seq</th><th>time</th><th>type</th><th>stream</th><th>actor</th><th>data</th></tr></thead><tbody>${page.events
      .map(
        (e) =>
          `<tr data-seq="${esc(e.seq)}"><td>${esc(e.seq)}</td><td>${esc(fmtTime(e.at))}</td><td><b>${esc(e.type)}</b></td><td><code>${esc(e.stream)}</code></td><td>${esc(shortId(e.actor))}</td><td class="data"><code>${esc(JSON.stringify(e.data))}</code></td></tr>`,
      )
      .join('')}</tbody></table>
  </section>`;
}

// ——— helpers ———

function empty(title, hint) {
  return `<div class="empty"><h2>${esc(title)}</h2><p class="muted">Try <code>${esc(hint)}</code></p></div>`;
}

function fmtTime(iso) {
  if (!iso) return '–';
  return String(iso)
    .replace('T', ' ')
    .replace(/\.\d+Z$/, 'Z')
    .replace(/:00Z$/, 'Z');
}

function shortId(id) {
  const text = String(id ?? '');
  return text.length > 22 ? `${text.slice(0, 20)}…` : text;
}

// ——— wiring ———

$('tabs').addEventListener('click', (event) => {
  const view = event.target.closest('[data-view]')?.dataset.view;
  if (!view) return;
  ui.view = view;
  history.replaceState(null, '', `#${view}`);
  for (const tab of document.querySelectorAll('.tab')) tab.classList.toggle('active', tab.dataset.view === ui.view);
  refresh();
});
$('scrub').addEventListener('input', onScrub);
$('live').addEventListener('click', () => {
  ui.position = null;
  refresh();
});
for (const button of document.querySelectorAll('.axis-btn')) {
  button.addEventListener('click', () => {
    ui.axis = button.dataset.axis;
    if (ui.data) renderScrubber(ui.data.position);
  });
}
$('main').addEventListener('click', async (event) => {
  const more = event.target.closest('[data-expand]');
  if (more) {
    ui.expanded.add(more.dataset.expand);
    return render();
  }
  const card = event.target.closest('.wu');
  if (card) return openExplain(card.dataset.wu);
  if (event.target.id === 'verify-btn') {
    event.target.disabled = true;
    ui.verify = await getJson('/api/verify');
    render();
  }
});
$('main').addEventListener('submit', (event) => {
  if (event.target.id !== 'log-filter') return;
  event.preventDefault();
  const form = new FormData(event.target);
  ui.logFilter = { type: String(form.get('type') ?? '').trim(), stream: String(form.get('stream') ?? '').trim() };
  refresh();
});
$('drawer-close').addEventListener('click', () => ($('drawer').hidden = true));
$('drawer').addEventListener('click', (event) => {
  if (event.target === $('drawer')) $('drawer').hidden = true;
});
document.addEventListener('keydown', (event) => {
  if (event.key === 'Escape') $('drawer').hidden = true;
});

// Live: the server says where the head is after every append; the live page refetches.
const events = new EventSource('/api/events');
events.addEventListener('head', (event) => {
  const { head_seq } = JSON.parse(event.data);
  // The stream says where the head is when it opens, too: refetch only when the page is behind
  // (before the first page arrives, refresh() compares the head it got with this one).
  ui.headSeq = Math.max(ui.headSeq, head_seq);
  if (!ui.data || head_seq === ui.data.position.head_seq) return;
  ui.verify = null;
  if (ui.position === null) refresh();
  else if (ui.data) renderScrubber(ui.data.position);
});

// The token was in the URL once; the cookie carries it now, so the address bar need not show it.
if (location.search.includes('token=')) history.replaceState(null, '', `${location.pathname}${location.hash}`);
refresh();
