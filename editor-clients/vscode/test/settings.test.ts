import assert from 'node:assert/strict';
import { test } from 'node:test';
import { USER_ONLY_SETTINGS } from '../src/daemonSettings';
import { IgnoredWarning, readSettings, type Getter, type SetValues } from '../src/settings';

function getter(values: Record<string, unknown>): Getter {
  return <T>(key: string, fallback: T): T => (key in values ? (values[key] as T) : fallback);
}

/** Settings the user set in their own (global) settings. */
function userValues(values: Record<string, unknown>) {
  return (key: string): SetValues | undefined => (key in values ? { globalValue: values[key] } : undefined);
}

test('nothing the user did not set is sent: the daemon applies its own defaults', () => {
  const settings = readSettings(getter({}));
  assert.deepEqual(settings.command, ['ragls', 'serve']);
  assert.equal(settings.topK, 10);
  assert.deepEqual(settings.daemon, {});
});

test('every setting reaches initializationOptions under its daemon key', () => {
  const settings = readSettings(
    getter({}),
    userValues({
      include: ['src/**'],
      exclude: ['dist/'],
      defaultSkips: ['build'],
      'limits.maxFiles': 10,
      'bm25.maxDocuments': 500,
      'bm25.ttlSeconds': 60,
      pipeline: 'seed',
      debounceMs: 50,
      watch: false,
      synonyms: { k8s: ['kubernetes'] },
    }),
  );
  assert.deepEqual(settings.daemon.include, ['src/**']);
  assert.deepEqual(settings.daemon.exclude, ['dist/']);
  assert.deepEqual(settings.daemon.defaultSkips, ['build']);
  assert.equal((settings.daemon.limits as Record<string, number>).maxFiles, 10);
  assert.deepEqual(settings.daemon.bm25, { maxDocuments: 500, ttlSeconds: 60 });
  assert.deepEqual(settings.daemon.limits, { maxFiles: 10 });
  assert.equal(settings.daemon.pipeline, 'seed');
  assert.equal(settings.daemon.debounceMs, 50);
  assert.equal(settings.daemon.watch, false);
  assert.deepEqual(settings.daemon.synonyms, { k8s: ['kubernetes'] });
});

test('the earlier ragls.server.* keys are still read when ragls.daemon.* are not set', () => {
  const old = readSettings(getter({}), userValues({ 'server.pythonPath': '/old/python' }));
  assert.equal(old.pythonPath, '/old/python');
  const both = readSettings(getter({}), userValues({ 'server.pythonPath': '/old', 'daemon.pythonPath': '/new' }));
  assert.equal(both.pythonPath, '/new');
});

test('the settings a repository could turn against its user are user-only', () => {
  for (const key of ['persistence.store', 'persistence.cacheDir', 'allowedRoots', 'secretDetection']) {
    assert.ok(USER_ONLY_SETTINGS.includes(key), key);
  }
  assert.ok(!USER_ONLY_SETTINGS.includes('include') && !USER_ONLY_SETTINGS.includes('exclude'));
});

test("a workspace's or folder's value of a user-only key is ignored: the user's value is sent", () => {
  const repository = (key: string): SetValues => ({
    globalValue: `user ${key}`,
    workspaceValue: `workspace ${key}`,
    workspaceFolderValue: `folder ${key}`,
  });
  const settings = readSettings(getter({}), repository);
  assert.deepEqual(settings.daemon.persistence, {
    enabled: 'user persistence.enabled',
    cacheDir: 'user persistence.cacheDir',
    store: 'user persistence.store',
  });
  assert.equal(settings.daemon.allowedRoots, 'user allowedRoots');
  assert.equal(settings.daemon.secretDetection, 'user secretDetection');
  assert.equal(settings.daemon.secretNames, 'user secretNames');
  assert.equal((settings.daemon.limits as Record<string, unknown>).maxFiles, 'user limits.maxFiles');
  assert.deepEqual(settings.ignored, [...USER_ONLY_SETTINGS]);
  // The rest keeps VS Code's order: the folder's value over the workspace's over the user's.
  assert.equal(settings.daemon.include, 'folder include');
  assert.equal(settings.daemon.pipeline, 'folder pipeline');
});

test('a user-only key only a workspace set is not sent at all: the daemon keeps its default', () => {
  const settings = readSettings(getter({}), (key) =>
    ({
      'persistence.store': { workspaceValue: 'postgresql://ragls@db.example.invalid/team' },
      secretDetection: { workspaceFolderValue: false },
      'limits.maxFileBytes': { workspaceValue: 1 << 40 },
      exclude: { workspaceValue: ['dist/'] },
    })[key]);
  assert.deepEqual(settings.daemon, { exclude: ['dist/'] });
  assert.deepEqual(settings.ignored, ['limits.maxFileBytes', 'secretDetection', 'persistence.store']);
});

test("the user's own values of user-only keys are sent and nothing is ignored", () => {
  const settings = readSettings(getter({}), userValues({ 'persistence.cacheDir': '/fast/ragls', secretDetection: false }));
  assert.deepEqual(settings.daemon, { persistence: { cacheDir: '/fast/ragls' }, secretDetection: false });
  assert.deepEqual(settings.ignored, []);
});

test('the warning names the ignored keys, once for each set of them', () => {
  const warning = new IgnoredWarning();
  assert.equal(warning.next([]), undefined);
  const first = warning.next(['allowedRoots', 'persistence.store']);
  assert.match(first ?? '', /ragls\.allowedRoots, ragls\.persistence\.store/);
  assert.match(first ?? '', /only your user settings may set/);
  assert.equal(warning.next(['allowedRoots', 'persistence.store']), undefined, 'not repeated');
  assert.match(warning.next(['secretDetection']) ?? '', /set ragls\.secretDetection, which/);
  assert.equal(warning.next([]), undefined);
  assert.notEqual(warning.next(['secretDetection']), undefined, 'set again after it was removed');
});
