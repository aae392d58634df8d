// SPDX-License-Identifier: MIT
// Wires the page: state, routing (location.hash), the one WebSocket, the
// initial REST loads, and which view renders. Every view renders from the
// store; side effects (fetching history, the timeline poll) are idempotent
// setTarget() calls made during render.
import { api, streamUrl } from './api.js';
import { renderAlerts } from './alerts_panel.js';
import { byId } from './dom.js';
import { Header } from './header.js';
import { HelpOverlay } from './help_overlay.js';
import { JobListView } from './job_list.js';
import { effectiveRank, JobView } from './job_view.js';
import { installShortcuts } from './keyboard.js';
import { renderRankDetail } from './rank_detail.js';
import { formatRoute, parseRoute } from './route.js';
import { Store } from './store.js';
import { Stream } from './stream.js';
import { initTheme } from './theme.js';
import { kSpans } from './timeline_panel.js';

const store = new Store({
  conn: { state: 'connecting', retryAt: null },
  windows: ['10s', '60s', '300s', 'total'],
  verdictWindow: '60s',
  window: '60s',
  route: { job: null, rank: null, window: null, span: null },
  jobs: null,
  jobsTick: null,
  alerts: null,
  nowNs: 0,
  detail: null,
  detailError: null,
  filter: '',
  selectedJob: null,
  span: kSpans[0],
  sort: { jobs: { key: 'last_seen_ns', dir: 'desc' }, ranks: { key: 'rank', dir: 'asc' } },
});

let detailAbort = null;

function loadDetail(job) {
  if (detailAbort) detailAbort.abort();
  detailAbort = new AbortController();
  api.job(job, detailAbort.signal).then(
    (body) => {
      if (store.get().route.job === job) store.set({ detail: body, detailError: null, nowNs: body.now_ns ?? store.get().nowNs });
    },
    (err) => {
      if (err.name === 'AbortError' || store.get().route.job !== job) return;
      store.set({ detailError: err.status === 404 ? `no job “${job}” — it has not started yet or has been forgotten; this page follows it when it appears` : `job unavailable: ${err.message}` });
    });
}

function applyRoute(route) {
  const s = store.get();
  const window = route.window && s.windows.includes(route.window) ? route.window : s.window;
  const span = kSpans.includes(route.span) ? route.span : s.span;
  const jobChanged = route.job !== s.route.job;
  store.set({
    route, window, span,
    detail: jobChanged ? null : s.detail,
    detailError: jobChanged ? null : s.detailError,
    selectedJob: route.job ?? s.selectedJob,
  });
  if (jobChanged) {
    stream.subscribe(route.job);
    if (route.job) loadDetail(route.job);
    else jobView.deactivate();
  }
}

function replaceRoute(patch) {
  const route = { ...store.get().route, ...patch };
  history.replaceState(null, '', formatRoute(route));
  applyRoute(route);
}

const actions = {
  openJob: (job) => { location.hash = formatRoute({ job, window: store.get().window }); },
  back: () => { location.hash = formatRoute({ job: null, window: store.get().window }); },
  selectJob: (job) => { if (store.get().selectedJob !== job) store.set({ selectedJob: job }); },
  selectRank: (rank) => { if (store.get().route.rank !== rank) replaceRoute({ rank }); },
  setWindow: (window) => replaceRoute({ window }),
  setSpan: (span) => replaceRoute({ span }),
  cycleSpan: () => replaceRoute({ span: kSpans[(kSpans.indexOf(store.get().span) + 1) % kSpans.length] }),
  setSort: (table, sort) => store.set({ sort: { ...store.get().sort, [table]: sort } }),
  reverseSort: (table) => {
    const cur = store.get().sort[table];
    actions.setSort(table, { key: cur.key, dir: cur.dir === 'asc' ? 'desc' : 'asc' });
  },
  setFilter: (filter) => store.set({ filter }),
};

const tooltip = byId('tooltip');
const header = new Header({ crumbs: byId('crumbs'), windowSelect: byId('window-select'), conn: byId('conn'), onWindow: actions.setWindow });
const help = new HelpOverlay(byId('help'));
const toggleTheme = initTheme(byId('theme-toggle'));
const jobList = new JobListView(actions);
const jobView = new JobView(actions, tooltip);
const main = byId('main');
main.append(jobList.element, jobView.element);
byId('help-button').addEventListener('click', () => help.toggle());
byId('theme-toggle').addEventListener('click', toggleTheme);
installShortcuts({ help, actions, getState: () => store.get(), jobList, jobView, toggleTheme });

function windowsKnown(windows, verdictWindow) {
  if (!Array.isArray(windows) || !windows.length) return;
  const s = store.get();
  const wanted = s.route.window ?? s.window;
  const window = windows.includes(wanted) ? wanted : windows.includes(verdictWindow) ? verdictWindow : windows[0];
  store.set({ windows, verdictWindow: verdictWindow ?? s.verdictWindow, window });
}

let helloSeen = false;
const stream = new Stream(streamUrl(), {
  onStatus: (conn) => store.set({ conn }),
  onHello: (msg) => {
    windowsKnown(msg.windows, msg.verdict_window);
    if (helloSeen && store.get().route.job) {
      loadDetail(store.get().route.job);
      jobView.reload();
    }
    helloSeen = true;
  },
  onTick: (msg) => {
    const s = store.get();
    const patch = { jobs: msg.jobs ?? [], jobsTick: msg.tick ?? null, alerts: msg.alerts ?? [], nowNs: msg.now_ns };
    if (msg.job && msg.job.job === s.route.job) {
      patch.detail = msg.job;
      patch.detailError = null;
      jobView.onTick(msg.job, msg.now_ns);
    }
    store.set(patch);
  },
});

store.subscribe((s) => {
  header.update(s);
  renderAlerts(byId('alerts'), { alerts: s.alerts, job: s.route.job, nowNs: s.nowNs });
  const inJob = Boolean(s.route.job);
  jobList.element.hidden = inJob;
  jobView.element.hidden = !inJob;
  if (inJob) {
    const rank = effectiveRank(s);
    jobView.update(s, rank);
    renderRankDetail(byId('rank-detail'), s.detail?.ranks?.find((r) => r.rank === rank) ?? null, s.nowNs, s.window);
    document.title = `${s.route.job} · stallwatch`;
  } else {
    jobList.update(s);
    renderRankDetail(byId('rank-detail'), null, s.nowNs);
    document.title = 'stallwatch';
  }
});

window.addEventListener('hashchange', () => applyRoute(parseRoute(location.hash)));
applyRoute(parseRoute(location.hash));
stream.start();
api.jobs().then((body) => {
  windowsKnown(body.windows, body.verdict_window);
  if (store.get().jobs === null) store.set({ jobs: body.jobs ?? [], jobsTick: body.tick ?? null, nowNs: body.now_ns });
}, () => {});
api.alerts().then((body) => {
  if (store.get().alerts === null) store.set({ alerts: body.alerts ?? [] });
}, () => {});
