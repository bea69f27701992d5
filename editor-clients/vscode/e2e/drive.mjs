// Drives the packaged extension in a real workbench through what a user does, waiting on
// conditions (never retrying a step): go to a symbol defined in four languages and find its
// references by name, search and open a hit at its line, copy a context prompt, edit a file and
// find the edit, watch the status bar and the status report follow, add a second workspace
// folder and search it, kill the daemon and see the extension restart it.
// Exits non-zero naming the step that failed; screenshots and the page's text go to RESULTS.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const url = process.env.CS_URL;
const scratch = process.env.SCRATCH;
const results = process.env.RESULTS;
const codeServerPid = Number(process.env.CODE_SERVER_PID);
const origin = new URL(url).origin;

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
});
const context = await browser.newContext({ viewport: { width: 1400, height: 860 } });
await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
const page = await context.newPage();

const clean = (s) => s.replace(/\u00a0/g, ' ');
const text = async (locator) => clean(await locator.innerText());
let step = 'start';
const passed = [];
function ok(message) {
  passed.push(message);
  console.log(`ok ${passed.length} - ${message}`);
}

/** Poll ``probe`` until it returns something truthy; fail naming ``what`` after ``ms``. */
async function until(what, probe, ms = 60000, every = 500) {
  const stop = Date.now() + ms;
  let last;
  while (Date.now() < stop) {
    try {
      last = await probe();
      if (last) return last;
    } catch (error) {
      last = error;
    }
    await page.waitForTimeout(every);
  }
  throw new Error(`timed out waiting for ${what}${last instanceof Error ? ` (${last.message})` : ''}`);
}

async function runCommand(label) {
  await page.keyboard.press('Escape');
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input:visible');
  await input.waitFor({ timeout: 10000 });
  await input.fill('>' + label);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: label }).first().waitFor({ timeout: 10000 });
  await page.keyboard.press('Enter');
}

const statusItem = () => page.locator('.statusbar-item', { hasText: /ragls/ }).first();
const readyItem = () => page.locator('.statusbar-item', { hasText: /ragls: [\d,]+ chunks/ }).first();

/** Search through the extension's QuickPick and return the first row whose label matches.
 * The quick input can be closed under the test when an editor takes the focus as it opens
 * (the status report just opened, refreshed by a new generation, or the window settling its
 * folders): the palette is opened again, up to three times, before the step fails. */
async function search(query, label, { open = false, shot } = {}) {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await runCommand('ragls: Search workspace');
      await page.locator('.quick-input-widget input:visible').fill(query, { timeout: 10000 });
      break;
    } catch (error) {
      if (attempt === 3) throw error;
      console.log(`# the search palette closed before the query was typed (attempt ${attempt}); again`);
      await page.waitForTimeout(1000);
    }
  }
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: label }).first();
  await row.waitFor({ timeout: 20000 });
  const rowText = await text(row);
  if (shot) await page.screenshot({ path: join(results, shot) });
  if (open) await row.click();
  else await page.keyboard.press('Escape');
  return rowText;
}

/** The visible text of the active editor. */
async function editorText() {
  return text(page.locator('.editor-group-container.active .monaco-editor .view-lines').first());
}

/** Open the status report by clicking the status bar item; return its text. */
async function report() {
  await page.keyboard.press('Escape');
  await statusItem().click();
  await page.locator('.tab.active', { hasText: 'ragls status' }).waitFor({ timeout: 10000 });
  const body = await editorText();
  // Keyboard focus back to the editor: keys pressed while the status bar item has it are lost.
  await page.locator('.editor-group-container.active .monaco-editor .view-lines').first().click();
  return body;
}

function reportGeneration(body, folder) {
  const section = body.split('## ').find((part) => part.startsWith(folder));
  const match = section?.match(/\| Generation \| (\d+)/);
  return match ? Number(match[1]) : undefined;
}

function daemonPids() {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' }).trim().split('\n')
    .map((line) => line.trim().match(/^(\d+)\s+(\d+)\s+(.*)$/)).filter(Boolean)
    .map(([, pid, ppid, args]) => ({ pid: Number(pid), ppid: Number(ppid), args }));
  const under = new Set([codeServerPid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const row of rows) if (under.has(row.ppid) && !under.has(row.pid)) { under.add(row.pid); grew = true; }
  }
  return rows.filter((row) => under.has(row.pid) && /ragls serve/.test(row.args)).map((row) => row.pid);
}

