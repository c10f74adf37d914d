// The loopx dashboard. Reads the server's --json documents (the session
// cookie stands for the token), writes through POST /ui/do with the CSRF
// token, and follows /v1/stream. Every value from the project is put in
// the page as text (textContent), never as markup.
const csrf = document.querySelector('meta[name="csrf-token"]').content;
const $ = (id) => document.getElementById(id);
const state = { status: null, gates: [], todos: [], agents: [], quota: [], events: [], reviews: {}, health: null, decisions: {}, no: [], rounds7: [] };

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

function fill(id, nodes, empty) {
  const box = $(id);
  const list = nodes.filter(Boolean);
  box.replaceChildren(...(list.length ? list : [el('p', { class: 'empty' }, empty || 'Nothing here.')]));
}

const when = (t) => (t ? new Date(t).toISOString().replace('T', ' ').slice(0, 16) + 'Z' : '');

async function get(path) {
  const r = await fetch(path, { credentials: 'same-origin', headers: { Accept: 'application/json' } });
  if (r.status === 401) { location.reload(); throw new Error('signed out'); }
  if (!r.ok) throw new Error(`${path}: ${r.status}`);
  return r.json();
}

async function post(path, body) {
  const r = await fetch(path, {
    method: 'POST', credentials: 'same-origin',
    headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': csrf },
    body: JSON.stringify(body),
  });
  return r.json();
}

function receipt(text, bad) {
  const p = $('receipt');
  p.textContent = text;
  p.className = 'receipt' + (bad ? ' bad' : '');
}

// confirm shows what a write will do (and a preview when there is one);
// with word, the person types it before Confirm counts.
function confirmDialog(what, preview, word) {
  const d = $('confirm');
  $('confirm-what').textContent = what;
  $('confirm-preview').textContent = preview || '';
  $('confirm-preview').hidden = !preview;
  $('confirm-typed-label').hidden = !word;
  $('confirm-word').textContent = word || '';
  $('confirm-typed').value = '';
  return new Promise((resolve) => {
    d.addEventListener('close', () => {
      resolve(d.returnValue === 'ok' ? { typed: $('confirm-typed').value.trim() } : null);
    }, { once: true });
    d.showModal();
    (word ? $('confirm-typed') : $('confirm-ok')).focus();
  });
}

function reasonsText(d) {
  if (!d) return '';
  const rs = (d.reasons || []).map((r) => `${r.code}: ${r.message}`);
  return `${d.verdict}${rs.length ? '\n' + rs.join('\n') : ''}`;
}

async function act(body, what, opts = {}) {
  let preview = '';
  if (body.action === 'gate.answer') {
    const p = await post('/ui/preview', body);
    preview = p.result ? 'The gate decision: ' + reasonsText(p.result) : p.message;
  }
  const ok = await confirmDialog(what, preview, opts.word);
  if (!ok) return;
  const r = await post('/ui/do', { ...body, typed: ok.typed });
  const doc = r.result || {};
  const text = r.exit_code === 0
    ? `Done: ${what}` + (doc.id ? ` (${doc.id})` : '')
    : `Not done (exit ${r.exit_code}): ` + (r.message || (doc.errors || []).map((e) => e.message).join('; ') || reasonsText(doc));
  receipt(text, r.exit_code !== 0);
  refresh();
}

// explain shows a decision's explanation (loopx explain): the rules and
// spec fields behind each reason.
async function explain(id) {
  const box = $('explain');
  box.hidden = false;
  $('explain-body').textContent = 'reading…';
  try {
    const x = await get('/v1/decisions/' + encodeURIComponent(id));
    const d = x.then || {};
    const lines = [`${d.query} ${d.verdict} for ${d.agent || '-'} on ${d.goal || '-'} (${id})`];
    (d.reasons || []).forEach((r) => lines.push(`• ${r.code}: ${r.message}\n  rule ${r.rule}${r.ref ? ', ' + r.ref : ''}`));
    (x.changes || []).forEach((c) => lines.push(`since then: ${c}`));
    if ((x.rule_trace || []).length) lines.push('', 'rules evaluated:', ...x.rule_trace.slice(0, 40));
    $('explain-body').textContent = lines.join('\n');
  } catch (err) {
    $('explain-body').textContent = 'could not explain: ' + err.message;
  }
  box.scrollIntoView({ block: 'nearest' });
}

