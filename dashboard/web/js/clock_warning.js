// SPDX-License-Identifier: MIT
// The job view's clock warning: which ranks run on a host whose clock is off
// from the collector's past the daemon's threshold (`clock_warning` of a
// RankRow, docs/api.md), with the offset. Pure; null when no rank is.
import { seconds } from './format.js';

export function clockWarningText(ranks) {
  const warned = (ranks ?? []).filter((r) => r.clock_warning);
  if (!warned.length) return null;
  const named = warned.slice(0, 3).map((r) => {
    const off = r.clock_offset_seconds ?? 0;
    return `rank ${r.rank} (${r.host || 'its host'}) ${off > 0 ? '+' : ''}${seconds(off)}`;
  });
  const more = warned.length > 3 ? ` and ${warned.length - 3} more` : '';
  return `Clock off: ${named.join(', ')}${more} against the collector; job views correct for it.`;
}
