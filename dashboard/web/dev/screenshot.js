// SPDX-License-Identifier: MIT
// Development only: opens a page URL in Debian's Chromium through
// playwright-core, waits, prints console errors and saves a screenshot.
//   node dev/screenshot.js URL OUT.png [--dark] [--wait MS] [--width W] [--height H] [--full]
import { chromium } from 'playwright-core';

const [url, out, ...rest] = process.argv.slice(2);
const opt = (name, dflt) => (rest.includes(name) ? Number(rest[rest.indexOf(name) + 1]) : dflt);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const page = await browser.newPage({
  viewport: { width: opt('--width', 1400), height: opt('--height', 900) },
  colorScheme: rest.includes('--dark') ? 'dark' : 'light',
});
const problems = [];
page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`); });
page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
await page.goto(url);
await page.waitForTimeout(opt('--wait', 3000));
if (rest.includes('--hover')) {
  await page.locator('canvas.timeline-canvas').scrollIntoViewIfNeeded();
  const box = await page.locator('canvas.timeline-canvas').boundingBox();
  if (box) await page.mouse.move(box.x + box.width * Number(process.env.HX ?? 0.6), box.y + Number(process.env.HY ?? 40));
  await page.waitForTimeout(300);
}
await page.screenshot({ path: out, fullPage: rest.includes('--full') });
console.log(problems.length ? problems.join('\n') : 'no console errors');
await browser.close();