// ---- needs you ----

function renderHealth() {
  const h = state.health;
  const p = $('health');
  if (!h) { p.textContent = 'governance: unknown'; p.className = 'pill bad'; return; }
  const problems = [];
  if (h.chain && h.chain.problem) problems.push('chain: ' + h.chain.problem);
  if (h.events && h.events.ok === false) problems.push('event log damaged');
  if (h.spec_ok === false) problems.push('spec does not load');
  if (h.recovered) problems.push('store recovered');
  if (h.protected && (h.protected.changed || []).length) problems.push('protected files changed');
  if (h.read_model && h.read_model.edited) problems.push('read model edited');
  (h.hooks || []).forEach((x) => problems.push(`${x.host} hooks: ${x.problem}`));
  if ((h.corrupt_records || []).length) problems.push('damaged records');
  p.textContent = problems.length ? 'governance: ' + problems.join('; ') : `governance on · chain verified to ${h.chain ? h.chain.head : '?'}`;
  p.className = 'pill ' + (problems.length ? 'bad' : 'ok');
}

function renderRules() {
  const line = state.status && state.status.rules_pending;
  fill('rules', [line && el('div', { class: 'card', id: 'rules-pending' },
    el('h4', {}, 'Rule changes wait for you'),
    el('p', {}, line),
    el('div', { class: 'row' },
      el('button', { class: 'primary', 'data-action': 'adopt', onclick: () => act({ action: 'adopt' }, 'adopt the rules in loopx/', { word: 'adopt' }) }, 'Adopt…'),
      el('button', { 'data-action': 'adopt.restore', onclick: () => act({ action: 'adopt.restore' }, 'restore the adopted rules over loopx/ (your edits there are overwritten)', { word: 'restore' }) }, 'Restore…')))],
  'No rule changes waiting.');
}

function gateCard(g) {
  const human = (g.answerers || []).includes('human');
  const note = el('input', { 'aria-label': `note for ${g.id}`, placeholder: 'note (optional)', maxlength: '500' });
  const blocks = g.scope_kind === 'goal' ? `the whole goal ${g.goal}`
    : g.scope_kind === 'todo' ? `todos ${(g.scope_todos || []).join(', ')}`
    : g.scope_kind === 'agent' ? `agents ${(g.scope_agents || []).join(', ')}` : g.scope_kind;
  const polls = (g.polls || []).map((p) => `${p.agent} (${p.count}×, last ${when(p.last_at)})`);
  return el('article', { class: 'card gate', 'data-gate': g.id },
    el('h4', {}, g.question),
    el('p', { class: 'meta' }, `${g.id} · goal ${g.goal} · raised by ${g.raised_by} ${when(g.raised_at)}`),
    el('p', { class: 'meta' }, `blocks ${blocks}` + ((g.guards || []).length ? ` and ${g.guards.join(', ')}` : '')),
    el('p', { class: 'meta' }, `answerers: ${(g.answerers || []).join(', ')}`),
    g.expires_at && el('p', { class: 'meta' }, `expires ${when(g.expires_at)}` + (g.on_expiry ? ` → ${g.on_expiry}` : '')),
    polls.length > 0 && el('p', { class: 'meta' }, `agents waiting on it: ${polls.join(', ')}`),
    human ? el('div', { class: 'row' }, note, ...(g.options || []).map((o) =>
      el('button', { class: 'answer', 'data-option': o, onclick: () => act({ action: 'gate.answer', gate: g.id, option: o, note: note.value }, `answer gate ${g.id} with "${o}"`) }, o)))
      : el('p', { class: 'meta' }, 'Reserved for an agent: shown, not answered here.'));
}

