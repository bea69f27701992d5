import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RESTART_WINDOW_MS, RestartPolicy } from '../src/restarts';

test('a daemon that stops on its own is restarted, and the user is told', () => {
  let now = 1_000;
  const policy = new RestartPolicy(() => now);
  const first = policy.closed(2);
  assert.equal(first.restart, true);
  assert.match(first.message, /stopped unexpectedly; restarting it/);
  now += 1_000;
  assert.equal(policy.closed(2).restart, true);
  now += 1_000;
  const third = policy.closed(2);
  assert.equal(third.restart, false);
  assert.match(third.message, /stopped 3 times in three minutes; not restarting it/);
  now += RESTART_WINDOW_MS + 1;
  assert.equal(policy.closed(2).restart, true, 'old stops fall out of the window');
  policy.reset();
  assert.equal(policy.closed(1).restart, true, 'a restart the user asks for starts the count again');
});
