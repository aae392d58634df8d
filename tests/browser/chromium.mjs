// SPDX-License-Identifier: MIT
// Headless Debian Chromium through playwright-core (never a downloaded
// browser), and a page wrapper that records every console error or warning,
// uncaught page error and failed request with the time it happened, so a test
// can assert "no console errors" while allowing exactly the ones it caused on
// purpose (a daemon it stopped, a job it has not started yet). Test-only.
import path from 'node:path';
import { artifactsDir, chromium, chromiumPath } from './environment.mjs';

export async function launchChromium() {
  return chromium.launch({
    executablePath: chromiumPath,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
}

// One tab in its own browser context (viewport, colour scheme) and the
// problems it logged; owns the context, closed by close().
export class WatchedPage {
  static async open(browser, url, { colorScheme = 'light', width = 1440, height = 1000 } = {}) {
    const context = await browser.newContext({ viewport: { width, height }, colorScheme });
    const page = await context.newPage();
    const watched = new WatchedPage(context, page);
    await page.goto(url);
    return watched;
  }

  constructor(context, page) {
    this.context = context;
    this.page = page;
    this.problems = [];
    const note = (kind, text, url = '') => this.problems.push({ kind, text, url, at: Date.now() });
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') note(`console.${m.type()}`, m.text(), m.location()?.url ?? '');
    });
    page.on('pageerror', (e) => note('pageerror', `${e.message}\n${e.stack ?? ''}`));
    // A request the page aborts itself (an AbortController when the rank or
    // job changes) is not a failure.
    page.on('requestfailed', (r) => {
      const why = r.failure()?.errorText ?? 'failed';
      if (why !== 'net::ERR_ABORTED') note('requestfailed', why, r.url());
    });
  }

  // Problems not matched by `allowed(problem)`, as printable lines.
  unexpected(allowed = () => false) {
    return this.problems.filter((p) => !allowed(p)).map((p) => `${p.kind}: ${p.text} ${p.url}`.trim());
  }

  async screenshot(name, options = {}) {
    const file = path.join(artifactsDir, `${name}.png`);
    await this.page.screenshot({ path: file, ...options });
    return file;
  }

  async close() {
    await this.context.close();
  }
}
