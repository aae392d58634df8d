// SPDX-License-Identifier: MIT
// The tab's one WebSocket to /api/v1/stream. Keeps it open: reconnects with
// exponential backoff after a close or error, and treats a silent socket
// (no message for several ticks) as dead. Re-sends the current subscription
// on every connect. Reports its state through onStatus:
//   'connecting' (first try), 'live' (hello received), 'reconnecting'
// with the time of the next attempt. Main thread only; owns the socket.
import { backoffDelay } from './backoff.js';

const kSilentTicks = 8;
const kMinSilentMs = 5000;

export class Stream {
  constructor(url, { onHello, onTick, onStatus }) {
    this.url = url;
    this.onHello = onHello;
    this.onTick = onTick;
    this.onStatus = onStatus;
    this.ws = null;
    this.job = null;
    this.attempt = 0;
    this.tickMs = 500;
    this.retryTimer = null;
    this.watchdog = null;
    this.lastMessage = 0;
    this.everLive = false;
  }

  start() {
    this.connect();
  }

  subscribe(job) {
    this.job = job ?? null;
    this.send({ type: 'subscribe', job: this.job });
  }

  send(msg) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(msg));
  }

  connect() {
    clearTimeout(this.retryTimer);
    this.onStatus({ state: this.everLive || this.attempt > 0 ? 'reconnecting' : 'connecting', retryAt: null });
    let ws;
    try {
      ws = new WebSocket(this.url);
    } catch {
      this.scheduleRetry();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      this.lastMessage = performance.now();
      this.send({ type: 'subscribe', job: this.job });
      this.armWatchdog();
    };
    ws.onmessage = (ev) => this.handle(ev.data);
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.scheduleRetry();
    };
    ws.onerror = () => ws.close();
  }

  handle(data) {
    this.lastMessage = performance.now();
    let msg;
    try {
      msg = JSON.parse(data);
    } catch {
      return;
    }
    if (msg.type === 'hello') {
      this.attempt = 0;
      this.everLive = true;
      if (msg.tick_ms > 0) this.tickMs = msg.tick_ms;
      this.onStatus({ state: 'live', retryAt: null });
      this.onHello(msg);
    } else if (msg.type === 'tick') {
      this.onTick(msg);
    }
  }

  armWatchdog() {
    clearInterval(this.watchdog);
    this.watchdog = setInterval(() => {
      const limit = Math.max(kMinSilentMs, kSilentTicks * this.tickMs);
      if (this.ws && performance.now() - this.lastMessage > limit) this.ws.close();
    }, 1000);
  }

  scheduleRetry() {
    clearInterval(this.watchdog);
    const delay = backoffDelay(this.attempt);
    this.attempt += 1;
    this.onStatus({ state: this.everLive || this.attempt > 1 ? 'reconnecting' : 'connecting', retryAt: Date.now() + delay });
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }
}
