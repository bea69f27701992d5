// What the user sees of the daemon's state: the status bar item's text and tooltip, and the full
// status report a click opens. Pure functions of rag/sessions answers and the current time.
import { percentText, type CacheStatus, type Status } from './protocol';

export function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

export function ageText(seconds: number): string {
  if (seconds < 90) return `${Math.max(0, Math.round(seconds))} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  if (seconds < 129600) return `${Math.round(seconds / 3600)} h`;
  return `${Math.round(seconds / 86400)} d`;
}

const count = (n: number) => n.toLocaleString('en-US');
const files = (n: number) => `${count(n)} ${n === 1 ? 'file' : 'files'}`;

/** The stored index in one phrase: "index on disk: saved (generation 4, 2.3 MB, written 41 s ago)". */
export function cacheText(cache: CacheStatus): string {
  const stored = cache.storedGeneration === null ? 'nothing stored' : `generation ${cache.storedGeneration}`;
  const age = cache.ageSeconds === null ? '' : `, written ${ageText(cache.ageSeconds)} ago`;
  const detail = cache.detail ? `: ${cache.detail}` : '';
  return `index on disk: ${cache.state} (${stored}, ${sizeText(cache.bytesOnDisk)}${age})${detail}`;
}

/** Seconds since the session's live generation was committed, or null before the first. */
export function generationAge(status: Status, now: number): number | null {
  if (!status.lastIndexTime) return null;
  const at = Date.parse(status.lastIndexTime);
  return Number.isNaN(at) ? null : Math.max(0, (now - at) / 1000);
}

/** The session's problems a user should look at: failed run, per-file errors, coverage.
 *  `inReport`: said inside the full status, which lists the unreadable files itself. */
export function problems(status: Status, inReport = false): string[] {
  const found: string[] = [];
  if (status.lastError) found.push(`the last run failed: ${status.lastError}`);
  if (status.errors.length > 0) {
    found.push(`${status.errors.length} file(s) could not be read (${inReport ? 'listed below' : 'see the full status'})`);
  }
  if (status.cache?.state === 'failed') found.push(cacheText(status.cache));
  found.push(...(status.warnings ?? []));
  return found;
}

function sessionName(status: Status): string {
  const root = status.root ?? status.session;
  return root.split(/[\\/]/).filter((part) => part !== '').pop() ?? root;
}

/** "indexing 40%" (the status bar's words); with ``files``, "indexing 40% (1,200/3,000 files)". */
function progressText(status: Status, withFiles = false): string {
  const progress = status.progress;
  if (!progress || progress.totalFiles === 0) return 'indexing';
  const percent = percentText(progress.indexedFiles, progress.totalFiles);
  return withFiles ? `${percent} (${count(progress.indexedFiles)}/${count(progress.totalFiles)} files)` : percent;
}

/** A first index answering from what it has read so far (protocol.md §5a). */
function partialText(status: Status): string {
  return status.partial ? `, answers from the first ${files(status.fileCount)} (partial)` : '';
}

export interface StatusSummary {
  text: string;
  tooltip: string;
  /** Something needs the user's attention (the item gets the warning colours). */
  warning: boolean;
}

/** One line per session for the tooltip, and the status bar's text for all sessions together. */
export function summarize(statuses: Status[], now: number): StatusSummary {
  if (statuses.length === 0) return { text: '$(sync~spin) ragls', tooltip: 'ragls: starting', warning: false };
  // A session without a first generation is about to index (its run may not have begun yet).
  const indexing = statuses.filter((s) => s.indexing || s.generation === 0);
  const issues = statuses.flatMap((s) => problems(s).map((p) => (statuses.length > 1 ? `${sessionName(s)}: ${p}` : p)));
  const chunks = statuses.reduce((sum, s) => sum + s.chunkCount, 0);
  const ages = statuses.map((s) => generationAge(s, now)).filter((a): a is number => a !== null);
  const lines = statuses.map((s) => {
    const age = generationAge(s, now);
    const state = s.indexing || s.generation === 0
      ? `${progressText(s, true)}${partialText(s)}`
      : `generation ${s.generation}${age === null ? '' : `, updated ${ageText(age)} ago`}`;
    const stale = s.stale && !s.indexing ? ', changes pending' : '';
    return `${sessionName(s)}: ${count(s.fileCount)} files, ${count(s.chunkCount)} chunks, ${state}${stale}`;
  });
  const tooltip = ['ragls', ...lines, ...issues.map((p) => `⚠ ${p}`), 'Click for the full status'].join('\n');
  if (indexing.length > 0) {
    const shown = indexing.length === 1 ? progressText(indexing[0]) : `indexing ${indexing.length} folders`;
    return { text: `$(sync~spin) ragls: ${shown}`, tooltip, warning: issues.length > 0 };
  }
  const icon = issues.length > 0 ? '$(warning)' : '$(database)';
  const age = ages.length > 0 ? ` · ${ageText(Math.min(...ages))} ago` : '';
  const pending = statuses.some((s) => s.stale) ? ' · updating' : '';
  return { text: `${icon} ragls: ${count(chunks)} chunks${pending || age}`, tooltip, warning: issues.length > 0 };
}

/** The full status of every session as a Markdown document (what a click on the item opens). */
export function statusReport(statuses: Status[], now: number): string {
  const out = ['# ragls status', '', `As of ${new Date(now).toISOString()}.`, ''];
  if (statuses.length === 0) out.push('No workspace folder is open, so nothing is indexed.', '');
  for (const s of statuses) {
    const age = generationAge(s, now);
    out.push(`## ${sessionName(s)}`, '', `\`${s.root ?? s.session}\``, '', '| | |', '|---|---|');
    const row = (name: string, value: string) => out.push(`| ${name} | ${value.replace(/\|/g, '\\|')} |`);
    row('Files', count(s.fileCount));
    row('Chunks', count(s.chunkCount));
    row('Generation', `${s.generation}${age === null ? '' : `, updated ${ageText(age)} ago`}`);
    row('State', s.indexing ? `${progressText(s, true)}${partialText(s)}` : s.stale ? 'changes pending' : 'up to date');
    row('Watcher', s.watcher ? `${s.watcher.state} (${count(s.watcher.watches)} watches)${s.watcher.detail ? `: ${s.watcher.detail}` : ''}` : 'none');
    row('Ranking', s.pipeline);
    if (s.cache) row('Index on disk', cacheText(s.cache).replace(/^index on disk: /, ''));
    if (s.lastRun) {
      const run = s.lastRun;
      row('Last run', `${files(run.filesRead)} read, ${count(run.filesChunked)} chunked, ${count(run.filesRemoved)} removed`);
    }
    if (s.addedDocumentCount > 0) row('Added documents', count(s.addedDocumentCount));
    out.push('');
    const skipped = Object.entries(s.skipped);
    out.push('### Not indexed', '');
    if (skipped.length === 0) {
      out.push('Nothing was skipped.', '');
    } else {
      out.push('| Reason | Files and folders |', '|---|---|');
      for (const [reason, n] of skipped) out.push(`| ${reason} | ${count(n)} |`);
      out.push('', 'For one file, run **ragls: Why is this file (not) indexed?** on it.', '');
    }
    const issues = problems(s, true);
    if (issues.length > 0) out.push('### Problems', '', ...issues.map((p) => `- ${p}`), '');
    if (s.errors.length > 0) out.push('### Files that could not be read', '', ...s.errors.map((e) => `- ${e}`), '');
    if ((s.hints ?? []).length > 0) out.push('### Notes', '', ...s.hints.map((h) => `- ${h}`), '');
  }
  return out.join('\n');
}
