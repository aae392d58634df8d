// SPDX-License-Identifier: MIT
// What the browser tests run against, from the environment ctest sets
// (tests/browser/CMakeLists.txt). Exits the process with 77, which ctest
// reports as "Skipped", when Chromium or playwright-core is not installed;
// a missing stallwatchd or feeder is a failure, not a skip.
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

function required(name) {
  const value = process.env[name];
  if (!value || !existsSync(value)) {
    console.error(`${name}=${value ?? ''}: not found (run the browser tests through ctest)`);
    process.exit(1);
  }
  return value;
}

function skip(why) {
  console.error(`SKIPPED: ${why}`);
  process.exit(77);
}

export const stallwatchdPath = required('STALLWATCHD');
export const feederPath = required('SW_BROWSER_FEEDER');
export const webDir = required('SW_WEB_DIR');

export const chromiumPath = process.env.SW_CHROMIUM && existsSync(process.env.SW_CHROMIUM)
  ? process.env.SW_CHROMIUM
  : skip('Debian chromium is not installed (apt-get install chromium)');

// playwright-core comes from the page's own devDependencies (npm ci in
// dashboard/web); it is CommonJS, so resolve it relative to that package.
const requireFromWeb = createRequire(path.join(webDir, 'package.json'));
let playwright = null;
try {
  playwright = requireFromWeb('playwright-core');
} catch {
  skip(`playwright-core is not installed in ${webDir}/node_modules (run npm ci there)`);
}
export const { chromium } = playwright;

export const artifactsDir = process.env.SW_ARTIFACTS ?? path.resolve('artifacts');
mkdirSync(artifactsDir, { recursive: true });
