// Drives the workbench: run "ragls: Search workspace", type a query, see the daemon's ranked
// result, open it. Exits non-zero (with the reason) if any step fails.
import { chromium } from 'playwright-core';

const url = process.env.CS_URL;
const screenshot = process.env.SCREENSHOT;
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
});
const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
const text = async (locator) => (await locator.innerText()).replace(/\u00a0/g, ' ');

async function runCommand(label) {
  await page.keyboard.press('F1');
  await page.locator('.quick-input-widget input').fill('>' + label);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: label }).first().waitFor({ timeout: 3000 });
  await page.keyboard.press('Enter');
}

let failure;
try {
  await page.goto(url);
  await page.waitForSelector('.monaco-workbench', { timeout: 60000 });
  // The extension reports the index in the status bar once the daemon's first generation is live.
  await page.locator('.statusbar-item', { hasText: /ragls: \d+ chunks/ }).first().waitFor({ timeout: 60000 });
  let opened = false;
  for (let attempt = 1; attempt <= 10 && !opened; attempt++) {
    try {
      await runCommand('ragls: Search workspace');
      await page.locator('.quick-input-widget input').fill('verify the password');
      const row = page.locator('.quick-input-list .monaco-list-row', { hasText: 'src/auth.py:1' }).first();
      await row.waitFor({ timeout: 10000 });
      const rowText = await text(row);
      if (!rowText.includes('function login')) throw new Error(`unexpected result row: ${rowText}`);
      await page.screenshot({ path: screenshot });
      await page.keyboard.press('Enter');
      await page.locator('.tab', { hasText: 'auth.py' }).first().waitFor({ timeout: 10000 });
      opened = true;
    } catch (error) {
      failure = error;
      await page.keyboard.press('Escape');
      await page.waitForTimeout(1000);
    }
  }
  if (!opened) throw failure ?? new Error('the search never produced the expected result');
  failure = undefined;
  console.log('ok - the search result src/auth.py:1 (function login) opened auth.py');
} catch (error) {
  failure = error;
} finally {
  if (failure) {
    await page.screenshot({ path: screenshot.replace(/\.png$/, '-failure.png') }).catch(() => {});
  }
  await browser.close();
}
if (failure) {
  console.error(`FAIL - ${failure.message ?? failure}`);
  process.exit(1);
}