function renderGates() {
  fill('gates', state.gates.map(gateCard), 'No open gates.');
}

function renderAway() {
  const goals = (state.status && state.status.goals) || [];
  fill('away', goals.map((g) => {
    const rv = state.reviews[g.id];
    if (!rv) return null;
    const n = (rv.events || []).length;
    return el('div', {},
      el('h4', {}, `${g.id}: ${n} event${n === 1 ? '' : 's'} since ${when(rv.since)}` + (rv.since_last_review ? ' (your last review)' : '')),
      el('details', {}, el('summary', {}, 'review packet'), el('pre', {}, rv.markdown || '')),
      el('button', { 'data-action': 'review.mark', onclick: () => act({ action: 'review.mark', goal: g.id }, `mark goal ${g.id} reviewed`) }, 'Mark reviewed'));
  }), 'No goals.');
}

// ---- goals ----

function laneOf(g) {
  if (g.status === 'done' || g.status === 'archived') return 'done';
  const ds = Object.values(state.decisions).filter((d) => d.goal === g.id);
  const gates = state.gates.filter((x) => x.goal === g.id && (x.answerers || []).includes('human'));
  if (gates.length || ds.some((d) => d.verdict === 'wait_human')) return 'needs you';
  if (state.agents.some((a) => a.current_round && (a.goals || []).includes(g.id))) return 'running';
  if (ds.some((d) => d.verdict === 'run')) return 'ready';
  return 'waiting';
}

function goalItem(g) {
  const ds = Object.values(state.decisions).filter((d) => d.goal === g.id)
    .sort((a, b) => (a.agent || '').localeCompare(b.agent || ''));
  const paused = g.status === 'paused';
  return el('div', { class: 'item', 'data-goal': g.id },
    el('strong', {}, g.id), ' ', el('span', { class: 'meta' }, g.status), el('br'), g.objective,
    ...ds.map((d) => el('div', { class: 'reason', 'data-agent': d.agent, 'data-verdict': d.verdict },
      `${d.agent}: ${d.verdict}` + ((d.reasons || []).length ? ' — ' + d.reasons.map((r) => `${r.code}: ${r.message}`).join('; ') : ''), ' ',
      el('button', { class: 'link', 'data-explain': d.decision_id, onclick: () => explain(d.decision_id) }, 'why?'))),
    el('div', { class: 'row' },
      paused ? el('button', { 'data-action': 'goal.resume', onclick: () => act({ action: 'goal.resume', goal: g.id }, `resume goal ${g.id}`) }, 'Resume')
        : g.status === 'active' && el('button', { 'data-action': 'goal.pause', onclick: () => act({ action: 'goal.pause', goal: g.id }, `pause goal ${g.id} (agents skip it until resumed)`) }, 'Pause')));
}

function renderLanes() {
  const goals = (state.status && state.status.goals) || [];
  const lanes = ['needs you', 'running', 'ready', 'waiting', 'done'];
  $('lanes').replaceChildren(...lanes.map((l) => {
    const items = goals.filter((g) => laneOf(g) === l).map(goalItem);
    return el('div', { class: 'lane', 'data-lane': l }, el('h3', {}, `${l} (${items.length})`), ...items);
  }));
}

// ---- board ----

function todoCard(t) {
  const lease = t.lease && !t.lease.released ? `held by ${t.lease.holder} until ${when(t.lease.expires_at)}` : '';
  const btn = (action, label) => el('button', { 'data-action': action, onclick: () => act({ action, todo: t.id }, `${label} ${t.id}: ${t.title}`) }, label);
  const open = t.status === 'open' || t.status === 'claimed';
  return el('div', { class: 'item', 'data-todo': t.id },
    el('strong', {}, t.title), el('br'),
    el('span', { class: 'meta' }, `${t.id} · ${t.goal} · ${t.kind} · P${t.priority}` + ((t.labels || []).length ? ' · ' + t.labels.join(', ') : '')),
    lease && el('div', { class: 'meta' }, lease),
    (t.depends_on || []).length > 0 && el('div', { class: 'meta' }, 'after ' + t.depends_on.join(', ')),
    el('div', { class: 'row' }, open && btn('todo.done', 'done'), open && btn('todo.block', 'block'),
      open && btn('todo.cancel', 'cancel'), !open && btn('todo.reopen', 'reopen')),
    history(t.id));
}

