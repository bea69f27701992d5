// Typed settings: the ragls.* configuration, the daemon's command and its
// initializationOptions (protocol.md, section 7). Pure functions over getters, so tests need
// no VS Code. The daemon's keys come from the settings schema (src/daemonSettings.ts, generated).
import { DAEMON_SETTINGS } from './daemonSettings';

export type Getter = <T>(key: string, fallback: T) => T;
/** What the user set for ``key`` (user, workspace or folder settings), or undefined. */
export type UserValue = (key: string) => unknown;

export interface Settings {
  command: string[];
  /** Whether the user set ragls.daemon.command (else the default is looked for; src/discovery.ts). */
  commandSet: boolean;
  pythonPath: string;
  maxRestarts: number;
  topK: number;
  daemon: Record<string, unknown>;
}

/** The extension's own settings from ``get`` (their package.json defaults apply), and the
 * daemon's: only those the user set, nested by their dotted keys (``limits.maxFiles`` becomes
 * ``{limits: {maxFiles}}``); the daemon applies its own defaults to the rest, so the client
 * never re-sends a default of its own. */
export function readSettings(get: Getter, userValue: UserValue = () => undefined): Settings {
  const daemon: Record<string, unknown> = {};
  for (const key of DAEMON_SETTINGS) {
    const value = userValue(key);
    if (value === undefined) continue;
    const path = key.split('.');
    let node = daemon;
    for (const part of path.slice(0, -1)) {
      node = (node[part] ??= {}) as Record<string, unknown>;
    }
    node[path[path.length - 1]] = value;
  }
  // ragls.daemon.* were ragls.server.* before: the old keys are read when the new are not set.
  const either = <T>(name: string, fallback: T): T =>
    (userValue(`daemon.${name}`) ?? userValue(`server.${name}`) ?? get(`daemon.${name}`, fallback)) as T;
  return {
    command: either<string[]>('command', ['ragls', 'serve']),
    commandSet: userValue('daemon.command') !== undefined || userValue('server.command') !== undefined,
    pythonPath: either('pythonPath', ''),
    maxRestarts: either('maxRestarts', 3),
    topK: get('search.topK', 10),
    daemon,
  };
}
