// SPDX-License-Identifier: MIT
// Page-wide keyboard shortcuts (listed in help_overlay.js). Single-key
// shortcuts are ignored while typing in a field and when a modifier is held;
// in the job filter, ↓ moves into the table and Enter opens the first match.
const kRowKeys = { j: 1, ArrowDown: 1, k: -1, ArrowUp: -1 };

export function installShortcuts({ help, actions, getState, jobList, jobView, toggleTheme }) {
  document.addEventListener('keydown', (ev) => {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const s = getState();
    const inJob = Boolean(s.route.job);
    if (help.open) {
      if (ev.key === 'Escape' || ev.key === '?') {
        ev.preventDefault();
        help.hide();
      }
      return;
    }
    const target = ev.target;
    if (target.matches?.('input, textarea, select, [contenteditable]')) {
      if (target === jobList.filter) {
        if (ev.key === 'Escape') {
          if (target.value) actions.setFilter('');
          target.value = '';
          target.blur();
        } else if (ev.key === 'ArrowDown') {
          ev.preventDefault();
          jobList.move(0);
        } else if (ev.key === 'Enter') {
          const job = jobList.selected();
          if (job) actions.openJob(job);
        }
      }
      return;
    }
    const view = inJob ? jobView : jobList;
    const inTable = Boolean(target.closest?.('table'));
    if (ev.key in kRowKeys && (ev.key.length === 1 || inTable)) {
      ev.preventDefault();
      view.move(kRowKeys[ev.key]);
      return;
    }
    const windows = s.windows;
    const step = (list, cur, d) => list[(list.indexOf(cur) + d + list.length) % list.length];
    switch (ev.key) {
      case '?': help.toggle(); break;
      case '/':
        if (inJob) actions.back();
        requestAnimationFrame(() => requestAnimationFrame(() => jobList.focusFilter()));
        break;
      case 'Enter':
        if (!inJob && !target.closest?.('a, button')) {
          const job = jobList.selected();
          if (job) actions.openJob(job);
        }
        return;
      case 'Escape': case 'u': case 'Backspace':
        if (!inJob) return;
        actions.back();
        break;
      case 'w': actions.setWindow(step(windows, s.window, 1)); break;
      case 'W': actions.setWindow(step(windows, s.window, -1)); break;
      case '1': case '2': case '3': case '4': case '5': {
        const w = windows[Number(ev.key) - 1];
        if (!w) return;
        actions.setWindow(w);
        break;
      }
      case 't': actions.cycleSpan(); break;
      case 's': actions.reverseSort(inJob ? 'ranks' : 'jobs'); break;
      case 'd': toggleTheme(); break;
      default: return;
    }
    ev.preventDefault();
  });
}