// history is what the timeline holds about one todo (its rounds, claims,
// evidence and status changes).
function history(id) {
  const es = state.events.filter((e) => e.subject === id || (e.data && e.data.todo === id));
  if (!es.length) return null;
  return el('details', {}, el('summary', {}, `history (${es.length})`),
    el('ul', { class: 'history' }, ...es.slice().reverse().map((e) => el('li', {}, `${when(e.at)} ${e.kind} ${e.actor || ''} ${e.message || ''}`))));
}

function renderBoard() {
  const cols = ['open', 'claimed', 'blocked', 'done', 'cancelled'];
  $('columns').replaceChildren(...cols.map((c) => {
    const ts = state.todos.filter((t) => t.status === c);
    return el('div', { class: 'lane', 'data-status': c }, el('h3', {}, `${c} (${ts.length})`), ...ts.slice(0, 100).map(todoCard));
  }));
  const sel = $('add-goal');
  const goals = ((state.status && state.status.goals) || []).map((g) => g.id);
  if (sel.options.length !== goals.length) sel.replaceChildren(...goals.map((g) => el('option', {}, g)));
}

// ---- quota, timeline, agents ----

function renderQuota() {
  const goals = (state.status && state.status.goals) || [];
  fill('quotas', goals.map((g) => {
    const q = g.quota || {};
    const rows = ['rounds', 'tokens', 'cost_usd', 'compute_seconds'].filter((k) => q[k]).map((k) => {
      const { used, limit } = q[k];
      const pct = limit ? Math.min(100, (100 * used) / limit) : 0;
      return el('div', {}, el('span', { class: 'meta' }, `${k}: ${used} / ${limit === null ? '∞' : limit}`),
        el('div', { class: 'bar', role: 'img', 'aria-label': `${k} ${used} of ${limit === null ? 'unlimited' : limit}` }, el('span', { style: null, 'data-pct': String(pct) })));
    });
    const now = Date.now();
    const perDay = (f) => {
      const out = [];
      for (let i = 6; i >= 0; i--) {
        out.push(state.rounds7.filter((e) => e.goal === g.id && now - Date.parse(e.at) >= i * 864e5 && now - Date.parse(e.at) < (i + 1) * 864e5)
          .reduce((n, e) => n + f(e), 0));
      }
      return out;
    };
    const chart = (label, days) => {
      const max = Math.max(1e-9, ...days);
      return el('div', {}, el('span', { class: 'meta' }, `${label} per day, last 7 days: ${days.map((n) => Math.round(n * 100) / 100).join(' · ')}`),
        el('div', { class: 'chart', role: 'img', 'aria-label': `${label} per day, last 7 days: ${days.join(', ')}` },
          ...days.map((n) => el('span', { 'data-h': String(Math.round((100 * n) / max)) }))));
    };
    return el('div', {}, el('h4', {}, g.id), ...rows,
      q.resets_at && el('p', { class: 'meta' }, `resets ${when(q.resets_at)}`),
      chart('rounds', perDay(() => 1)),
      chart('tokens', perDay((e) => (e.data && e.data.tokens) || 0)),
      chart('cost (USD)', perDay((e) => (e.data && e.data.cost_usd) || 0)));
  }), 'No goals.');
  // Sizes are set from script (no inline style attributes under the CSP).
  document.querySelectorAll('.bar > span[data-pct]').forEach((s) => { s.style.width = s.dataset.pct + '%'; });
  document.querySelectorAll('.chart > span[data-h]').forEach((s) => { s.style.height = s.dataset.h + '%'; });
}

