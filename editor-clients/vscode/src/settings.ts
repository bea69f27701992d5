// Typed settings: the ragls.* configuration, the daemon's command and its
// initializationOptions (protocol.md, section 7). Pure functions over getters, so tests need
// no VS Code. The daemon's keys come from the settings schema (src/daemonSettings.ts, generated).
import { DAEMON_SETTINGS, USER_ONLY_SETTINGS } from './daemonSettings';

export type Getter = <T>(key: string, fallback: T) => T;

/** Where ``key`` is set: the parts of VS Code's ``inspect(key)`` this extension reads. */
export interface SetValues {
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}
export type Inspect = (key: string) => SetValues | undefined;

export interface Settings {
  command: string[];
  /** Whether the user set ragls.daemon.command (else the default is looked for; src/discovery.ts). */
  commandSet: boolean;
  pythonPath: string;
  maxRestarts: number;
  topK: number;
  daemon: Record<string, unknown>;
  /** The user-only daemon keys a workspace or folder set: not sent, the user's value is. */
  ignored: string[];
}

const USER_ONLY = new Set(USER_ONLY_SETTINGS);

/** The value that applies: a folder's over the workspace's over the user's. */
function effective(set: SetValues | undefined): unknown {
  return set?.workspaceFolderValue ?? set?.workspaceValue ?? set?.globalValue;
}

/** The extension's own settings from ``get`` (their package.json defaults apply), and the
 * daemon's: only those the user set, nested by their dotted keys (``limits.maxFiles`` becomes
 * ``{limits: {maxFiles}}``); the daemon applies its own defaults to the rest, so the client
 * never re-sends a default of its own.
 *
 * A user-only key (where the index is written, the store it is read from, allowedRoots, the
 * secret and limits settings: the schema's rule) is taken from the user's settings alone. Its
 * scope `machine` already keeps VS Code from applying a workspace's `"ragls.persistence.store"`,
 * but as VS Code's configuration parser is written its scope filter looks only at a settings
 * file's top-level keys, so a nested spelling (`"ragls": {"persistence": {"store": ...}}`) can
 * reach `get` and `inspect` as a workspace value; a VS Code older or other than the one package.json names might not filter at all. */
export function readSettings(get: Getter, inspect: Inspect = () => undefined): Settings {
  const daemon: Record<string, unknown> = {};
  const ignored: string[] = [];
  for (const key of DAEMON_SETTINGS) {
    const set = inspect(key);
    let value = effective(set);
    if (USER_ONLY.has(key)) {
      value = set?.globalValue;
      if (set?.workspaceFolderValue !== undefined || set?.workspaceValue !== undefined) ignored.push(key);
    }
    if (value === undefined) continue;
    const path = key.split('.');
    let node = daemon;
    for (const part of path.slice(0, -1)) {
      node = (node[part] ??= {}) as Record<string, unknown>;
    }
    node[path[path.length - 1]] = value;
  }
  const userValue = (key: string): unknown => effective(inspect(key));
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
    ignored,
  };
}

/** The warning about a workspace's ignored user-only keys: said once for each set of keys
 * (settings are re-read on every configuration change), and again if the set changes. */
export class IgnoredWarning {
  private said = '';

  /** The message to show for these ``ignored`` keys now, or undefined (none, or said already). */
  next(ignored: readonly string[]): string | undefined {
    const keys = ignored.join(',');
    if (keys === this.said) return undefined;
    this.said = keys;
    if (keys === '') return undefined;
    return (
      `ragls: this workspace's settings set ${ignored.map((key) => `ragls.${key}`).join(', ')}, ` +
      'which only your user settings may set (a repository must not choose where its index is ' +
      'written or read, nor turn protections off); the workspace values are ignored.'
    );
  }
}
