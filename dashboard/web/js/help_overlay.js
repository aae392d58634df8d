// SPDX-License-Identifier: MIT
// The keyboard help dialog ("?"). Focus moves to it when opened and back to
// where it was when closed (Esc, "?" or the close button).
import { h, replaceChildren } from './dom.js';

export const kShortcuts = [
  [['?'], 'show or hide this help'],
  [['/'], 'filter jobs'],
  [['j', '↓'], 'next row (jobs or ranks)'],
  [['k', '↑'], 'previous row'],
  [['Enter'], 'open the selected job'],
  [['Esc', 'u'], 'back to the job list (or close this help)'],
  [['w', 'W'], 'next / previous metrics window'],
  [['1', '2', '3', '4'], 'pick a window directly'],
  [['t'], 'cycle the timeline span (10 / 30 / 60 s)'],
  [['s'], 'reverse the sort of the table'],
  [['d'], 'switch light / dark'],
];

export class HelpOverlay {
  constructor(el) {
    this.el = el;
    this.returnFocus = null;
    this.close = h('button', { type: 'button', class: 'icon-button', 'aria-label': 'Close help', onclick: () => this.hide() }, '×');
    replaceChildren(el, h('div', { class: 'dialog' },
      h('div', { class: 'panel-head' }, h('h2', { id: 'help-title' }, 'Keyboard shortcuts'), h('span', { class: 'spacer' }), this.close),
      h('table', {}, h('tbody', {}, kShortcuts.map(([k, what]) => h('tr', {}, h('td', {}, k.map((key) => [h('kbd', {}, key), ' '])), h('td', {}, what))))),
      h('p', {}, 'Click any column header to sort (click again to reverse). The URL keeps the job, rank and window, so it can be shared.')));
    el.addEventListener('click', (ev) => {
      if (ev.target === el) this.hide();
    });
  }

  get open() {
    return !this.el.hidden;
  }

  toggle() {
    if (this.open) this.hide();
    else this.show();
  }

  show() {
    this.returnFocus = document.activeElement;
    this.el.hidden = false;
    this.close.focus();
  }

  hide() {
    this.el.hidden = true;
    if (this.returnFocus && this.returnFocus.focus) this.returnFocus.focus();
  }
}
