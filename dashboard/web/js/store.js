// SPDX-License-Identifier: MIT
// The page's single state object and its change notification. Anything may
// call set(); listeners run once per animation frame with the merged state,
// so two WebSocket ticks between frames cost one render. Main thread only.

export class Store {
  constructor(initial) {
    this.state = { ...initial };
    this.listeners = new Set();
    this.pending = false;
  }

  get() {
    return this.state;
  }

  set(patch) {
    this.state = { ...this.state, ...patch };
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => {
      this.pending = false;
      for (const fn of this.listeners) fn(this.state);
    });
  }

  subscribe(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }
}
