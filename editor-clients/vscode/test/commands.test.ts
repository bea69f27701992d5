import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cacheText, Commands, resultItem, statusText } from '../src/commands';
import { RaglsApi, type SearchResult, type Status } from '../src/protocol';
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
    value: RESULT,
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
  assert.deepEqual(vscode.opened, [{ file: 'src/auth.py', startLine: 10, endLine: 24 }]);
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

test('status text names counts, watcher, skips and the last error', () => {
  const status = {
    fileCount: 3, chunkCount: 9, generation: 2, indexing: false, skipped: { secret: 1 },
    watcher: { state: 'watching', watches: 4, detail: '' }, lastError: 'source has 9 files, over the max_files cap',
  } as unknown as Status;
  assert.equal(statusText(status), '3 files, 9 chunks, generation 2 · watcher: watching (4 watches) · skipped: secret 1 · last error: source has 9 files, over the max_files cap');
});

test('status text ends with the hints about tracked files in skipped directories', () => {
  const status = {
    fileCount: 1, chunkCount: 1, generation: 1, indexing: false, skipped: {}, watcher: null, lastError: null,
    warnings: [], stale: false, hints: ['doc/build/ holds 2 files git tracks but is skipped by default'],
  } as unknown as Status;
  assert.match(statusText(status), / · note: doc\/build\/ holds 2 files git tracks but is skipped by default$/);
});

test('status text says when changes are pending', () => {
  const status = {
    fileCount: 1, chunkCount: 1, generation: 3, indexing: true, skipped: {}, watcher: null, lastError: null,
    warnings: [], stale: true,
  } as unknown as Status;
  assert.equal(statusText(status), '1 files, 1 chunks, generation 3 (indexing) · watcher: none · skipped: nothing · stale: changes pending');
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

test('status text shows the stored index: state, generation, size and age', () => {
  const status = {
    fileCount: 1, chunkCount: 1, generation: 5, indexing: false, skipped: {}, watcher: null, lastError: null,
    warnings: [], stale: true,
    cache: {
      state: 'reader', path: '/c/w', bytesOnDisk: 2411724, storedGeneration: 4, writtenAt: null,
      ageSeconds: 150, writer: false, ownerPid: 77, detail: 'process 77 owns this workspace\'s index',
      loadedGeneration: 4, loadSeconds: 0.02,
    },
  } as unknown as Status;
  assert.equal(
    statusText(status),
    "1 files, 1 chunks, generation 5 · watcher: none · skipped: nothing · stale: changes pending · index on disk: reader (generation 4, 2.3 MB, written 3 min ago): process 77 owns this workspace's index",
  );
  const cold = { ...status.cache, state: 'cold', storedGeneration: null, ageSeconds: null, bytesOnDisk: 300, detail: '' };
  assert.equal(cacheText(cold as never), 'index on disk: cold (nothing stored, 300 B)');
});

test('status text ends with the coverage warnings', () => {
  const status = {
    fileCount: 3, chunkCount: 9, generation: 2, indexing: false, skipped: {}, watcher: null, lastError: null,
    warnings: ['BM25 covers 2 of 9 chunks'],
  } as unknown as Status;
  assert.equal(statusText(status), '3 files, 9 chunks, generation 2 · watcher: none · skipped: nothing · warning: BM25 covers 2 of 9 chunks');
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
