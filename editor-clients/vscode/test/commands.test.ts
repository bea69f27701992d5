import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Commands, fuseFolders, resultItem } from '../src/commands';
import { RaglsApi, type SearchResult } from '../src/protocol';
import { FakeConnection, FakeVscode } from './fakes';

const RESULT: SearchResult = {
  id: 'src/auth.py:10-24',
  score: 0.03,
  content: '\ndef login(user, password):\n    return verify(password)',
  metadata: { file: 'src/auth.py', startLine: 10, endLine: 24, symbol: 'login', kind: 'function', language: 'python' },
};

function setup() {
  const vscode = new FakeVscode();
  const connection = new FakeConnection();
  const api = new RaglsApi(connection);
  const commands = new Commands(vscode, () => api, () => 7, async () => {});
  return { vscode, connection, commands };
}

async function settle() {
  for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
}

test('a result item shows file:line, kind and symbol, and a preview', () => {
  assert.deepEqual(resultItem(RESULT), {
    label: 'src/auth.py:10',
    description: 'function login',
    detail: 'def login(user, password):',
    value: { result: RESULT, folder: undefined },
  });
  const added = resultItem({ id: 'doc:1', score: 1, content: 'Custom note', metadata: { source: 'user' } });
  assert.equal(added.label, 'doc:1');
  assert.equal(added.description, '');
});

test('search asks the daemon as you type, keeps only the latest answer, opens the choice', async () => {
  const { vscode, connection, commands } = setup();
  connection.handlers['rag/search'] = (params) => ({ results: params.query === 'login flow' ? [RESULT] : [] });
  const done = commands.search();
  const pick = vscode.picks[0];
  assert.equal(pick.shown, true);
  pick.type('log');
  pick.type('login flow');
  await settle();
  assert.deepEqual(connection.requests.map((r) => r.params.query), ['login flow']); // debounced
  assert.equal(connection.requests[0].params.topK, 7);
  assert.equal(pick.items.length, 1);
  pick.accept(0);
  await done;
  assert.deepEqual(vscode.opened, [{ folder: undefined, file: 'src/auth.py', startLine: 10, endLine: 24 }]);
});

test('search during a first index shows the partial results and says how far the index got', async () => {
  const { vscode, connection, commands } = setup();
  let partial = true;
  connection.handlers['rag/search'] = () => ({
    results: [RESULT], warnings: [], generation: 1, stale: true,
    partial, progress: partial ? { indexedFiles: 1200, totalFiles: 3000 } : null,
  });
  void commands.search();
  const pick = vscode.picks[0];
  pick.type('login');
  await settle();
  assert.equal(pick.items.length, 1);
  assert.equal(pick.title, 'partial results: indexing 40% (1,200/3,000 files read)');
  partial = false;
  pick.type('login flow');
  await settle();
  assert.equal(pick.title, undefined);
  pick.hide();
});

test('search errors from the daemon are shown, not swallowed', async () => {
  const { vscode, connection, commands } = setup();
  connection.handlers['rag/search'] = () => { throw { code: -32602, message: 'query must be at most 10000 characters' }; };
  void commands.search('x'.repeat(20000));
  await settle();
  assert.deepEqual(vscode.errors, ['ragls: query must be at most 10000 characters']);
  vscode.picks[0].hide();
});

test('copy context prompt puts the daemon fence on the clipboard', async () => {
  const { vscode, connection, commands } = setup();
  connection.handlers['rag/buildContextPrompt'] = (params) => ({ prompt: `<tnsai-memory>\n</tnsai-memory>\n\n<tnsai-user-message>\n${params.query}\n</tnsai-user-message>` });
  vscode.inputs.push('How does auth work?');
  const prompt = await commands.copyContextPrompt();
  assert.equal(vscode.clipboard, prompt);
  assert.match(vscode.clipboard, /<tnsai-user-message>\nHow does auth work\?\n/);
  vscode.inputs.push(undefined);
  assert.equal(await commands.copyContextPrompt(), undefined); // cancelled input: nothing asked
  assert.equal(connection.requests.length, 1);
});