let failure;
try {
  step = 'the workbench loads and the extension reports its first generation';
  await page.goto(url);
  await page.waitForSelector('.monaco-workbench', { timeout: 90000 });
  await readyItem().waitFor({ timeout: 120000 });
  const firstItem = await text(readyItem());
  ok(`status bar after the first index: "${firstItem.trim()}" (the daemon was found in the workspace's .venv)`);

  step = 'the status report';
  const first = await report();
  const generation0 = reportGeneration(first, 'project');
  if (!generation0 || !/\| Files \| \d+/.test(first) || !/\| Watcher \| watching/.test(first)) throw new Error(`unexpected report:\n${first}`);
  if (!/### Not indexed/.test(first)) throw new Error(`the report shows no skip reasons:\n${first}`);
  await page.screenshot({ path: join(results, 'vscode-status.png') });
  ok(`a click on the status bar item opens the full status (generation ${generation0}, skip reasons listed)`);

  step = 'Go to Symbol in Workspace';
  // The workbench's own quick pick ('#' in quick open), answered through the language client's
  // workspace/symbol: a name defined in Go, Python, TypeScript and Lua (run-e2e.sh writes them).
  await page.keyboard.press('Escape');
  await page.keyboard.press('F1');
  await page.locator('.quick-input-widget input:visible').fill('#reconcile');
  const symbolRows = page.locator('.quick-input-list .monaco-list-row');
  const symbolTexts = await until('the definitions of the four languages in Go to Symbol in Workspace', async () => {
    const rows = (await symbolRows.allInnerTexts()).map(clean);
    const wanted = ['ledger.go', 'ledger.py', 'ledger.ts', 'ledger.lua'];
    return wanted.every((file) => rows.some((row) => row.includes(file))) ? rows : undefined;
  }, 30000);
  console.log(`# Go to Symbol in Workspace, "reconcile":\n#   ${symbolTexts.map((row) => row.replace(/\n/g, ' | ')).join('\n#   ')}`);
  await page.screenshot({ path: join(results, 'vscode-workspace-symbol.png') });
  await symbolRows.filter({ hasText: 'ReconcileLedger' }).filter({ hasText: 'ledger.go' }).first().click();
  await page.locator('.tab.active', { hasText: 'ledger.go' }).waitFor({ timeout: 10000 });
  await page.locator('.statusbar-item', { hasText: 'Ln 3,' }).first().waitFor({ timeout: 10000 });
  ok('Go to Symbol in Workspace lists ReconcileLedger (Go), reconcile_ledger (Python, Lua) and reconcileLedger (TypeScript); the Go definition opens at line 3');

  step = 'Find References by Name';
  // From the definition Go to Symbol opened: the name under the cursor, looked up by name
  // (rag/references); the quick pick lists the definition, then the call in report.go.
  await runCommand('ragls: Find References by Name');
  const placeRows = page.locator('.quick-input-list .monaco-list-row');
  const callRow = placeRows.filter({ hasText: 'polyglot/report.go:4' }).first();
  await callRow.waitFor({ timeout: 20000 });
  const placeTexts = (await placeRows.allInnerTexts()).map(clean);
  console.log(`# Find References by Name, "ReconcileLedger":\n#   ${placeTexts.map((row) => row.replace(/\n/g, ' | ')).join('\n#   ')}`);
  if (!/polyglot\/ledger\.go:3/.test(placeTexts[0] ?? '') || !/definition/.test(placeTexts[0] ?? '')) {
    throw new Error(`the definition is not listed first: ${placeTexts.join(' / ')}`);
  }
  if (!/in Monthly/.test(await text(callRow))) throw new Error(`the call does not say where it is: ${await text(callRow)}`);
  await page.screenshot({ path: join(results, 'vscode-references.png') });
  await callRow.click();
  await page.locator('.tab.active', { hasText: 'report.go' }).waitFor({ timeout: 10000 });
  await page.locator('.statusbar-item', { hasText: 'Ln 4,' }).first().waitFor({ timeout: 10000 });
  ok('Find References by Name on ReconcileLedger lists its definition first, then the call in Monthly (report.go:4), and opens it');

  step = 'search and open the hit at its line';
  const rowText = await search('reciprocal rank fusion rrf_fuse', /core\/fusion\.py:\d+/, { open: true, shot: 'vscode-search.png' });
  const line = Number(rowText.match(/core\/fusion\.py:(\d+)/)[1]);
  await page.locator('.tab.active', { hasText: 'fusion.py' }).waitFor({ timeout: 10000 });
  await page.locator('.statusbar-item', { hasText: `Ln ${line},` }).first().waitFor({ timeout: 10000 });
  ok(`search found core/fusion.py:${line} and opened it with the cursor on line ${line}`);

  step = 'copy a context prompt';
  await runCommand('ragls: Copy context prompt for');
  await page.locator('.quick-input-widget input:visible').fill('How are search results fused?');
  await page.keyboard.press('Enter');
  await page.locator('.notification-toast', { hasText: 'context prompt copied' }).first().waitFor({ timeout: 20000 });
  const prompt = await page.evaluate(() => navigator.clipboard.readText());
  if (!prompt.startsWith('<tnsai-memory>\n<evidence>') || !prompt.endsWith('<tnsai-user-message>\nHow are search results fused?\n</tnsai-user-message>')) {
    throw new Error(`the clipboard does not hold the fenced prompt: ${prompt.slice(0, 200)}`);
  }
  ok(`the context prompt (${prompt.length} characters, fenced) is on the clipboard`);

  step = 'edit a file in the editor, save, find the edit';
  await page.locator('.tab', { hasText: 'fusion.py' }).first().click();
  await page.locator('.tab.active', { hasText: 'fusion.py' }).waitFor({ timeout: 10000 });
  await page.locator('.editor-group-container.active .monaco-editor .view-lines').first().click();
  await page.keyboard.press('Control+End');
  await page.keyboard.press('Enter');
  // A word found nowhere else (this script is in the workspace too, so no fixed word would do).
  const word = `quokka${Date.now().toString(36)}`;
  await page.keyboard.type(`MERGE_LIMIT = 42  # ${word}: how many merges run at once`);
  await page.locator('.tab.active.dirty', { hasText: 'fusion.py' }).waitFor({ timeout: 10000 });
  await page.keyboard.press('Control+S');
  await page.locator('.tab.active:not(.dirty)', { hasText: 'fusion.py' }).waitFor({ timeout: 10000 });
  const generation1 = await until('the status report to show a new generation after the save', async () => {
    const g = reportGeneration(await report(), 'project');
    return g !== undefined && g > generation0 ? g : undefined;
  }, 60000, 1000);
  const itemAfterEdit = await text(readyItem());
  ok(`after the save the report shows generation ${generation1} (was ${generation0}); status bar "${itemAfterEdit.trim()}"`);
  await search(word, /core\/fusion\.py:\d+/);
  ok('the edit is found by search');

  step = 'add a second workspace folder';
  const workspaceFile = join(scratch, 'shop.code-workspace');
  const twoFolders = '{ "folders": [ { "path": "project" }, { "path": "notes" } ] }';
  writeFileSync(workspaceFile, `${twoFolders}\n`);
  let written = Date.now();
  let rewrites = 0;
  let reloaded = false;
  await until('the second folder to be indexed (shown in the status report)', async () => {
    const body = await report();
    if ((reportGeneration(body, 'notes') ?? 0) >= 1) return true;
    // code-server's file watcher has missed the workspace file's change in a loaded run (the
    // explorer still showed one folder after 90 s): write it again, so the editor, not the
    // watcher, is what this step waits on.
    if (Date.now() - written > 20000 && rewrites < 2) {
      rewrites += 1;
      writeFileSync(workspaceFile, `${twoFolders}${' '.repeat(rewrites)}\n`);
      written = Date.now();
    } else if (Date.now() - written > 20000 && !reloaded) {
      // Still one folder: a reload reads the workspace file afresh (the daemon restarts with
      // the extension host and indexes both folders).
      reloaded = true;
      await runCommand('Developer: Reload Window');
      await readyItem().waitFor({ timeout: 90000 });
      written = Date.now();
    }
    return false;
  }, 180000, 1000);
  const notesRow = await search('when does the wombat migration run', /notes\/wombat\.md:1/, { open: true });
  await page.locator('.tab.active', { hasText: 'wombat.md' }).waitFor({ timeout: 10000 });
  ok(`with two folders, search finds ${notesRow.match(/notes\/wombat\.md:\d+/)[0]} in the new folder and opens it`);

  step = 'kill the daemon; the extension restarts it and says so';
  // After a reload the previous window's daemon exits once its pipes close.
  await until('one daemon under code-server', async () => daemonPids().length === 1, 30000).catch(() => {});
  const pids = daemonPids();
  if (pids.length !== 1) throw new Error(`expected one daemon under code-server, found ${pids.length}`);
  process.kill(pids[0], 'SIGKILL');
  await page.locator('.notification-toast', { hasText: 'restarting it' }).first().waitFor({ timeout: 30000 });
  await until('a new daemon', async () => { const now = daemonPids(); return now.length === 1 && now[0] !== pids[0]; }, 30000);
  await readyItem().waitFor({ timeout: 60000 });
  await page.screenshot({ path: join(results, 'vscode-restart.png') });
  await search('reciprocal rank fusion rrf_fuse', /core\/fusion\.py:\d+/);
  ok('after a kill -9 the extension said it restarts the daemon, and the new daemon answers');
} catch (error) {
  failure = error;
} finally {
  if (failure) {
    await page.screenshot({ path: join(results, 'vscode-failure.png') }).catch(() => {});
    const body = await page.locator('.monaco-workbench').innerText().catch(() => '');
    writeFileSync(join(results, 'vscode-failure.txt'), clean(body));
  }
  await browser.close();
}
if (failure) {
  console.error(`FAIL - ${step}: ${failure.message ?? failure}`);
  process.exit(1);
}
console.log(`1..${passed.length}`);
