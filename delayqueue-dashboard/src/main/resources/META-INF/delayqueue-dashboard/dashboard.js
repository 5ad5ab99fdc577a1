// The delayqueue dashboard: plain JavaScript, no build step. Every piece of data reaches the page through
// textContent or an attribute set by el(): payloads, ids and error reasons are user data and never HTML.
(function () {
    'use strict';

    const meta = name => { const m = document.querySelector('meta[name="' + name + '"]'); return m ? m.content : null; };
    const BASE = meta('dq-base') || '';
    const CSRF_HEADER = meta('dq-csrf-header');
    const CSRF_TOKEN = meta('dq-csrf-token');

    let settings = { refreshMillis: 3000, actionsEnabled: false, showPayloads: false };
    let timer = null;
    let busy = false;
    let again = false;

    // ---- DOM helpers

    function el(tag, attrs, ...children) {
        const node = document.createElement(tag);
        for (const [k, v] of Object.entries(attrs || {})) {
            if (v === null || v === undefined || v === false) continue;
            if (k === 'onclick') node.addEventListener('click', v);
            else if (k === 'className') node.className = v;
            else node.setAttribute(k, v === true ? '' : String(v));
        }
        for (const c of children.flat()) {
            if (c === null || c === undefined || c === false) continue;
            node.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
        }
        return node;
    }

    function td(col, value, className) {
        return el('td', { 'data-col': col, className: className }, value === null || value === undefined ? '—' : value);
    }

    function flash(kind, text) {
        const box = document.getElementById('flash');
        box.hidden = false;
        box.dataset.kind = kind;
        box.textContent = text;
    }

    function clearFlash() {
        const box = document.getElementById('flash');
        box.hidden = true;
        box.textContent = '';
        delete box.dataset.kind;
    }

    // ---- formatting (all times come from the Redis clock; "due in" is computed on the server)

    function when(iso) {
        return iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : null;
    }

    function span(ms) {
        if (ms === null || ms === undefined) return null;
        const past = ms < 0;
        let s = Math.round(Math.abs(ms) / 1000);
        let text;
        if (s < 60) text = s + 's';
        else if (s < 3600) text = Math.floor(s / 60) + 'm ' + (s % 60) + 's';
        else if (s < 86400) text = Math.floor(s / 3600) + 'h ' + Math.floor((s % 3600) / 60) + 'm';
        else text = Math.floor(s / 86400) + 'd ' + Math.floor((s % 86400) / 3600) + 'h';
        return past ? text + ' ago' : 'in ' + text;
    }

    function rate(v) {
        return v === null || v === undefined ? null : (v >= 10 ? Math.round(v).toString() : v.toFixed(1));
    }

    function lateness(m) {
        if (!m || m.latenessMillis === null || m.latenessMillis === undefined) return null;
        const v = m.latenessMillis;
        return (v >= 1000 ? (v / 1000).toFixed(2) + ' s' : v.toFixed(v < 10 ? 2 : 0) + ' ms') + ' (' + m.latenessStat + ')';
    }

    // ---- priorities (SendOptions.priority: 0 to 9, higher first among due messages; 4 is the default)

    const DEFAULT_PRIORITY = 4;

    // A message's priority as its number; one other than the default is marked (higher or lower) and says so on hover
    function priorityCell(p) {
        if (p === null || p === undefined) return td('priority', null, 'num');
        const other = p === DEFAULT_PRIORITY ? null : (p > DEFAULT_PRIORITY ? 'above' : 'below');
        return el('td', { 'data-col': 'priority', 'data-priority': p,
            className: 'num' + (other ? ' prio-' + (other === 'above' ? 'high' : 'low') : ''),
            title: other ? other + ' the default priority (' + DEFAULT_PRIORITY + ')' : 'the default priority' }, p);
    }

    // "(9: 20, 4: 100)": a queue's due messages per priority, the highest first, when any is of a priority other than
    // the default (a queue without priorities shows its count alone)
    function readyByPriority(v) {
        const parts = v.readyByPriority || [];
        if (!parts.some(p => p.priority !== DEFAULT_PRIORITY)) return null;
        return '(' + parts.map(p => p.priority + ': ' + p.ready).join(', ') + ')';
    }

    function readyValue(v, id) {
        const split = readyByPriority(v);
        return [String(v.ready), split ? el('span', { className: 'by-priority', id: id,
            title: 'due now per priority, the highest first' }, ' ' + split) : null];
    }

    // ---- HTTP

    async function get(path) {
        const response = await fetch(BASE + path, { headers: { Accept: 'application/json' }, credentials: 'same-origin' });
        return answer(response);
    }

    async function post(path, body) {
        const headers = { Accept: 'application/json', 'Content-Type': 'application/json' };
        if (CSRF_HEADER && CSRF_TOKEN) headers[CSRF_HEADER] = CSRF_TOKEN;
        const response = await fetch(BASE + path, {
            method: 'POST', headers: headers, credentials: 'same-origin', body: JSON.stringify(body || {})
        });
        return answer(response);
    }

    async function answer(response) {
        let data = null;
        try { data = await response.json(); } catch (e) { data = null; }
        if (!response.ok) {
            const message = data && data.message ? data.message : (response.statusText || 'request failed');
            const error = new Error(response.status + ' ' + (data && data.error ? data.error : '') + ': ' + message);
            error.status = response.status;
            throw error;
        }
        return data;
    }

    const q = code => '/api/queues/' + encodeURIComponent(code);

    // ---- routing: #/ (overview), #/queues/<code>/<tab>?offset=<n>, #/sets/<set id> (the id encoded whole: it may
    // hold '/' and '?')

    function route() {
        const raw = location.hash.replace(/^#/, '') || '/';
        if (raw === '/sets' || raw.startsWith('/sets/')) {
            const rest = raw.substring('/sets/'.length);
            let id = rest;
            try { id = decodeURIComponent(rest); } catch (e) { /* a hand-typed '%': the id as typed */ }
            return { view: 'sets', id: id || null };
        }
        const hash = decodeURIComponent(raw);
        const [path, query] = hash.split('?');
        const params = new URLSearchParams(query || '');
        const parts = path.split('/').filter(Boolean);
        if (parts[0] === 'queues' && parts[1]) {
            return { view: 'queue', code: parts[1], tab: parts[2] || 'pending', offset: params.get('offset') || '0' };
        }
        return { view: 'overview' };
    }

    function setLink(id) {
        return '#/sets/' + encodeURIComponent(id);
    }

    function link(code, tab, offset) {
        return '#/queues/' + encodeURIComponent(code) + '/' + tab + (offset ? '?offset=' + offset : '');
    }

    async function render() {
        if (busy) {
            again = true; // a navigation or an action while a refresh is under way: render once more after it
            return;
        }
        busy = true;
        again = false;
        const r = route();
        try {
            if (r.view === 'queue') await renderQueue(r);
            else if (r.view === 'sets') await renderSet(r);
            else await renderOverview();
            lookupFor(r);
        } catch (e) {
            lookupAfterError(r);
            const view = document.getElementById('view');
            view.replaceChildren(el('h1', { id: 'view-title' }, r.view === 'queue' ? 'Queue ' + r.code
                : (r.view === 'sets' ? 'Job sets' : 'Overview')),
                el('p', { id: 'view-error', className: 'muted' }, 'Could not load this page.'),
                el('p', {}, el('a', { href: '#/' }, 'Back to the overview')));
            flash('error', e.message);
        } finally {
            busy = false;
            if (again) render();
        }
    }

    function schedule() {
        if (timer) clearInterval(timer);
        timer = setInterval(() => {
            if (document.getElementById('auto-refresh').checked && !document.hidden) render();
        }, settings.refreshMillis);
    }

    function applySettings(overview) {
        const changed = overview.refreshMillis !== settings.refreshMillis;
        settings = overview;
        const mode = document.getElementById('mode');
        mode.textContent = overview.actionsEnabled ? 'actions enabled' : 'read-only';
        mode.className = 'badge' + (overview.actionsEnabled ? ' on' : '');
        document.getElementById('clock').textContent = 'Redis time ' + when(overview.serverTime);
        if (changed) schedule();
    }

    // ---- overview

    async function renderOverview() {
        const o = await get('/api/overview');
        applySettings(o);
        const rows = o.queues.map(v => el('tr', { 'data-queue': v.code },
            el('td', { 'data-col': 'code' }, el('a', { href: link(v.code, 'pending') }, v.code)),
            td('pending', v.pending, 'num'),
            td('ready', readyValue(v, null), 'num' + (v.ready > 0 ? ' warn' : '')),
            td('throttled', v.flow ? v.flow.throttled : null, 'num'),
            td('inFlight', v.inFlight, 'num'),
            td('dead', v.dead, 'num' + (v.dead > 0 ? ' bad' : '')),
            td('nextDue', v.nextDueAt ? span(v.nextDueInMillis) : null),
            td('paused', v.paused ? el('span', { className: 'badge paused' }, 'paused') : 'no'),
            td('handled', rate(v.metrics && v.metrics.handledPerMinute), 'num'),
            td('failed', rate(v.metrics && v.metrics.failedPerMinute), 'num'
                + (v.metrics && v.metrics.failedPerMinute > 0 ? ' bad' : '')),
            td('lateness', lateness(v.metrics), 'num')));
        const consumers = o.consumers.map(c => el('tr', { 'data-queue': c.queue },
            td('queue', c.queue),
            td('handler', c.handler, 'wrap'),
            td('state', el('span', { className: 'badge ' + (c.running ? 'running' : 'stopped') },
                c.running ? 'running' : (c.enabled ? 'stopped' : 'disabled'))),
            td('busy', c.activeHandlers + ' / ' + c.concurrency, 'num'),
            td('limits', [c.rateLimit, c.maxInFlight != null ? '≤ ' + c.maxInFlight + ' in flight' : null]
                .filter(x => x != null).join(', ') || '—')));
        const view = document.getElementById('view');
        view.replaceChildren(
            el('h1', { id: 'view-title' }, 'Queues'),
            el('div', { className: 'card' }, el('table', { id: 'queues' },
                el('thead', {}, el('tr', {}, el('th', {}, 'Queue'), el('th', { className: 'num' }, 'Pending'),
                    el('th', { className: 'num', title: 'pending and already due: a backlog when it stays above 0; per priority, the highest first, when some are of a priority other than the default (4)' }, 'Due now'),
                    el('th', { className: 'num', title: 'due now but held in Redis by the queue\'s flow limits or a slow-down hold (— : no flow control)' }, 'Throttled'),
                    el('th', { className: 'num' }, 'In flight'), el('th', { className: 'num' }, 'Dead'),
                    el('th', {}, 'Next due'), el('th', {}, 'Paused'),
                    el('th', { className: 'num', title: 'handler calls finished per minute, from this application\'s metrics' }, 'Handled/min'),
                    el('th', { className: 'num', title: 'retried, dead-lettered or abandoned per minute' }, 'Failed/min'),
                    el('th', { className: 'num', title: 'handler start minus due time, from this application\'s metrics' }, 'Lateness'))),
                el('tbody', {}, rows.length ? rows : el('tr', { className: 'empty' }, el('td', { colspan: 11 }, 'No queues declared'))))),
            el('p', { className: 'muted' }, o.metrics
                ? 'Rates span the refreshes of the last minutes; lateness is the p99 the meter publishes, else its recent maximum.'
                : 'No metrics: this application has no Micrometer MeterRegistry, so rates and lateness show —.'),
            el('h2', {}, 'Consumers in this instance'),
            el('div', { className: 'card' }, el('table', { id: 'consumers' },
                el('thead', {}, el('tr', {}, el('th', {}, 'Queue'), el('th', {}, 'Handler'), el('th', {}, 'State'),
                    el('th', { className: 'num' }, 'Busy / concurrency'),
                    el('th', { title: 'the queue\'s rate limit and cap on messages in flight, over every instance together' }, 'Limits (all instances)'))),
                el('tbody', {}, consumers.length ? consumers
                    : el('tr', { className: 'empty' }, el('td', { colspan: 5 }, 'This instance consumes no queue'))))));
    }

    // ---- queue page

    async function renderQueue(r) {
        const [o, v] = await Promise.all([get('/api/overview'), get(q(r.code))]);
        applySettings(o);
        const activity = await activityPanel(r.code);
        let table;
        if (r.tab === 'in-flight') table = await inFlightTable(r);
        else if (r.tab === 'dead') table = await deadTable(r);
        else if (r.tab === 'schedules') table = await schedulesTable(r);
        else if (r.tab === 'groups') table = await groupsTable(r);
        else if (r.tab === 'completed') table = await completedTable(r);
        else table = await pendingTable(r);
        const stat = (col, label, value) => el('div', { className: 'stat', 'data-col': col }, el('b', {}, value), el('span', {}, label));
        const toolbar = el('div', { className: 'toolbar' });
        if (o.actionsEnabled) {
            toolbar.append(v.paused
                ? el('button', { 'data-action': 'resume', onclick: () => act('Resume queue ' + v.code + '?', q(v.code) + '/resume') }, 'Resume queue')
                : el('button', { 'data-action': 'pause', onclick: () => act('Pause queue ' + v.code + '? Nothing is delivered until it is resumed.', q(v.code) + '/pause') }, 'Pause queue'));
        }
        const tab = (id, name, label) => el('a', { id: 'tab-' + id, href: link(v.code, name), className: r.tab === name ? 'active' : null }, label);
        // without flow control flowPanel is null: the DOM's replaceChildren would show it as the text "null"
        document.getElementById('view').replaceChildren(...[
            el('p', {}, el('a', { href: '#/' }, '← Overview')),
            el('h1', { id: 'view-title' }, 'Queue ', v.code, ' ',
                v.paused ? el('span', { className: 'badge paused', id: 'paused' }, 'paused') : null),
            el('div', { className: 'stats' }, stat('pending', 'pending', v.pending), stat('ready', 'due now', readyValue(v, 'ready-by-priority')),
                stat('inFlight', 'in flight', v.inFlight), stat('dead', 'dead', v.dead),
                stat('nextDue', 'next due', v.nextDueAt ? span(v.nextDueInMillis) : '—'),
                stat('lateness', 'lateness', lateness(v.metrics) || '—')),
            flowPanel(v, stat),
            activity,
            toolbar,
            el('div', { className: 'tabs' }, tab('pending', 'pending', 'Pending (' + v.pending + ')'),
                tab('in-flight', 'in-flight', 'In flight (' + v.inFlight + ')'), tab('dead', 'dead', 'Dead letters (' + v.dead + ')'),
                tab('schedules', 'schedules', 'Schedules'), tab('groups', 'groups', 'Groups'),
                tab('completed', 'completed', 'Completed')),
            table].filter(child => child !== null));
    }

    // The queue's flow control as Redis holds it (every instance together); nothing for a queue without any. The rate
    // limit and cap are the queue-wide ones, so labelled: a queue with group limits only shows none of them beside
    // the messages its groups hold back (Redis does not record group limits: they are the consumers' options).
    function flowPanel(v, stat) {
        const f = v.flow;
        if (!f) return null;
        const perSecond = f.claimsPerSecond === null || f.claimsPerSecond === undefined ? '—'
            : (f.claimsPerSecond >= 10 ? Math.round(f.claimsPerSecond) : f.claimsPerSecond.toFixed(f.claimsPerSecond >= 1 ? 1 : 2)) + '/s';
        return el('div', { id: 'flow' },
            el('h2', { title: 'read from Redis: what the claims of every instance enforce' }, 'Flow control (all instances)'),
            el('div', { className: 'stats' },
                stat('flowRate', 'queue rate limit', f.rateLimit || 'none'),
                stat('flowClaims', 'claimed, last 10 s', perSecond),
                stat('flowThrottled', 'throttled (due, held by a limit)', f.throttled),
                f.throttledByGroups > 0 ? stat('flowThrottledByGroups', 'of them, by group limits', f.throttledByGroups) : null,
                stat('flowCap', 'in flight / queue cap', f.maxInFlight !== null && f.maxInFlight !== undefined
                    ? [v.inFlight + ' / ' + f.maxInFlight, f.atMaxInFlight ? ' ' : null, f.atMaxInFlight ? el('span', { className: 'badge paused', id: 'at-cap' }, 'at cap') : null]
                    : 'no queue cap'),
                stat('flowHold', 'slow-down hold', f.holdUntil ? 'ends ' + span(f.holdEndsInMillis) : 'none')));
    }

    function pager(r, page) {
        const first = page.total === 0 ? 0 : page.offset + 1;
        const last = page.offset + (page.messages || page.deadLetters || page.schedules || page.records).length;
        const prev = Math.max(0, page.offset - page.limit);
        const next = page.offset + page.limit;
        return el('div', { className: 'pager' },
            el('span', { id: 'page-info' }, first + '–' + last + ' of ' + page.total),
            el('button', { id: 'page-prev', disabled: page.offset === 0, onclick: () => { location.hash = link(r.code, r.tab, prev); } }, '‹ Prev'),
            el('button', { id: 'page-next', disabled: next >= page.total, onclick: () => { location.hash = link(r.code, r.tab, next); } }, 'Next ›'));
    }

    function actionButtons(code, m, kinds) {
        const cell = el('td', { className: 'actions' });
        if (kinds.includes('payload') && settings.showPayloads) {
            cell.append(el('button', { 'data-action': 'payload', onclick: () => showPayload(code, m.id) }, 'Payload'));
        }
        if (!settings.actionsEnabled) return cell;
        const path = q(code);
        if (kinds.includes('run-now')) cell.append(el('button', { 'data-action': 'run-now',
            onclick: () => act('Run message ' + m.id + ' now?', path + '/run-now', { id: m.id }) }, 'Run now'));
        if (kinds.includes('reschedule')) cell.append(el('button', { 'data-action': 'reschedule',
            onclick: () => reschedulePanel(code, m) }, 'Reschedule'));
        if (kinds.includes('cancel')) cell.append(el('button', { 'data-action': 'cancel', className: 'danger',
            onclick: () => act('Cancel message ' + m.id + '? It will not be delivered.', path + '/cancel', { id: m.id }) }, 'Cancel'));
        return cell;
    }

    async function pendingTable(r) {
        const page = await get(q(r.code) + '/pending?offset=' + encodeURIComponent(r.offset));
        const rows = page.messages.map(m => el('tr', { 'data-id': m.id },
            td('id', m.id), td('dueAt', when(m.dueAt)), td('dueIn', span(m.dueInMillis), m.dueInMillis < 0 ? 'warn' : null),
            priorityCell(m.priority), td('attempts', m.attempts, 'num'), td('lastError', m.lastError, 'wrap'),
            td('enqueuedAt', when(m.enqueuedAt)), actionButtons(r.code, m, ['payload', 'run-now', 'reschedule', 'cancel'])));
        return messageTable(r, page, ['Id', 'Due at', 'Due in', 'Priority', 'Attempts', 'Last error', 'Sent', ''], rows,
            'No pending messages');
    }

    // In flight and dead letters show each message's group (SendOptions.group; — without one), as text like every
    // user string. Pending has no such column: its page lists ungrouped messages only (grouped ones wait in their
    // group's set, listed on the Groups tab). Pending and in flight show each message's priority (SendOptions.priority).
    async function inFlightTable(r) {
        const page = await get(q(r.code) + '/in-flight?offset=' + encodeURIComponent(r.offset));
        const rows = page.messages.map(m => el('tr', { 'data-id': m.id },
            td('id', m.id), td('group', m.group), priorityCell(m.priority), td('leaseDeadline', when(m.leaseDeadline)),
            td('leaseIn', span(m.leaseInMillis)), td('attempts', m.attempts, 'num'), td('lastError', m.lastError, 'wrap'),
            td('enqueuedAt', when(m.enqueuedAt)), actionButtons(r.code, m, ['payload', 'cancel'])));
        return messageTable(r, page, ['Id', 'Group', 'Priority', 'Lease deadline', 'Lease ends', 'Attempt', 'Last error', 'Sent', ''], rows,
            'No messages in flight');
    }

    function messageTable(r, page, headers, rows, empty) {
        return el('div', {}, el('div', { className: 'card' }, el('table', { id: 'messages', 'data-set': r.tab },
            el('thead', {}, el('tr', {}, headers.map(h => el('th', {}, h)))),
            el('tbody', {}, rows.length ? rows : el('tr', { className: 'empty' }, el('td', { colspan: headers.length }, empty))))),
            pager(r, page));
    }

    // recurring schedules: spec, zone, next and last tick, paused or not; pause, resume, trigger now
    // The groups furthest behind of the queue's grouped messages (SendOptions.group): no pages, the oldest due first
    async function groupsTable(r) {
        const page = await get(q(r.code) + '/groups');
        const headers = ['Group', 'Pending', 'In flight', 'Oldest due at', 'Oldest due', 'Next claim'];
        const rows = page.groups.map(g => el('tr', { 'data-id': g.group },
            td('group', g.group), td('pending', g.pending, 'num'), td('inFlight', g.inFlight, 'num'),
            td('oldestDueAt', when(g.oldestDueAt)), td('behind', g.behindMillis == null ? '—' : span(-g.behindMillis)),
            td('nextClaim', g.nextClaimAt ? span(g.nextClaimInMillis) : 'at its in-flight cap')));
        return el('div', {}, el('div', { className: 'card' }, el('table', { id: 'groups' },
            el('thead', {}, el('tr', {}, headers.map(h => el('th', {}, h)))),
            el('tbody', {}, rows.length ? rows : el('tr', { className: 'empty' },
                el('td', { colspan: headers.length }, 'No grouped messages pending'))))));
    }

    async function schedulesTable(r) {
        const page = await get(q(r.code) + '/schedules?offset=' + encodeURIComponent(r.offset));
        const path = q(r.code) + '/schedules';
        const rows = page.schedules.map(s => {
            const cell = el('td', { className: 'actions' });
            if (settings.actionsEnabled) {
                cell.append(s.paused
                    ? el('button', { 'data-action': 'schedule-resume', onclick: () => act('Resume schedule ' + s.id + '?', path + '/resume', { id: s.id }) }, 'Resume')
                    : el('button', { 'data-action': 'schedule-pause', onclick: () => act('Pause schedule ' + s.id + '? No tick runs until it is resumed.', path + '/pause', { id: s.id }) }, 'Pause'),
                    el('button', { 'data-action': 'schedule-trigger', onclick: () => act('Run schedule ' + s.id + ' once now?', path + '/trigger', { id: s.id }) }, 'Run now'));
            }
            return el('tr', { 'data-id': s.id },
                td('id', s.id), td('spec', s.kind + ' ' + s.expression), td('zone', s.zone),
                td('nextTickAt', s.paused ? 'paused' : when(s.nextTickAt), s.paused ? 'warn' : null),
                td('nextTickIn', s.nextTickInMillis === null ? '—' : span(s.nextTickInMillis)),
                td('lastTickAt', s.lastTickAt ? when(s.lastTickAt) : '—'),
                td('policy', 'misfire ' + s.misfire + ', overlap ' + s.overlap), td('origin', s.declared ? 'yaml' : 'API'), cell);
        });
        const headers = ['Id', 'Spec', 'Zone', 'Next tick', 'Next in', 'Last tick', 'Policies', 'From', ''];
        return el('div', {}, el('div', { className: 'card' }, el('table', { id: 'schedules' },
            el('thead', {}, el('tr', {}, headers.map(h => el('th', {}, h)))),
            el('tbody', {}, rows.length ? rows : el('tr', { className: 'empty' }, el('td', { colspan: headers.length }, 'No schedules'))))),
            pager(r, page));
    }

    async function deadTable(r) {
        const page = await get(q(r.code) + '/dead-letters?offset=' + encodeURIComponent(r.offset));
        const path = q(r.code) + '/dead-letters';
        const rows = page.deadLetters.map(d => {
            const cell = el('td', { className: 'actions' });
            if (settings.showPayloads && d.content) {
                cell.append(el('button', { 'data-action': 'payload', onclick: () => payloadPanel('Dead letter ' + d.id, d.content) }, 'Payload'));
            }
            if (settings.actionsEnabled) {
                cell.append(el('button', { 'data-action': 'requeue',
                    onclick: () => act('Requeue dead letter ' + d.id + '? It will be delivered again now.', path + '/requeue', { keys: [d.key] }) }, 'Requeue'));
                cell.append(el('button', { 'data-action': 'delete', className: 'danger',
                    onclick: () => act('Delete dead letter ' + d.id + '? This cannot be undone.', path + '/delete', { keys: [d.key] }) }, 'Delete'));
            }
            return el('tr', { 'data-id': d.id, 'data-key': d.key },
                td('id', d.id), td('group', d.group), td('attempts', d.attempts, 'num'), td('reason', d.reason, 'wrap'), td('deadAt', when(d.deadAt)),
                td('enqueuedAt', when(d.enqueuedAt)), cell);
        });
        const headers = ['Id', 'Group', 'Attempts', 'Reason', 'Died', 'Sent', ''];
        const toolbar = el('div', { className: 'toolbar' });
        if (settings.actionsEnabled && page.total > 0) {
            toolbar.append(el('button', { 'data-action': 'requeue-all',
                onclick: () => act('Requeue all ' + page.total + ' dead letters of ' + r.code + '?', path + '/requeue-all') }, 'Requeue all'));
        }
        return el('div', {}, toolbar, el('div', { className: 'card' }, el('table', { id: 'dead-letters' },
            el('thead', {}, el('tr', {}, headers.map(h => el('th', {}, h)))),
            el('tbody', {}, rows.length ? rows : el('tr', { className: 'empty' }, el('td', { colspan: headers.length }, 'No dead letters'))))),
            pager(r, page));
    }

    // ---- a message's life after the fact: the id search and the Completed tab (the queue's history)

    // The id search sits in #lookup, outside #view, so that a refresh clears neither what is typed nor the answer
    // shown; it is built again only when the page moves to another queue, and emptied off the queue pages.
    function lookupFor(r) {
        const box = document.getElementById('lookup');
        if (r.view === 'sets') {
            setLookup(box, r);
            return;
        }
        delete box.dataset.sets;
        if (r.view !== 'queue') {
            box.replaceChildren();
            delete box.dataset.queue;
            return;
        }
        if (box.dataset.queue === r.code) return;
        box.dataset.queue = r.code;
        const input = el('input', { type: 'text', id: 'lookup-id', placeholder: 'message id', 'aria-label': 'message id' });
        const result = el('div', { id: 'lookup-result' });
        const form = el('form', { id: 'lookup-form', className: 'toolbar' }, el('b', {}, 'Find a message by id'), input,
            el('button', { type: 'submit', id: 'lookup-submit' }, 'Look up'),
            el('button', { type: 'button', id: 'lookup-clear', onclick: () => { input.value = ''; result.replaceChildren(); } }, 'Clear'));
        form.addEventListener('submit', e => { e.preventDefault(); lookUp(r.code, input.value, result); });
        box.replaceChildren(el('div', { className: 'panel' }, form, result));
    }

    // The set search: built once on the Sets page (a refresh keeps what is typed); looking up goes to #/sets/<id>, whose
    // view (in #view) refreshes with the page. Following a link to another set puts its id in the box.
    function setLookup(box, r) {
        delete box.dataset.queue;
        if (!box.dataset.sets) {
            box.dataset.sets = 'yes';
            const input = el('input', { type: 'text', id: 'set-id', placeholder: 'set id', 'aria-label': 'set id' });
            const form = el('form', { id: 'set-form', className: 'toolbar' }, el('b', {}, 'Find a job set by id'), input,
                el('button', { type: 'submit', id: 'set-submit' }, 'Look up'));
            form.addEventListener('submit', e => {
                e.preventDefault();
                const target = setLink(input.value.trim());
                if (location.hash === target) render(); else location.hash = target;
            });
            box.replaceChildren(el('div', { className: 'panel' }, form));
        }
        if (box.dataset.setId !== (r.id || '')) {
            box.dataset.setId = r.id || '';
            document.getElementById('set-id').value = r.id || '';
        }
    }

    // A page that failed to load keeps the search of its own queue (a refresh during a Redis outage must not lose the
    // answer shown), but not another queue's (an unknown queue typed in the address)
    function lookupAfterError(r) {
        if (r.view !== 'queue' || document.getElementById('lookup').dataset.queue !== r.code) lookupFor({ view: 'none' });
    }

    async function lookUp(code, id, result) {
        try {
            result.replaceChildren(statusView(await get(q(code) + '/status?id=' + encodeURIComponent(id))));
        } catch (e) {
            result.replaceChildren(el('p', { id: 'lookup-error', className: 'bad' }, e.message));
        }
    }

    const STATE_LABELS = { pending: 'Pending', 'in-flight': 'In flight', completed: 'Completed',
        'dead-lettered': 'Dead-lettered', cancelled: 'Cancelled', unknown: 'Unknown' };
    const OUTCOME_WORDS = { completed: 'acknowledged ', 'dead-lettered': 'dead-lettered ', cancelled: 'cancelled ' };

    // how long ago a record was settled: span() reads 0 (and -0) as "in 0s"
    function ago(ms) {
        return ms < 1000 ? 'just now' : span(-ms);
    }

    function took(ms) {
        return ms === null || ms === undefined ? null : (ms >= 1000 ? (ms / 1000).toFixed(2) + ' s' : ms + ' ms');
    }

    function statusView(s) {
        const m = s.live;
        const h = s.settled;
        let summary;
        let fields = [];
        if (s.state === 'pending') {
            summary = 'due ' + when(m.dueAt) + ' (' + span(m.dueInMillis) + ')';
            fields = [['attempts', 'Attempts so far', m.attempts], ['lastError', 'Last error', m.lastError],
                ['group', 'Group', m.group], ['priority', 'Priority', m.priority], ['enqueuedAt', 'Sent', when(m.enqueuedAt)]];
        } else if (s.state === 'in-flight') {
            const run = s.running;
            summary = (run ? 'running on ' + run.instance + ', claimed ' + ago(run.claimedAgoMillis) + '; '
                : 'a consumer has it; ') + 'its lease runs until ' + when(m.leaseDeadline)
                + ' (' + span(m.leaseInMillis) + ')';
            fields = [['attempts', 'Attempt', m.attempts], ['instance', 'Instance', run ? run.instance : null],
                ['claimedAt', 'Claimed at', run ? when(run.claimedAt) : null], ['progress', 'Progress', run ? run.progress : null],
                ['lastError', 'Last error', m.lastError], ['group', 'Group', m.group], ['priority', 'Priority', m.priority],
                ['enqueuedAt', 'Sent', when(m.enqueuedAt)]];
        } else if (h) {
            summary = (OUTCOME_WORDS[h.outcome] || h.outcome + ' ') + ago(h.settledAgoMillis);
            fields = [['outcome', 'Outcome', h.outcome], ['settledAt', 'Settled at', when(h.settledAt)],
                ['dueAt', 'Due at', when(h.dueAt)], ['claimedAt', 'Claimed at', when(h.claimedAt)],
                ['attempts', 'Attempts', h.attempts], ['instance', 'Instance', h.instance], ['took', 'Took', took(h.tookMillis)],
                ['group', 'Group', h.group], ['reason', 'Reason', h.reason], ['result', 'Result', h.result],
                ['progress', 'Progress', h.progress]];
        } else {
            summary = 'no message ' + s.id + ' is pending or in flight in queue ' + s.queue + ', and its history holds no'
                + ' record of it. It was never sent, or was cancelled before a consumer that keeps the history claimed it;'
                + ' or it was settled while the queue kept no history'
                + ' (the history is off unless turned on), or its record is gone (trimmed by the history\'s max-age or'
                + ' max-count); a message dead-lettered because its lease ran out on its last attempt, or because it'
                + ' expired, leaves no record either.';
        }
        return el('div', { id: 'lookup-status', 'data-state': s.state },
            el('p', { id: 'lookup-summary' }, el('span', { className: 'badge state-' + s.state }, STATE_LABELS[s.state] || s.state),
                ' ', el('code', {}, s.id), ': ', summary),
            fields.length ? el('table', { id: 'lookup-fields', className: 'fields' }, el('tbody', {},
                fields.map(([col, label, value]) => el('tr', { 'data-col': col }, el('th', {}, label), td(col, value, 'wrap')))))
                : null,
            el('p', { className: 'muted' }, 'Read at Redis time ' + when(s.serverTime) + '; look it up again for a newer answer.'));
    }

    // ---- job sets: one set by id, its counts, state and first dead members (each linked to its queue's dead letters)

    const SET_STATES = { running: 'Running', succeeded: 'Succeeded', 'completed-with-failures': 'Completed with failures',
        unsealed: 'Unsealed' };
    const SET_SUMMARIES = {
        running: 'Members are still pending: waiting, in flight or being retried.',
        succeeded: 'Every member was acknowledged.',
        'completed-with-failures': 'Every member is settled, some dead or cancelled. A dead member requeued and then '
            + 'acknowledged counts as acknowledged, so the set may still succeed.',
        unsealed: 'Its first send did not finish, so it sends no callback. Sending the same set again under this id '
            + 'completes it.'
    };

    async function renderSet(r) {
        const o = await get('/api/overview');
        applySettings(o);
        const view = document.getElementById('view');
        const title = el('h1', { id: 'view-title' }, 'Job sets');
        if (!r.id) {
            view.replaceChildren(title, el('p', { className: 'muted', id: 'set-help' }, 'A job set is a group of messages '
                + 'sent together, across queues, whose callbacks are sent once every member is acknowledged, settled, or '
                + 'for each member that dies. Type a set\'s id above (DelayQueueTemplate.sendSet returns it; a member\'s '
                + 'handler finds it with JobSet.setOf) to see where it stands.'));
            return;
        }
        let s;
        try {
            s = await get('/api/sets?id=' + encodeURIComponent(r.id));
        } catch (e) {
            if (e.status !== 400 && e.status !== 404) throw e;
            view.replaceChildren(title, el('p', { id: 'set-error', className: 'bad', 'data-status': e.status }, e.message));
            return;
        }
        const stat = (id, label, value, className) => el('div', { className: 'stat', id: 'set-stat-' + id },
            el('b', { className: className }, value), el('span', {}, label));
        const yes = v => v ? 'yes' : 'no';
        const fields = [['sealed', 'Sealed', yes(s.sealed)], ['createdAt', 'Created', when(s.createdAt)],
            ['expiresAt', 'Kept until', when(s.expiresAt) + ' (unless it changes before)'],
            ['parent', 'Parent set', s.parent ? el('a', { href: setLink(s.parent) }, s.parent) : null],
            ['successSent', 'Success callback sent', yes(s.successSent)],
            ['completeSent', 'Complete callback sent', yes(s.completeSent)]];
        const rows = s.deadMembers.map(m => el('tr', { 'data-id': m.id, 'data-queue': m.queue || '' },
            td('queue', m.queue === null || m.queue === undefined ? 'a child set'
                : (m.declared ? el('a', { href: link(m.queue, 'dead') }, m.queue) : m.queue)),
            td('id', m.queue === null || m.queue === undefined ? el('a', { href: setLink(m.id) }, m.id) : m.id)));
        const more = s.dead > s.deadMembers.length
            ? el('p', { className: 'muted', id: 'set-dead-more' }, 'The first ' + s.deadMembers.length + ' of ' + s.dead
                + ' dead members.') : null;
        view.replaceChildren(...[
            el('h1', { id: 'view-title' }, 'Job set ', el('code', {}, s.id), ' ',
                el('span', { className: 'badge set-' + s.state, id: 'set-state', 'data-state': s.state },
                    SET_STATES[s.state] || s.state)),
            el('p', { id: 'set-summary' }, SET_SUMMARIES[s.state] || ''),
            el('div', { className: 'stats' }, stat('total', 'members', s.total), stat('pending', 'pending', s.pending),
                stat('acknowledged', 'acknowledged', s.acknowledged), stat('dead', 'dead', s.dead, s.dead > 0 ? 'bad' : null),
                stat('cancelled', 'cancelled', s.cancelled)),
            el('table', { id: 'set-fields', className: 'fields' }, el('tbody', {},
                fields.map(([col, label, value]) => el('tr', { 'data-col': col }, el('th', {}, label), td(col, value, 'wrap'))))),
            el('h2', {}, 'Dead members'),
            el('p', { className: 'muted' }, 'Each is in its queue\'s dead letters (unless it expired rather than failed): '
                + 'requeue it there, and once it is acknowledged the set counts it so.'),
            el('div', { className: 'card' }, el('table', { id: 'set-dead' },
                el('thead', {}, el('tr', {}, ['Queue', 'Id'].map(h => el('th', {}, h)))),
                el('tbody', {}, rows.length ? rows : el('tr', { className: 'empty' }, el('td', { colspan: 2 }, 'No dead members'))))),
            more].filter(child => child !== null));
    }

    // The history: messages the consumers acknowledged or dead-lettered, the latest first, while the queue keeps one
    async function completedTable(r) {
        const page = await get(q(r.code) + '/history?offset=' + encodeURIComponent(r.offset));
        const headers = ['Id', 'Outcome', 'Settled', 'Attempts', 'Instance', 'Took', 'Group', 'Reason', 'Result'];
        const rows = page.records.map(h => el('tr', { 'data-id': h.id, 'data-outcome': h.outcome },
            td('id', h.id), td('outcome', h.outcome, h.outcome === 'dead-lettered' ? 'bad' : (h.outcome === 'cancelled' ? 'muted' : null)),
            td('settledAt', when(h.settledAt) + ' (' + ago(h.settledAgoMillis) + ')'), td('attempts', h.attempts, 'num'),
            td('instance', h.instance), td('took', took(h.tookMillis), 'num'), td('group', h.group), td('reason', h.reason, 'wrap'),
            td('result', h.result, 'wrap')));
        const empty = el('tr', { className: 'empty' }, el('td', { colspan: headers.length, id: 'history-empty' },
            'No records in this queue\'s history. A queue keeps none unless its consumers are told to: set '
            + 'delayqueue.queues.' + r.code + '.history.max-age or .max-count (or delayqueue.consumer.history.* for every '
            + 'queue; ConsumerOptions.Builder.keepHistory in the core API), and each message they acknowledge or '
            + 'dead-letter from then on leaves a record here.'));
        return el('div', {}, el('p', { className: 'muted', id: 'history-info' }, 'Messages acknowledged, dead-lettered or '
            + 'cancelled, the latest first, as the queue\'s history keeps them (' + page.total + ' kept).'),
            el('div', { className: 'card' }, el('table', { id: 'history' },
                el('thead', {}, el('tr', {}, headers.map(h => el('th', {}, h)))),
                el('tbody', {}, rows.length ? rows : empty))),
            pager(r, page));
    }

    // ---- the queue's last hour: three small charts, drawn here as inline SVG (no chart library), from the activity
    // counts every instance adds to Redis about once a minute (GET .../activity: 60 minutes, the oldest first)

    const SVG = 'http://www.w3.org/2000/svg';

    function svg(tag, attrs, ...children) {
        const node = document.createElementNS(SVG, tag);
        for (const [k, v] of Object.entries(attrs || {})) {
            if (v !== null && v !== undefined) node.setAttribute(k, String(v));
        }
        for (const c of children.flat()) {
            if (c === null || c === undefined) continue;
            node.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
        }
        return node;
    }

    function millis(v) {
        return v >= 1000 ? (v / 1000).toFixed(v >= 10000 ? 0 : 1) + ' s' : v + ' ms';
    }

    function minuteOf(iso) {
        return iso.substring(11, 16); // HH:MM of the Redis clock, UTC
    }

    // The largest value rounded up to 1, 2 or 5 times a power of ten, so the axis label is a round number
    function niceTop(max) {
        if (max <= 0) return 1;
        const power = Math.pow(10, Math.floor(Math.log10(max)));
        return [1, 2, 5, 10].map(f => f * power).find(top => top >= max);
    }

    // One chart: a bar per minute and series, each series drawn from zero in the given order (the first the largest,
    // so a later one shows inside it: dead letters within the failed, the average lateness within the largest). A
    // transparent column per minute carries its tooltip (every series' value at that minute).
    function activityChart(id, title, minutes, series, format) {
        const W = 360, H = 130, LEFT = 46, RIGHT = 6, TOP = 8, BOTTOM = 20;
        const plotW = W - LEFT - RIGHT, plotH = H - TOP - BOTTOM;
        const max = Math.max(0, ...minutes.flatMap(m => series.map(s => m[s.key])));
        const top = niceTop(max);
        const step = plotW / minutes.length;
        const y = v => TOP + plotH - (v / top) * plotH;
        const bars = [];
        const columns = [];
        minutes.forEach((m, i) => {
            const x = LEFT + i * step;
            for (const s of series) {
                const v = m[s.key];
                if (v > 0) bars.push(svg('rect', { class: 'bar ' + s.className, x: (x + 0.5).toFixed(1), y: y(v).toFixed(1),
                    width: Math.max(1, step - 1).toFixed(1), height: (TOP + plotH - y(v)).toFixed(1),
                    'data-series': s.key, 'data-minute': m.minute, 'data-value': v }));
            }
            columns.push(svg('rect', { class: 'hit', x: x.toFixed(1), y: TOP, width: step.toFixed(1), height: plotH,
                'data-minute': m.minute }, svg('title', {}, minuteOf(m.minute) + ' UTC — '
                + series.map(s => s.label + ' ' + format(m[s.key])).join(', '))));
        });
        const first = minutes.length ? minuteOf(minutes[0].minute) : '';
        const last = minutes.length ? minuteOf(minutes[minutes.length - 1].minute) : '';
        const picture = svg('svg', { viewBox: '0 0 ' + W + ' ' + H, width: W, height: H, role: 'img',
                'aria-label': title, 'data-chart': id, 'data-max': max },
            svg('title', {}, title),
            svg('line', { class: 'axis', x1: LEFT, y1: TOP + plotH, x2: W - RIGHT, y2: TOP + plotH }),
            svg('line', { class: 'axis', x1: LEFT, y1: TOP, x2: LEFT, y2: TOP + plotH }),
            svg('line', { class: 'grid', x1: LEFT, y1: TOP, x2: W - RIGHT, y2: TOP }),
            svg('text', { class: 'label y-top', x: LEFT - 4, y: TOP + 4, 'text-anchor': 'end' }, format(top)),
            svg('text', { class: 'label', x: LEFT - 4, y: TOP + plotH, 'text-anchor': 'end' }, format(0)),
            svg('text', { class: 'label x-first', x: LEFT, y: H - 4 }, first),
            svg('text', { class: 'label x-last', x: W - RIGHT, y: H - 4, 'text-anchor': 'end' }, last),
            bars, columns,
            max === 0 ? svg('text', { class: 'label empty', x: LEFT + plotW / 2, y: TOP + plotH / 2, 'text-anchor': 'middle' },
                'nothing this hour') : null);
        const legend = el('div', { className: 'legend' }, series.map(s => el('span', {},
            el('i', { className: 'swatch ' + s.className }), s.label)));
        return el('div', { className: 'chart', id: 'chart-' + id }, el('div', { className: 'chart-title' }, title), picture, legend);
    }

    async function activityPanel(code) {
        let page;
        try {
            page = await get(q(code) + '/activity');
        } catch (e) { // the charts are extra: their failure leaves the rest of the page as it was
            return el('div', { id: 'activity' }, el('h2', {}, 'Last hour (all instances)'),
                el('p', { className: 'muted', id: 'activity-error' }, 'Could not load the last hour: ' + e.message));
        }
        const count = v => String(v);
        return el('div', { id: 'activity' },
            el('h2', { title: 'counted by every instance consuming the queue and added to Redis about once a minute' },
                'Last hour (all instances)'),
            el('div', { className: 'charts' },
                activityChart('handled', 'Handled per minute', page.minutes,
                    [{ key: 'handled', label: 'handled', className: 'ok' }], count),
                activityChart('failed', 'Failed per minute', page.minutes,
                    [{ key: 'failed', label: 'failed (retried + dead)', className: 'warn' },
                        { key: 'deadLettered', label: 'dead-lettered', className: 'bad' }], count),
                activityChart('lateness', 'Lateness per minute', page.minutes,
                    [{ key: 'maxLatenessMs', label: 'max', className: 'light' },
                        { key: 'averageLatenessMs', label: 'average', className: 'accent' }], millis)),
            el('p', { className: 'muted' }, 'Minutes of the Redis clock, UTC. Lateness is a handler\'s start less its due '
                + 'time. Each instance adds its counts about once a minute, so the last minute or two are still filling in.'));
    }

    // ---- payloads and actions

    async function showPayload(code, id) {
        try {
            const m = await get(q(code) + '/message?id=' + encodeURIComponent(id));
            payloadPanel('Message ' + id, m.content, m.message);
        } catch (e) {
            flash('error', e.message);
        }
    }

    // message: the live message's row (its priority shown beside the size), or none for a dead letter
    function payloadPanel(title, content, message) {
        let text = content.payload;
        if (!content.cut) {
            try { text = JSON.stringify(JSON.parse(content.payload), null, 2); } catch (e) { /* not JSON: as stored */ }
        }
        const headers = Object.entries(content.headers || {});
        document.getElementById('panel').replaceChildren(el('div', { className: 'panel', id: 'payload' },
            el('div', { className: 'toolbar' }, el('b', {}, title), el('span', { className: 'muted' }, content.bytes + ' bytes'
                + (content.cut ? ', cut to the dashboard\'s max-payload-size' : '')),
                message ? el('span', { className: 'muted', id: 'payload-priority', 'data-priority': message.priority },
                    'priority ' + message.priority) : null,
                el('span', { className: 'spacer' }),
                el('button', { onclick: () => document.getElementById('panel').replaceChildren() }, 'Close')),
            headers.length ? el('div', { id: 'payload-headers' }, headers.map(([k, v]) => el('div', {}, el('code', {}, k), ': ', v))) : null,
            el('pre', { id: 'payload-body' }, text)));
        document.getElementById('panel').scrollIntoView();
    }

    function reschedulePanel(code, m) {
        const input = el('input', { type: 'text', id: 'reschedule-at', value: m.dueAt || '', 'aria-label': 'new due time' });
        document.getElementById('panel').replaceChildren(el('div', { className: 'panel', id: 'reschedule' },
            el('div', { className: 'toolbar' }, el('b', {}, 'Reschedule ' + m.id), el('span', { className: 'muted' },
                'new due time, ISO-8601 UTC such as 2030-01-31T09:00:00Z')),
            el('div', { className: 'toolbar' }, input,
                el('button', { id: 'reschedule-submit', onclick: () => act('Reschedule message ' + m.id + ' to ' + input.value + '?',
                    q(code) + '/reschedule', { id: m.id, dueAt: input.value }) }, 'Reschedule'),
                el('button', { onclick: () => document.getElementById('panel').replaceChildren() }, 'Close'))));
        document.getElementById('panel').scrollIntoView();
    }

    async function act(question, path, body) {
        if (!window.confirm(question)) return;
        try {
            const result = await post(path, body);
            flash('ok', result.message);
            document.getElementById('panel') && document.getElementById('panel').replaceChildren();
        } catch (e) {
            flash('error', e.message);
        }
        await render();
    }

    // ---- start

    window.addEventListener('hashchange', () => {
        clearFlash();
        document.getElementById('panel').replaceChildren();
        render();
    });
    document.addEventListener('DOMContentLoaded', () => { render(); schedule(); });
}());