test('re-index forwards the server progress to the progress notification', async () => {
  const { vscode, connection, commands } = setup();
  connection.handlers['rag/index'] = function (this: FakeConnection, params) {
    const report = this.progress.get(params.workDoneToken)!;
    report({ kind: 'begin', title: 'ragls: indexing', percentage: 0 });
    report({ kind: 'report', message: 'Indexed 1/2: a.py', percentage: 50 });
    report({ kind: 'report', message: 'Indexed 2/2: b.py', percentage: 100 });
    report({ kind: 'end', message: 'Indexed 2 files, 5 chunks' });
    return { fileCount: 2, chunkCount: 5 };
  };
  const status = await commands.reindex(true);
  assert.equal(status?.chunkCount, 5);
  assert.equal(connection.requests[0].params.force, true);
  const increments = vscode.progressReports.map((r) => r.increment);
  assert.deepEqual(increments, [0, 50, 50, 0]);
  assert.equal(vscode.progressReports[2].message, 'Indexed 2/2: b.py');
});

test('explain file asks the daemon about the active file and says why it is not indexed', async () => {
  const { vscode, connection, commands } = setup();
  connection.handlers['rag/explainPath'] = (params) => ({
    session: 's', path: 'debug.log', indexed: false, chunks: 0, reason: 'ignored',
    detail: '.gitignore:1: *.log', format: null, asked: params.path,
  });
  vscode.activeFile = '/home/me/shop/debug.log';
  const found = await commands.explainFile();
  assert.equal(connection.requests[0].params.path, '/home/me/shop/debug.log');
  assert.equal(found?.reason, 'ignored');
  assert.deepEqual(vscode.info, ['ragls: debug.log is not indexed: ignored (.gitignore:1: *.log)']);
  vscode.activeFile = undefined;
  assert.equal(await commands.explainFile(), undefined);
  assert.deepEqual(vscode.errors, ['ragls: open a file (or pick one in the explorer) first']);
});

test('warnings on search answers are reported once per change, not per keystroke', async () => {
  const connection = new FakeConnection();
  const heard: string[][] = [];
  const api = new RaglsApi(connection, (warnings) => heard.push(warnings));
  connection.handlers['rag/search'] = () => ({ results: [], warnings: ['BM25 covers 2 of 9 chunks'] });
  await api.search('a', 5);
  await api.search('ab', 5);
  connection.handlers['rag/search'] = () => ({ results: [], warnings: [] });
  await api.search('abc', 5);
  assert.deepEqual(heard, [['BM25 covers 2 of 9 chunks']]);
});

test('add selection as document sends the text with its origin', async () => {
  const { vscode, connection, commands } = setup();
  connection.handlers['rag/addDocument'] = () => ({ id: 'doc:abc' });
  vscode.selection = { text: 'deploy with blue green', file: 'ops/README.md', startLine: 4 };
  assert.equal(await commands.addSelectionAsDocument(), 'doc:abc');
  assert.deepEqual(connection.requests[0].params.metadata, { source: 'selection', origin: 'ops/README.md:4' });
  vscode.selection = { text: '   ' };
  assert.equal(await commands.addSelectionAsDocument(), undefined);
  assert.deepEqual(vscode.errors, ['ragls: select some text first']);
});

test('manage documents lists added documents and removes the chosen one', async () => {
  const { vscode, connection, commands } = setup();
  connection.handlers['rag/listDocuments'] = () => ({ documents: [{ id: 'doc:1', preview: 'first note', contentLength: 10, metadata: {} }] });
  connection.handlers['rag/removeDocument'] = (params) => ({ removed: params.id === 'doc:1' });
  vscode.quickPickAnswers.push(0, 0);
  assert.equal(await commands.manageDocuments(), true);
  assert.deepEqual(connection.requests.map((r) => r.method), ['rag/listDocuments', 'rag/removeDocument']);
});

test('commands say so when the daemon is not running', async () => {
  const vscode = new FakeVscode();
  const commands = new Commands(vscode, () => undefined, () => 5, async () => {});
  await commands.showStatus();
  assert.deepEqual(vscode.errors, ['ragls: the daemon is not running']);
});

const SHOP = { uri: 'file:///ws/shop', path: '/ws/shop', name: 'shop' };
const DOCS = { uri: 'file:///ws/docs', path: '/ws/docs', name: 'docs' };

