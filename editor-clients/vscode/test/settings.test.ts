import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readSettings, type Getter } from '../src/settings';

function getter(values: Record<string, unknown>): Getter {
  return <T>(key: string, fallback: T): T => (key in values ? (values[key] as T) : fallback);
}

function userValues(values: Record<string, unknown>) {
  return (key: string): unknown => values[key];
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
  const old = readSettings(getter({}), (key) => (key === 'server.pythonPath' ? '/old/python' : undefined));
  assert.equal(old.pythonPath, '/old/python');
  const both = readSettings(getter({}), (key) => ({ 'server.pythonPath': '/old', 'daemon.pythonPath': '/new' })[key]);
  assert.equal(both.pythonPath, '/new');
});
