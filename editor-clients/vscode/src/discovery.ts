// Where the daemon is: the user's setting first, then a virtual environment, then PATH. Pure over
// an injected environment, so tests need neither VS Code nor a file system.
import * as path from 'node:path';
import type { Settings } from './settings';

export interface DiscoveryEnvironment {
  /** Absolute paths of the workspace folders, in order. */
  folders: string[];
  /** Whether the workspace is trusted: an untrusted folder's virtual environment is never run. */
  trusted: boolean;
  /** process.env (VIRTUAL_ENV, PATH, HOME). */
  env: Record<string, string | undefined>;
  platform: NodeJS.Platform;
  /** Whether ``file`` exists and can be executed. */
  executable(file: string): boolean;
}

export interface DaemonCommand {
  command: string;
  args: string[];
  /** How it was found, for the log: "ragls.daemon.pythonPath", "/ws/.venv", "PATH", ... */
  source: string;
}

/** Raised when no daemon can be found; the message says where it looked and how to install it. */
export class DaemonNotFound extends Error {}

export const INSTALL_ADVICE =
  'Install it with `pipx install <ragls checkout>` (or `pip install <ragls checkout>` into this ' +
  "workspace's .venv), or set ragls.daemon.pythonPath to a Python that has it.";

const VENV_NAMES = ['.venv', 'venv'];

function paths(platform: NodeJS.Platform): typeof path.posix {
  return platform === 'win32' ? path.win32 : path.posix;
}

function binDir(venv: string, platform: NodeJS.Platform): string {
  return paths(platform).join(venv, platform === 'win32' ? 'Scripts' : 'bin');
}

function exe(name: string, platform: NodeJS.Platform): string {
  return platform === 'win32' ? `${name}.exe` : name;
}

/**
 * The daemon's command line. In order: ``ragls.daemon.pythonPath`` (``<python> -m ragls serve``);
 * a ``ragls.daemon.command`` the user set (used as given); ``ragls`` in a workspace folder's
 * ``.venv``/``venv`` (trusted workspaces only) or in ``$VIRTUAL_ENV``; ``ragls`` on PATH; pipx's
 * ``~/.local/bin/ragls`` (often missing from a desktop session's PATH). Throws DaemonNotFound
 * naming every place it looked.
 */
export function findDaemon(settings: Settings, where: DiscoveryEnvironment): DaemonCommand {
  const python = settings.pythonPath.trim();
  if (python !== '') {
    if (paths(where.platform).isAbsolute(python) && !where.executable(python)) {
      throw new DaemonNotFound(`ragls.daemon.pythonPath is ${python}, which does not exist or cannot be run. ${INSTALL_ADVICE}`);
    }
    return { command: python, args: ['-m', 'ragls', 'serve'], source: 'ragls.daemon.pythonPath' };
  }
  if (settings.commandSet) {
    if (settings.command.length === 0 || settings.command[0].trim() === '') {
      throw new DaemonNotFound('ragls.daemon.command is empty: give the program and its arguments, e.g. ["ragls", "serve"]');
    }
    return { command: settings.command[0], args: settings.command.slice(1), source: 'ragls.daemon.command' };
  }
  const args = settings.command.slice(1);
  const name = exe(settings.command[0] ?? 'ragls', where.platform);
  const join = paths(where.platform).join;
  const looked: string[] = [];
  const candidates: { dir: string; source: string }[] = [];
  if (where.trusted) {
    for (const folder of where.folders) {
      for (const venv of VENV_NAMES) candidates.push({ dir: binDir(join(folder, venv), where.platform), source: join(folder, venv) });
    }
  } else if (where.folders.length > 0) {
    looked.push("the workspace's virtual environments (skipped: the workspace is not trusted)");
  }
  const virtualEnv = where.env.VIRTUAL_ENV;
  if (virtualEnv) candidates.push({ dir: binDir(virtualEnv, where.platform), source: '$VIRTUAL_ENV' });
  const separator = where.platform === 'win32' ? ';' : ':';
  for (const dir of (where.env.PATH ?? '').split(separator)) {
    if (dir !== '') candidates.push({ dir, source: 'PATH' });
  }
  const home = where.env.HOME ?? where.env.USERPROFILE;
  if (home) candidates.push({ dir: join(home, '.local', 'bin'), source: '~/.local/bin' });
  for (const candidate of candidates) {
    const file = join(candidate.dir, name);
    if (where.executable(file)) return { command: file, args, source: candidate.source };
  }
  const places = new Set(candidates.map((c) => (c.source === 'PATH' ? 'PATH' : c.dir)));
  looked.unshift(...places);
  throw new DaemonNotFound(
    `the daemon (${name}) was not found; looked in ${looked.join(', ') || 'nowhere (no PATH)'}. ${INSTALL_ADVICE}`,
  );
}
