import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DaemonNotFound, findDaemon, type DiscoveryEnvironment } from '../src/discovery';
import { readSettings } from '../src/settings';

function settings(values: Record<string, unknown> = {}) {
  return readSettings(<T>(key: string, fallback: T) => (key in values ? (values[key] as T) : fallback), (key) => ({ globalValue: values[key] }));
}

function where(files: string[], extra: Partial<DiscoveryEnvironment> = {}): DiscoveryEnvironment {
  const present = new Set(files);
  return {
    folders: ['/ws/shop'],
    trusted: true,
    env: { PATH: '/usr/local/bin:/usr/bin', HOME: '/home/me' },
    platform: 'linux',
    executable: (file) => present.has(file),
    ...extra,
  };
}

test('a configured Python runs the module, and a missing one is named', () => {
  const found = findDaemon(settings({ 'daemon.pythonPath': '/venv/bin/python' }), where(['/venv/bin/python']));
  assert.deepEqual(found, { command: '/venv/bin/python', args: ['-m', 'ragls', 'serve'], source: 'ragls.daemon.pythonPath' });
  assert.throws(() => findDaemon(settings({ 'daemon.pythonPath': '/gone/python' }), where([])), (error: Error) =>
    error instanceof DaemonNotFound && /\/gone\/python, which does not exist/.test(error.message) && /pipx install/.test(error.message));
});

test('a command the user set is used as given, and an empty one is refused', () => {
  const found = findDaemon(settings({ 'daemon.command': ['/opt/ragls', 'serve', '--log-level', 'info'] }), where([]));
  assert.deepEqual(found, { command: '/opt/ragls', args: ['serve', '--log-level', 'info'], source: 'ragls.daemon.command' });
  assert.throws(() => findDaemon(settings({ 'daemon.command': [] }), where([])), /empty/);
});

test('without settings: the workspace virtual environment, then $VIRTUAL_ENV, then PATH, then ~/.local/bin', () => {
  const all = ['/ws/shop/.venv/bin/ragls', '/active/bin/ragls', '/usr/bin/ragls', '/home/me/.local/bin/ragls'];
  const env = { PATH: '/usr/local/bin:/usr/bin', HOME: '/home/me', VIRTUAL_ENV: '/active' };
  const order: string[] = [];
  for (let n = 0; n < all.length; n++) {
    order.push(findDaemon(settings(), where(all.slice(n), { env })).command);
  }
  assert.deepEqual(order, all);
  assert.deepEqual(findDaemon(settings(), where(['/ws/shop/venv/bin/ragls'])).args, ['serve']);
});

test("an untrusted workspace's virtual environment is never run", () => {
  const found = findDaemon(settings(), where(['/ws/shop/.venv/bin/ragls', '/usr/bin/ragls'], { trusted: false }));
  assert.equal(found.command, '/usr/bin/ragls');
});

test('when nothing is found the error says where it looked and how to install', () => {
  assert.throws(() => findDaemon(settings(), where([], { trusted: false })), (error: Error) => {
    assert.ok(error instanceof DaemonNotFound);
    assert.match(error.message, /not found; looked in .*PATH.*\/home\/me\/\.local\/bin/);
    assert.match(error.message, /not trusted/);
    assert.match(error.message, /pipx install <ragls checkout>/);
    assert.match(error.message, /ragls\.daemon\.pythonPath/);
    return true;
  });
});

test('Windows: Scripts folders and .exe names', () => {
  const found = findDaemon(settings(), where(['C:\\ws\\.venv\\Scripts\\ragls.exe'], { folders: ['C:\\ws'], platform: 'win32', env: { PATH: '' } }));
  assert.match(found.command, /ragls\.exe$/);
});
