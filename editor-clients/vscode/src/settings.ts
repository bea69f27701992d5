// Typed settings: the ragls.* configuration, the server command and the daemon's
// initializationOptions (protocol.md, section 7). Pure functions over a getter, so tests need
// no VS Code.

export type Getter = <T>(key: string, fallback: T) => T;

export interface Settings {
  command: string[];
  pythonPath: string;
  maxRestarts: number;
  topK: number;
  daemon: Record<string, unknown>;
}

const DEFAULT_SKIPS = ['build', 'dist', 'out', 'target', 'coverage', '.idea', '.vscode', '.next', '.gradle', '__pycache__'];

export function readSettings(get: Getter): Settings {
  const synonyms = get<Record<string, string[]>>('synonyms', {});
  const daemon: Record<string, unknown> = {
    indexOnStartup: get('indexOnStartup', true),
    watch: get('watch', true),
    include: get<string[]>('include', []),
    exclude: get<string[]>('exclude', []),
    defaultSkips: get<string[]>('defaultSkips', DEFAULT_SKIPS),
    limits: {
      maxFileBytes: get('limits.maxFileBytes', 16 * 1024 * 1024),
      maxFiles: get('limits.maxFiles', 100000),
      maxTotalBytes: get('limits.maxTotalBytes', 1024 * 1024 * 1024),
    },
    // null: BM25 holds every chunk for as long as the index does (no cap, no expiry).
    bm25: {
      maxDocuments: get<number | null>('bm25.maxDocuments', null),
      ttlSeconds: get<number | null>('bm25.ttlSeconds', null),
    },
    pipeline: get('pipeline', 'workspace'),
    debounceMs: get('debounceMs', 200),
  };
  if (synonyms && Object.keys(synonyms).length > 0) {
    daemon.synonyms = synonyms;
  }
  return {
    command: get<string[]>('server.command', ['ragls', 'serve']),
    pythonPath: get('server.pythonPath', ''),
    maxRestarts: get('server.maxRestarts', 3),
    topK: get('search.topK', 10),
    daemon,
  };
}

/** How to start the daemon: the configured Python with -m ragls serve, or the command. */
export function serverCommand(settings: Settings): { command: string; args: string[] } {
  if (settings.pythonPath.trim() !== '') {
    return { command: settings.pythonPath, args: ['-m', 'ragls', 'serve'] };
  }
  if (settings.command.length === 0 || settings.command[0].trim() === '') {
    throw new Error('ragls.server.command is empty');
  }
  return { command: settings.command[0], args: settings.command.slice(1) };
}
