// SPDX-License-Identifier: MIT
// Light/dark: follows the OS (prefers-color-scheme) until the user toggles,
// then the choice is pinned on <html data-theme> and kept in localStorage.
// Canvas and chart code read colours through cssColor(), which resolves the
// CSS variables (light-dark() pairs) for the current scheme. Dispatches a
// 'themechange' event on document whenever the effective scheme changes.

const kKey = 'stallwatch.theme';
const media = matchMedia('(prefers-color-scheme: dark)');
let probe = null;
const cache = new Map();

export function effectiveTheme() {
  const pinned = document.documentElement.dataset.theme;
  if (pinned === 'light' || pinned === 'dark') return pinned;
  return media.matches ? 'dark' : 'light';
}

function changed() {
  cache.clear();
  document.dispatchEvent(new CustomEvent('themechange', { detail: effectiveTheme() }));
}

export function initTheme(button) {
  const saved = localStorage.getItem(kKey);
  if (saved === 'light' || saved === 'dark') document.documentElement.dataset.theme = saved;
  const label = () => {
    const next = effectiveTheme() === 'dark' ? 'light' : 'dark';
    button.textContent = next === 'dark' ? '☾' : '☀';
    button.setAttribute('aria-label', `Switch to ${next} theme (d)`);
  };
  media.addEventListener('change', () => {
    label();
    changed();
  });
  label();
  return () => {
    const next = effectiveTheme() === 'dark' ? 'light' : 'dark';
    document.documentElement.dataset.theme = next;
    localStorage.setItem(kKey, next);
    label();
    changed();
  };
}

// The computed colour of a CSS custom property, e.g. cssColor('--c-fetch') -> "rgb(148, 87, 184)".
export function cssColor(name) {
  if (cache.has(name)) return cache.get(name);
  if (!probe) {
    probe = document.createElement('span');
    probe.style.display = 'none';
    document.body.append(probe);
  }
  probe.style.color = `var(${name})`;
  const value = getComputedStyle(probe).color;
  cache.set(name, value);
  return value;
}