function renderNo() {
  fill('said-no', state.no.map((d) => el('li', {},
    el('span', {}, when(d.timestamp || d.at)),
    el('span', {}, `${d.query || (d.result && d.result.query) || ''} ${(d.result && d.result.verdict) || d.verdict || ''}`),
    el('span', {}, `${(d.input && d.input.agent) || (d.result && d.result.agent) || ''}: ` +
      (((d.result && d.result.reasons) || d.reasons || []).map((r) => `${r.code}: ${r.message}`).join('; ')))),
  ), 'No decision said no lately.');
}

function renderTimeline() {
  fill('events', state.events.slice().reverse().map((e) =>
    el('li', { class: /denied|violation|refused/.test(e.kind) ? 'bad' : '' },
      el('span', {}, when(e.at)), el('span', {}, e.kind), el('span', {}, `${e.actor || ''} ${e.subject || ''} ${e.message || ''}`))),
  'No events yet.');
}

function renderAgents() {
  fill('agent-list', state.agents.map((a) => el('div', { 'data-agent': a.id },
    el('h4', {}, `${a.id} (${a.host}${a.role ? ', ' + a.role : ''})`),
    el('p', { class: 'meta' }, `last seen ${when(a.last_seen_at) || 'never'}` + (a.current_round ? ` · round ${a.current_round}` : '')),
    a.current_lease && el('p', { class: 'meta' }, `lease on ${a.current_lease.todo || ''} until ${when(a.current_lease.expires_at)}`),
    ...state.gates.flatMap((g) => (g.polls || []).filter((p) => p.agent === a.id).map((p) =>
      el('p', { class: 'meta reason' }, `waiting on gate ${g.id}: ${p.count} poll${p.count === 1 ? '' : 's'}, last ${when(p.last_at)}`))),
    el('p', { class: 'meta' }, `goals: ${(a.goals || []).join(', ')}`))), 'No agent has acted yet.');
}

function render() {
  renderHealth(); renderRules(); renderGates(); renderAway(); renderLanes(); renderBoard(); renderQuota(); renderTimeline(); renderNo(); renderAgents();
}

async function refresh() {
  try {
    const [status, gates, todos, agents, events, health, decisions, rounds7] = await Promise.all([
      get('/v1/status'), get('/v1/gates?status=open'), get('/v1/todos'), get('/v1/agents'),
      get('/v1/events?limit=200'), get('/v1/doctor').catch(() => null), get('/v1/decisions?limit=200').catch(() => []),
      get('/v1/events?kind=round.finished&since=7d').catch(() => [])]);
    const no = (decisions || []).filter((d) => d.result && d.result.allow === false).slice(-30).reverse();
    Object.assign(state, { status, gates, todos, agents, events, health, no, rounds7 });
    if (status.project) { $('project').textContent = status.project; document.title = 'loopx · ' + status.project; }
    const reviews = await Promise.all((status.goals || []).map((g) => get('/v1/review?goal=' + encodeURIComponent(g.id)).catch(() => null)));
    state.reviews = {};
    (status.goals || []).forEach((g, i) => { if (reviews[i]) state.reviews[g.id] = reviews[i]; });
    render();
    document.body.dataset.revision = String(status.state_revision);
  } catch (err) {
    receipt('Could not read the project: ' + err.message, true);
  }
}

let pending = null;
function soon() { clearTimeout(pending); pending = setTimeout(refresh, 150); }

function follow() {
  const es = new EventSource('/v1/stream');
  es.addEventListener('state', soon);
  es.addEventListener('decision', (ev) => {
    const d = JSON.parse(ev.data);
    state.decisions[`${d.goal}/${d.agent}`] = d;
    renderLanes();
    soon(); // a decision changes with the spec, the rules or time too: read the rest again
  });
}

$('add-todo').addEventListener('submit', (ev) => {
  ev.preventDefault();
  const title = $('add-title').value.trim();
  if (!title) return;
  act({ action: 'todo.add', goal: $('add-goal').value, title, priority: $('add-priority').value }, `add "${title}" to goal ${$('add-goal').value}`)
    .then(() => { $('add-title').value = ''; });
});

refresh().then(follow);
