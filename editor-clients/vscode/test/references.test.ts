// "ragls: Find References by Name" against a scripted daemon (rag/references) and a recording editor.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Commands, referenceItems } from '../src/commands';
import { RaglsApi, type ReferencesAnswer } from '../src/protocol';
import { FakeConnection, FakeVscode } from './fakes';

const range = (line: number, start: number, end: number) => ({ start: { line, character: start }, end: { line, character: end } });
const SHOP = 'file:///home/dev/shop';
const TOOLS = 'file:///home/dev/tools';

const ANSWER: ReferencesAnswer = {
  name: 'reconcile_ledger',
  total: 2,
  truncated: false,
  definitions: [{
    session: SHOP, uri: `${SHOP}/billing/ledger.py`, path: 'billing/ledger.py', name: 'reconcile_ledger', kind: 'function',
    container: '', range: { start: { line: 3, character: 4 }, end: { line: 4, character: 26 } }, selectionRange: range(3, 4, 20),
    signature: 'def reconcile_ledger(entries):',
  }],
  files: [
    { session: SHOP, uri: `${SHOP}/billing/report.py`, path: 'billing/report.py', references: [{
      range: range(4, 11, 27), kind: 'call', enclosing: 'monthly', enclosingKind: 'function', text: 'return reconcile_ledger(entries)',
    }] },
    { session: TOOLS, uri: `${TOOLS}/scripts/run.lua`, path: 'scripts/run.lua', references: [{
      range: range(0, 0, 16), kind: 'call', enclosing: null, enclosingKind: null, text: null,
    }] },
  ],
};

function setup() {
  const vscode = new FakeVscode();
  const connection = new FakeConnection();
  const commands = new Commands(vscode, () => new RaglsApi(connection), () => 7, async () => {});
  return { vscode, connection, commands };
}

test('reference items: definitions first, then each use with where it is and its line', () => {
  assert.deepEqual(referenceItems(ANSWER).map(({ label, description, detail }) => ({ label, description, detail })), [
    { label: 'billing/ledger.py:4', description: 'definition: function reconcile_ledger', detail: 'def reconcile_ledger(entries):' },
    { label: 'billing/report.py:5', description: 'in monthly', detail: 'return reconcile_ledger(entries)' },
    { label: 'scripts/run.lua:1', description: '', detail: undefined },
  ]);
  assert.deepEqual(referenceItems(ANSWER)[1].value, { folder: '/home/dev/shop/billing', file: 'report.py', line: 5 });
  // Several folders: each path says its folder (the answer names the session of each file).
  const folders = [{ uri: SHOP, path: '/home/dev/shop', name: 'shop' }, { uri: TOOLS, path: '/home/dev/tools', name: 'tools' }];
  assert.deepEqual(referenceItems(ANSWER, folders).map((item) => item.label),
    ['shop/billing/ledger.py:4', 'shop/billing/report.py:5', 'tools/scripts/run.lua:1']);
});

test('the name under the cursor is looked up by name and the chosen use opens at its line', async () => {
  const { vscode, connection, commands } = setup();
  connection.handlers['rag/references'] = () => ANSWER;
  vscode.word = 'reconcile_ledger';
  vscode.quickPickAnswers = [1];
  assert.equal(await commands.findReferencesByName(), 3);
  // No session: every workspace folder's index answers, merged by the daemon.
  assert.deepEqual(connection.requests, [{ method: 'rag/references', params: { name: 'reconcile_ledger', session: undefined } }]);
  assert.deepEqual(vscode.opened, [{ folder: '/home/dev/shop/billing', file: 'report.py', startLine: 5, endLine: 5 }]);
  assert.deepEqual(vscode.placeholders, ['reconcile_ledger: 1 definition, 2 references (matched by name)']);
});

test('with no word under the cursor the name is asked for; a name given as argument wins', async () => {
  const { vscode, connection, commands } = setup();
  connection.handlers['rag/references'] = () => ANSWER;
  vscode.inputs = ['  reconcile_ledger '];
  await commands.findReferencesByName();
  vscode.word = 'other';
  await commands.findReferencesByName('ReconcileLedger');
  assert.deepEqual(connection.requests.map((r) => r.params.name), ['reconcile_ledger', 'ReconcileLedger']);
  vscode.inputs = [undefined];
  vscode.word = undefined;
  assert.equal(await commands.findReferencesByName(), 0); // dismissed: nothing asked
  assert.equal(connection.requests.length, 2);
});

test('a place in another folder opens there', async () => {
  const { vscode, connection, commands } = setup();
  vscode.workspaceFolders = [
    { uri: SHOP, path: '/home/dev/shop', name: 'shop' },
    { uri: TOOLS, path: '/home/dev/tools', name: 'tools' },
  ];
  connection.handlers['rag/references'] = () => ANSWER;
  vscode.quickPickAnswers = [2];
  assert.equal(await commands.findReferencesByName('reconcile_ledger'), 3);
  assert.deepEqual(vscode.opened, [{ folder: '/home/dev/tools/scripts', file: 'run.lua', startLine: 1, endLine: 1 }]);
});

test('a cut answer says how many references there are and how many are shown', async () => {
  const { vscode, connection, commands } = setup();
  connection.handlers['rag/references'] = () => ({ ...ANSWER, total: 900, truncated: true });
  await commands.findReferencesByName('reconcile_ledger');
  assert.deepEqual(vscode.placeholders, ['reconcile_ledger: 1 definition, 900 references, the first 2 shown (matched by name)']);
});

test('no places and daemon errors are said, not swallowed', async () => {
  const { vscode, connection, commands } = setup();
  connection.handlers['rag/references'] = () => ({ ...ANSWER, definitions: [], files: [], total: 0 });
  assert.equal(await commands.findReferencesByName('nothing_here'), 0);
  assert.deepEqual(vscode.info, ['ragls: no definitions or references named nothing_here']);
  connection.handlers['rag/references'] = () => { throw { code: -32602, message: 'name must not be empty' }; };
  assert.equal(await commands.findReferencesByName('x'), 0);
  assert.deepEqual(vscode.errors, ['ragls: name must not be empty']);
});