function hit(file: string): SearchResult {
  return { id: `${file}:1-2`, score: 0.5, content: 'x', metadata: { file, startLine: 1, endLine: 2 } };
}

test('several folders: each folder session is searched and the rankings interleave by rank', async () => {
  const { vscode, connection, commands } = setup();
  vscode.workspaceFolders = [SHOP, DOCS];
  connection.handlers['rag/search'] = (params) => ({
    results: params.session === SHOP.uri ? [hit('a.py'), hit('b.py'), hit('c.py')] : [hit('guide.md')],
  });
  const done = commands.search();
  const pick = vscode.picks[0];
  assert.match(pick.placeholder ?? '', /2 workspace folders/);
  pick.type('login');
  await settle();
  assert.deepEqual(connection.requests.map((r) => r.params.session).sort(), [DOCS.uri, SHOP.uri]);
  assert.deepEqual(pick.items.map((item) => item.label), ['shop/a.py:1', 'docs/guide.md:1', 'shop/b.py:1', 'shop/c.py:1']);
  pick.accept(1);
  await done;
  assert.deepEqual(vscode.opened, [{ folder: '/ws/docs', file: 'guide.md', startLine: 1, endLine: 2 }]);
});

test('folder fusion is reciprocal rank fusion: ties keep the folder order, topK cuts', () => {
  const fused = fuseFolders([{ folder: SHOP, results: [hit('a'), hit('b')] }, { folder: DOCS, results: [hit('x'), hit('y')] }], 3);
  assert.deepEqual(fused.map((h) => `${h.folder?.name}:${h.result.metadata.file}`), ['shop:a', 'docs:x', 'shop:b']);
});

test('the context prompt and explain go to the folder of the active editor or of the path', async () => {
  const { vscode, connection, commands } = setup();
  vscode.workspaceFolders = [SHOP, DOCS];
  vscode.active = DOCS.uri;
  connection.handlers['rag/buildContextPrompt'] = () => ({ prompt: '<tnsai-memory></tnsai-memory>' });
  connection.handlers['rag/explainPath'] = () => ({ session: DOCS.uri, path: 'guide.md', indexed: true, chunks: 2, reason: null, detail: '', format: 'markdown' });
  vscode.inputs.push('how do I deploy?');
  await commands.copyContextPrompt();
  await commands.explainFile('/ws/docs/guide.md');
  assert.deepEqual(connection.requests.map((r) => [r.method, r.params.session]), [
    ['rag/buildContextPrompt', DOCS.uri],
    ['rag/explainPath', DOCS.uri],
  ]);
});

test('re-index runs every folder in turn, each filling its share of the progress bar', async () => {
  const { vscode, connection, commands } = setup();
  vscode.workspaceFolders = [SHOP, DOCS];
  connection.handlers['rag/index'] = function (this: FakeConnection, params) {
    this.progress.get(params.workDoneToken)?.({ kind: 'report', message: 'Indexed 1/1: a', percentage: 100 });
    return { chunkCount: params.session === DOCS.uri ? 2 : 1 };
  };
  const status = await commands.reindex(true);
  assert.deepEqual(connection.requests.map((r) => r.params.session), [SHOP.uri, DOCS.uri]);
  assert.deepEqual(vscode.progressReports.map((r) => [r.message, r.increment]), [['shop: Indexed 1/1: a', 50], ['docs: Indexed 1/1: a', 50]]);
  assert.equal(status?.chunkCount, 2);
});

test('show status opens the full report of every session', async () => {
  const { vscode, connection, commands } = setup();
  connection.handlers['rag/sessions'] = () => ({
    sessions: [{ session: SHOP.uri, root: '/ws/shop', fileCount: 3, chunkCount: 9, generation: 2, indexing: false, skipped: { secret: 1 },
      errors: [], lastError: null, warnings: [], stale: false, hints: [], watcher: null, pipeline: 'workspace', addedDocumentCount: 0,
      lastIndexTime: new Date().toISOString() }],
  });
  const statuses = await commands.showStatus();
  assert.equal(statuses?.length, 1);
  assert.match(vscode.reports[0], /^# ragls status/);
  assert.match(vscode.reports[0], /\| secret \| 1 \|/);
});
