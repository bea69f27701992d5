// The extension's own client code (RaglsApi over a Connection) against the real `ragls serve`.
// RAGLS_PYTHON names a Python with ragls installed (make test sets it).
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, test } from 'node:test';
import {
  createMessageConnection,
  ProgressType,
  StreamMessageReader,
  StreamMessageWriter,
  type MessageConnection,
} from 'vscode-jsonrpc/node';
import { RaglsApi, type Connection, type IndexUpdated, type WorkDoneProgressValue } from '../src/protocol';
import { statusReport, summarize } from '../src/statusView';

const python = process.env.RAGLS_PYTHON;
let server: ChildProcess;
let connection: MessageConnection;
let api: RaglsApi;
let workspace: string;
const updates: IndexUpdated[] = [];
const startupProgress: string[] = [];

function adapter(conn: MessageConnection): Connection {
  return {
    // vscode-jsonrpc treats a trailing undefined as a second positional parameter: pass the
    // token only when there is one.
    sendRequest: (method, params, token) =>
      token ? conn.sendRequest(method, params, token as never) : conn.sendRequest(method, params),
    onNotification: (method, handler) => conn.onNotification(method, handler),
    onWorkDoneProgress: (token, handler) => conn.onProgress(new ProgressType<WorkDoneProgressValue>(), token, handler),
  };
}

async function eventually<T>(probe: () => Promise<T | undefined>, what: string, ms = 30000): Promise<T> {
  const stop = Date.now() + ms;
  while (Date.now() < stop) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

before(async () => {
  assert.ok(python, 'set RAGLS_PYTHON to a Python with ragls installed (make test does)');
  workspace = mkdtempSync(join(tmpdir(), 'ragls-vscode-'));
  mkdirSync(join(workspace, 'src'));
  writeFileSync(join(workspace, 'src', 'auth.py'), 'def login(user, password):\n    return verify(password)\n');
  writeFileSync(join(workspace, 'README.md'), '# Shop\n\nInvoices are paid by card.\n');
  server = spawn(python!, ['-m', 'ragls', 'serve'], { stdio: ['pipe', 'pipe', 'inherit'] });
  connection = createMessageConnection(new StreamMessageReader(server.stdout!), new StreamMessageWriter(server.stdin!));
  connection.onRequest('window/workDoneProgress/create', ({ token }: { token: string }) => {
    // Answer the server's create request (it waits for it), then follow that token.
    connection.onProgress(new ProgressType<WorkDoneProgressValue>(), token, (value) => {
      startupProgress.push(value.kind);
    });
    return null;
  });
  connection.listen();
  api = new RaglsApi(adapter(connection));
  api.onIndexUpdated((update) => updates.push(update));
  await connection.sendRequest('initialize', {
    processId: process.pid,
    rootUri: null,
    capabilities: { window: { workDoneProgress: true } },
    initializationOptions: { debounceMs: 50 },
    workspaceFolders: [{ uri: pathToFileURL(workspace).href, name: 'shop' }],
  });
  await connection.sendNotification('initialized', {});
  await eventually(async () => (updates.length > 0 ? true : undefined), 'the first generation');
});

after(async () => {
  if (connection) {
    await connection.sendRequest('shutdown');
    await connection.sendNotification('exit');
    connection.dispose();
  }
  if (server && server.exitCode === null) await new Promise((resolve) => server.once('exit', resolve));
  rmSync(workspace, { recursive: true, force: true });
});

test('the start-up index reported begin, report, end and then rag/indexUpdated', () => {
  assert.equal(startupProgress[0], 'begin');
  assert.equal(startupProgress.at(-1), 'end');
  assert.deepEqual(updates[0].fileCount, 2);
});

test('search through the extension client code', async () => {
  const [top] = await api.search('login password', 3);
  assert.equal(top.id, 'src/auth.py:1-2');
  assert.deepEqual(
    { file: top.metadata.file, startLine: top.metadata.startLine, endLine: top.metadata.endLine, symbol: top.metadata.symbol },
    { file: 'src/auth.py', startLine: 1, endLine: 2, symbol: 'login' },
  );
});

test('explain a path through the extension client code', async () => {
  const indexed = await api.explainPath(join(workspace, 'src', 'auth.py'));
  assert.deepEqual({ path: indexed.path, indexed: indexed.indexed, chunks: indexed.chunks }, { path: 'src/auth.py', indexed: true, chunks: 1 });
  const missing = await api.explainPath('nowhere.py');
  assert.deepEqual({ indexed: missing.indexed, reason: missing.reason }, { indexed: false, reason: 'missing' });
});

test('the context prompt is the fence', async () => {
  const prompt = await api.buildContextPrompt('How are invoices paid?', 2);
  assert.match(prompt, /^<tnsai-memory>\n<evidence>\n<document-id>README\.md:1-3<\/document-id>/);
  assert.match(prompt, /<tnsai-user-message>\nHow are invoices paid\?\n<\/tnsai-user-message>$/);
});

test('re-index with progress on the client token', async () => {
  const kinds: string[] = [];
  const status = await api.index({ force: true, onProgress: (value) => kinds.push(value.kind) });
  assert.equal(status.fileCount, 2);
  assert.equal(kinds[0], 'begin');
  assert.equal(kinds.at(-1), 'end');
});

test('a file edited on disk shows up in search without a request', async () => {
  writeFileSync(join(workspace, 'src', 'refunds.py'), "def refund():\n    return 'kangaroo refund'\n");
  const results = await eventually(async () => {
    const found = await api.search('kangaroo refund', 3);
    return found.length > 0 ? found : undefined;
  }, 'the edit to be searchable');
  assert.equal(results[0].metadata.file, 'src/refunds.py');
});

test('daemon errors carry the JSON-RPC code and the field', async () => {
  await assert.rejects(api.search('x', 0), (error: { code: number; message: string }) => {
    assert.equal(error.code, -32602);
    assert.match(error.message, /topK must be between 1 and 100/);
    return true;
  });
});

test('the status bar and the report render the real rag/sessions answer', async () => {
  const statuses = await api.sessions();
  assert.equal(statuses.length, 1);
  assert.equal(statuses[0].progress, null);
  const summary = summarize(statuses, Date.now());
  assert.match(summary.text, /^\$\(database\) ragls: \d+ chunks · \d+ s ago$/);
  const report = statusReport(statuses, Date.now());
  assert.match(report, /\| Files \| \d+ \|/);
  assert.match(report, /\| Watcher \| watching \(\d+ watches\) \|/);
});

test('references by name through the extension client code (rag/references)', async () => {
  const answer = await api.references('verify');
  assert.equal(answer.name, 'verify');
  assert.deepEqual(answer.definitions, []); // called in src/auth.py, defined nowhere
  assert.equal(answer.total, 1);
  assert.equal(answer.truncated, false);
  assert.equal(answer.files.length, 1);
  const [file] = answer.files;
  assert.equal(file.path, 'src/auth.py');
  assert.equal(file.uri, pathToFileURL(join(realpathSync(workspace), 'src', 'auth.py')).href);
  assert.deepEqual(file.references.map((r) => ({ line: r.range.start.line, character: r.range.start.character, enclosing: r.enclosing, text: r.text })),
    [{ line: 1, character: 11, enclosing: 'login', text: 'return verify(password)' }]);
  const login = (await api.references('login')).definitions;
  assert.deepEqual(login.map((d) => ({ path: d.path, kind: d.kind, line: d.selectionRange.start.line, signature: d.signature })),
    [{ path: 'src/auth.py', kind: 'function', line: 0, signature: 'def login(user, password):' }]);
});
