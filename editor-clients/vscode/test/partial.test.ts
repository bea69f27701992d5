// A first index answering partially, through the extension's own client code, against the real
// daemon: tests.e2e.gated_serve, whose cold run commits partial generations after 1, 2, 4, ...,
// 64 files and waits, 100 files in, until the `release` file beside the workspace exists.
// RAGLS_PYTHON names a Python with ragls installed (make test sets it).
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, test } from 'node:test';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node';
import { partialNote, RaglsApi, type IndexUpdated, type Status } from '../src/protocol';
import { summarize } from '../src/statusView';

const python = process.env.RAGLS_PYTHON;
const repository = resolve(__dirname, '..', '..', '..'); // out-test/ -> editor-clients/vscode -> the repository
const FILES = 300;
let server: ChildProcess;
let connection: MessageConnection;
let api: RaglsApi;
let scratch: string;
const updates: IndexUpdated[] = [];

async function eventually<T>(probe: () => Promise<T | undefined>, what: string, ms = 30000): Promise<T> {
  const stop = Date.now() + ms;
  while (Date.now() < stop) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((done) => setTimeout(done, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

before(async () => {
  assert.ok(python, 'set RAGLS_PYTHON to a Python with ragls installed (make test does)');
  scratch = mkdtempSync(join(tmpdir(), 'ragls-vscode-partial-'));
  mkdirSync(join(scratch, 'ws', 'pkg'), { recursive: true });
  for (let i = 0; i < FILES; i++) {
    const n = String(i).padStart(3, '0');
    writeFileSync(join(scratch, 'ws', 'pkg', `m${n}.py`), `def helper_${i}(value):\n    return 'quokka${n}'\n`);
  }
  server = spawn(python!, ['-m', 'tests.e2e.gated_serve'], {
    cwd: repository,
    env: { ...process.env, PYTHONPATH: [repository, process.env.PYTHONPATH].filter(Boolean).join(':') },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  connection = createMessageConnection(new StreamMessageReader(server.stdout!), new StreamMessageWriter(server.stdin!));
  connection.listen();
  api = new RaglsApi({
    sendRequest: (method, params) => connection.sendRequest(method, params),
    onNotification: (method, handler) => connection.onNotification(method, handler),
    onWorkDoneProgress: () => ({ dispose() {} }),
  });
  api.onIndexUpdated((update) => updates.push(update));
  await connection.sendRequest('initialize', {
    processId: process.pid,
    rootUri: null,
    capabilities: {},
    workspaceFolders: [{ uri: pathToFileURL(join(scratch, 'ws')).href, name: 'ws' }],
  });
  await connection.sendNotification('initialized', {});
});

after(async () => {
  writeFileSync(join(scratch, 'release'), ''); // never leave the run waiting
  if (connection) {
    await connection.sendRequest('shutdown');
    await connection.sendNotification('exit');
    connection.dispose();
  }
  if (server && server.exitCode === null) await new Promise((done) => server.once('exit', done));
  rmSync(scratch, { recursive: true, force: true });
});

test('a first index: partial answers and "indexing N%" while it runs, whole ones after', async () => {
  const status = await eventually<Status>(async () => {
    const now = await api.status();
    return now.partial && now.fileCount === 64 ? now : undefined;
  }, 'the partial generation of the first 64 files');
  assert.match(summarize([status], Date.now()).text, /^\$\(sync~spin\) ragls: indexing \d+%$/);
  assert.match(summarize([status], Date.now()).tooltip, /answers from the first 64 files \(partial\)/);

  const partial = await api.searchAnswer('quokka003', 3);
  assert.equal(partial.results[0].metadata.file, 'pkg/m003.py');
  assert.equal(partialNote(partial), 'partial results: indexing 21% (64/300 files read)');
  assert.deepEqual(updates, []);

  writeFileSync(join(scratch, 'release'), '');
  await eventually(async () => (updates.length > 0 ? true : undefined), 'the whole generation');
  const whole = await api.searchAnswer('quokka250', 3);
  assert.equal(whole.results[0].metadata.file, 'pkg/m250.py');
  assert.equal(whole.partial, false);
  assert.equal(partialNote(whole), undefined);
});
