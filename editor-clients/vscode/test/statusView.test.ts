import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Status } from '../src/protocol';
import { ageText, cacheText, statusReport, summarize } from '../src/statusView';

const NOW = Date.parse('2026-12-03T12:00:00Z');

function status(fields: Partial<Status> = {}): Status {
  return {
    session: 'file:///ws/shop', root: '/ws/shop', fileCount: 240, chunkCount: 4512, generation: 7, indexing: false,
    lastIndexTime: '2026-12-03T11:57:00Z', indexedPath: '/ws/shop', addedDocumentCount: 0, skipped: { ignored: 7, secret: 1 },
    errors: [], lastError: null, watcher: { state: 'watching', watches: 16, detail: '' }, warnings: [], stale: false,
    trackedInSkipped: {}, hints: [], pipeline: 'workspace', corpusDocuments: 4512, bm25Documents: null, cache: null,
    lastRun: null, progress: null, ...fields,
  };
}

test('ready: the chunk count and how long ago the generation went live', () => {
  const summary = summarize([status()], NOW);
  assert.equal(summary.text, '$(database) ragls: 4,512 chunks · 3 min ago');
  assert.equal(summary.warning, false);
  assert.match(summary.tooltip, /^ragls\nshop: 240 files, 4,512 chunks, generation 7, updated 3 min ago\nClick for the full status$/);
});

test('indexing: the share of the files read, for one folder or several', () => {
  const running = status({ indexing: true, progress: { indexedFiles: 1200, totalFiles: 3000, currentFile: 'a.py' } });
  assert.equal(summarize([running], NOW).text, '$(sync~spin) ragls: indexing 40%');
  assert.match(summarize([running], NOW).tooltip, /\nshop: 240 files, 4,512 chunks, indexing 40% \(1,200\/3,000 files\)\n/);
  assert.equal(summarize([status({ indexing: true, progress: { indexedFiles: 0, totalFiles: 0, currentFile: '' } })], NOW).text, '$(sync~spin) ragls: indexing');
  assert.equal(summarize([running, status({ indexing: true, root: '/ws/docs' })], NOW).text, '$(sync~spin) ragls: indexing 2 folders');
});

test('a first index answering from its partial generation says how far it got and that answers are partial', () => {
  const partial = status({
    indexing: true, partial: true, generation: 1, fileCount: 64, chunkCount: 700,
    progress: { indexedFiles: 100, totalFiles: 300, currentFile: 'pkg/m099.py' },
  });
  const summary = summarize([partial], NOW);
  assert.equal(summary.text, '$(sync~spin) ragls: indexing 33%');
  assert.match(summary.tooltip, /\nshop: 64 files, 700 chunks, indexing 33% \(100\/300 files\), answers from the first 64 files \(partial\)\n/);
  assert.match(statusReport([partial], NOW), /\| State \| indexing 33% \(100\/300 files\), answers from the first 64 files \(partial\) \|/);
});

test('a session without a first generation counts as indexing, even before its run begins', () => {
  const fresh = status({ generation: 0, chunkCount: 0, fileCount: 0, lastIndexTime: null });
  assert.equal(summarize([fresh], NOW).text, '$(sync~spin) ragls: indexing');
  assert.equal(summarize([status(), fresh], NOW).text, '$(sync~spin) ragls: indexing');
});

test('several folders add up; pending changes say updating', () => {
  const two = summarize([status(), status({ root: '/ws/docs', chunkCount: 88, stale: true })], NOW);
  assert.equal(two.text, '$(database) ragls: 4,600 chunks · updating');
  assert.match(two.tooltip, /\ndocs: 240 files, 88 chunks, generation 7, updated 3 min ago, changes pending\n/);
});

test('problems turn the item into a warning and are listed in the tooltip', () => {
  const failed = summarize([status({ lastError: 'source has 9 files, over the limits.maxFiles cap' })], NOW);
  assert.equal(failed.text, '$(warning) ragls: 4,512 chunks · 3 min ago');
  assert.equal(failed.warning, true);
  assert.match(failed.tooltip, /⚠ the last run failed: source has 9 files/);
  const coverage = summarize([status({ warnings: ['BM25 covers 2 of 9 chunks'] })], NOW);
  assert.match(coverage.tooltip, /⚠ BM25 covers 2 of 9 chunks/);
  const unreadable = summarize([status({ errors: ['a.py: permission denied'] })], NOW);
  assert.match(unreadable.tooltip, /1 file\(s\) could not be read/);
});

test('before the first answer the item says starting', () => {
  assert.deepEqual(summarize([], NOW), { text: '$(sync~spin) ragls', tooltip: 'ragls: starting', warning: false });
});

test('the report lists every session with counts, age, watcher, cache, skip reasons, problems and notes', () => {
  const report = statusReport([
    status({
      errors: ['big.bin: unreadable'], hints: ['doc/build/ holds 227 files git tracks but is skipped by default'],
      cache: { state: 'saved', path: '/c', bytesOnDisk: 2411724, storedGeneration: 7, writtenAt: null, ageSeconds: 41, writer: true,
        ownerPid: null, detail: '', loadedGeneration: null, loadSeconds: null },
      lastRun: { filesRead: 1, filesChunked: 1, filesRemoved: 0, chunksAdded: 2, chunksRemoved: 1 },
    }),
    status({ root: '/ws/docs', skipped: {} }),
  ], NOW);
  for (const expected of [
    '## shop', '| Files | 240 |', '| Chunks | 4,512 |', '| Generation | 7, updated 3 min ago |', '| State | up to date |',
    '| Watcher | watching (16 watches) |', '| Index on disk | saved (generation 7, 2.3 MB, written 41 s ago) |',
    '| Last run | 1 file read, 1 chunked, 0 removed |', '| ignored | 7 |', '| secret | 1 |', 'Why is this file (not) indexed?',
    '- big.bin: unreadable', '- doc/build/ holds 227 files git tracks', '## docs', 'Nothing was skipped.',
  ]) {
    assert.ok(report.includes(expected), `the report shows ${expected}:\n${report}`);
  }
});

test('the report lists the files that could not be read without sending the reader to itself', () => {
  const report = statusReport([status({ errors: ['a.ipynb: notebook is not valid JSON'] })], NOW);
  assert.ok(report.includes('### Problems\n\n- 1 file(s) could not be read (listed below)\n'), report);
  assert.ok(report.includes('### Files that could not be read\n\n- a.ipynb: notebook is not valid JSON'), report);
  assert.ok(!report.includes('see the full status'), report);
});

test('the stored index in one phrase, and ages', () => {
  const cache = { state: 'reader', path: '/c/w', bytesOnDisk: 2411724, storedGeneration: 4, writtenAt: null, ageSeconds: 150,
    writer: false, ownerPid: 77, detail: "process 77 owns this workspace's index", loadedGeneration: 4, loadSeconds: 0.02 };
  assert.equal(cacheText(cache), "index on disk: reader (generation 4, 2.3 MB, written 3 min ago): process 77 owns this workspace's index");
  assert.equal(cacheText({ ...cache, state: 'cold', storedGeneration: null, ageSeconds: null, bytesOnDisk: 300, detail: '' }),
    'index on disk: cold (nothing stored, 300 B)');
  assert.deepEqual([ageText(5), ageText(600), ageText(7200), ageText(200000)], ['5 s', '10 min', '2 h', '2 d']);
});
