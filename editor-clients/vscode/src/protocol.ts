// The wire contract of protocol.md, typed, and RaglsApi: every request the extension makes.
// RaglsApi runs over a small Connection interface, so the extension (vscode-languageclient) and
// the integration test (vscode-jsonrpc on a spawned daemon) share this exact code path.

export interface Disposable {
  dispose(): void;
}

export interface CancellationTokenLike {
  readonly isCancellationRequested: boolean;
  onCancellationRequested(listener: () => unknown): Disposable;
}

export interface WorkDoneProgressValue {
  kind: 'begin' | 'report' | 'end';
  title?: string;
  message?: string;
  percentage?: number;
}

export interface Connection {
  sendRequest<R>(method: string, params: unknown, token?: CancellationTokenLike): Promise<R>;
  onNotification(method: string, handler: (params: any) => void): Disposable;
  onWorkDoneProgress(token: string, handler: (value: WorkDoneProgressValue) => void): Disposable;
}

export interface ChunkMetadata {
  file?: string;
  format?: string;
  language?: string;
  startLine?: number;
  endLine?: number;
  symbol?: string;
  kind?: string;
  [key: string]: unknown;
}

export interface SearchResult {
  id: string;
  score: number;
  content: string;
  metadata: ChunkMetadata;
}

/** How far a first (cold) index had got when it committed the partial generation that answered. */
export interface PartialProgress {
  indexedFiles: number;
  totalFiles: number;
}

/** A rag/search answer (protocol.md §4). */
export interface SearchAnswer {
  session: string;
  results: SearchResult[];
  warnings?: string[];
  generation: number;
  stale: boolean;
  /** True when a first index is still under way and only the files of ``progress`` were searched (protocol.md §5a). */
  partial?: boolean;
  progress?: PartialProgress | null;
}

/** A rag/buildContextPrompt answer. */
export interface PromptAnswer {
  session: string;
  prompt: string;
  warnings?: string[];
  generation: number;
  stale: boolean;
  partial?: boolean;
  progress?: PartialProgress | null;
}

/** "indexing 40%" from files read of files to read ("indexing" while the total is unknown). */
export function percentText(indexedFiles: number, totalFiles: number): string {
  if (totalFiles <= 0) return 'indexing';
  return `indexing ${Math.floor((100 * Math.min(indexedFiles, totalFiles)) / totalFiles)}%`;
}

/** What a search view says of an answer from a partial generation, or undefined for a whole one. */
export function partialNote(answer: { partial?: boolean; progress?: PartialProgress | null }): string | undefined {
  if (!answer.partial) return undefined;
  const progress = answer.progress;
  if (!progress) return 'partial results: the first index is still being built';
  const files = `${progress.indexedFiles.toLocaleString('en-US')}/${progress.totalFiles.toLocaleString('en-US')} files read`;
  return `partial results: ${percentText(progress.indexedFiles, progress.totalFiles)} (${files})`;
}

export interface WatcherStatus {
  state: string;
  watches: number;
  detail: string;
}

/** The session's index on disk (rag/status `cache`; protocol.md §9). */
export interface CacheStatus {
  state: 'loaded' | 'cold' | 'unsaved' | 'saved' | 'reader' | 'failed' | string;
  path: string;
  bytesOnDisk: number;
  storedGeneration: number | null;
  writtenAt: string | null;
  ageSeconds: number | null;
  writer: boolean;
  ownerPid: number | null;
  detail: string;
  loadedGeneration: number | null;
  loadSeconds: number | null;
}

export interface Status {
  session: string;
  root: string | null;
  fileCount: number;
  chunkCount: number;
  lastIndexTime: string | null;
  indexedPath: string | null;
  generation: number;
  indexing: boolean;
  addedDocumentCount: number;
  skipped: Record<string, number>;
  errors: string[];
  lastError: string | null;
  watcher: WatcherStatus | null;
  /** What makes answers incomplete, e.g. "BM25 covers 10,000 of 28,938 chunks: ..."; empty when nothing does. */
  warnings: string[];
  /** True while the folder has changes the index does not hold yet. */
  stale: boolean;
  /** Default-skipped directories holding files git tracks, and what to do about them. */
  trackedInSkipped: Record<string, number>;
  hints: string[];
  pipeline: string;
  corpusDocuments: number;
  bm25Documents: number | null;
  /** Null when the session keeps its index in memory only. */
  cache?: CacheStatus | null;
  /** What the last committed run did; null before the first. */
  lastRun?: { filesRead: number; filesChunked: number; filesRemoved: number; chunksAdded: number; chunksRemoved: number } | null;
  /** The running run's latest tick while ``indexing``; null otherwise. */
  progress?: { indexedFiles: number; totalFiles: number; currentFile: string } | null;
  /** True while answers come from a partial generation of a first index still under way. */
  partial?: boolean;
}

export interface PathExplanation {
  session: string;
  path: string;
  indexed: boolean;
  chunks: number;
  reason: string | null;
  detail: string;
  format: string | null;
}

export interface DocumentInfo {
  id: string;
  preview: string;
  contentLength: number;
  metadata: Record<string, string>;
}

export interface IndexUpdated {
  session: string;
  generation: number;
  fileCount: number;
  chunkCount: number;
  changedPaths: string[] | null;
  changedPathCount: number | null;
}

export const INDEX_UPDATED = 'rag/indexUpdated';

let tokens = 0;

export class RaglsApi {
  private lastWarnings = '';

  /** ``onWarnings`` hears the warnings search answers carry, once per change (not per keystroke). */
  constructor(
    private readonly connection: Connection,
    private readonly onWarnings: (warnings: string[]) => void = () => {},
  ) {}

  async search(query: string, topK: number, session?: string): Promise<SearchResult[]> {
    return (await this.searchAnswer(query, topK, session)).results;
  }

  /** The whole rag/search answer: results, and whether they come from a partial generation. */
  async searchAnswer(query: string, topK: number, session?: string): Promise<SearchAnswer> {
    const answer = await this.connection.sendRequest<SearchAnswer>('rag/search', { query, topK, session });
    this.noteWarnings(answer.warnings);
    return answer;
  }

  async buildContextPrompt(query: string, topK: number, session?: string): Promise<string> {
    return (await this.buildContextPromptAnswer(query, topK, session)).prompt;
  }

  async buildContextPromptAnswer(query: string, topK: number, session?: string): Promise<PromptAnswer> {
    const answer = await this.connection.sendRequest<PromptAnswer>('rag/buildContextPrompt', { query, topK, session });
    this.noteWarnings(answer.warnings);
    return answer;
  }

  private noteWarnings(warnings: string[] | undefined): void {
    const text = (warnings ?? []).join('\n');
    if (text === this.lastWarnings) return;
    this.lastWarnings = text;
    if (text) this.onWarnings(warnings ?? []);
  }

  /** Re-index now; ``onProgress`` gets the run's work-done progress, ``token`` cancels it. */
  async index(options: {
    force?: boolean;
    session?: string;
    onProgress?: (value: WorkDoneProgressValue) => void;
    token?: CancellationTokenLike;
  }): Promise<Status> {
    const workDoneToken = `ragls-client-${process.pid}-${++tokens}`;
    const listener = options.onProgress ? this.connection.onWorkDoneProgress(workDoneToken, options.onProgress) : undefined;
    try {
      return await this.connection.sendRequest<Status>(
        'rag/index',
        { force: options.force ?? false, session: options.session, workDoneToken },
        options.token,
      );
    } finally {
      listener?.dispose();
    }
  }

  /** Whether ``path`` is indexed and, if not, the rule that refuses it (rag/explainPath). */
  explainPath(path: string, session?: string): Promise<PathExplanation> {
    return this.connection.sendRequest<PathExplanation>('rag/explainPath', { path, session });
  }

  status(session?: string): Promise<Status> {
    return this.connection.sendRequest<Status>('rag/status', { session });
  }

  /** The status of every open session, in the order they were opened (rag/sessions). */
  async sessions(): Promise<Status[]> {
    const answer = await this.connection.sendRequest<{ sessions: Status[] }>('rag/sessions', {});
    return answer.sessions;
  }

  async addDocument(content: string, metadata: Record<string, string>, session?: string): Promise<string> {
    const answer = await this.connection.sendRequest<{ id: string }>('rag/addDocument', { content, metadata, session });
    return answer.id;
  }

  async listDocuments(session?: string): Promise<DocumentInfo[]> {
    const answer = await this.connection.sendRequest<{ documents: DocumentInfo[] }>('rag/listDocuments', { session });
    return answer.documents;
  }

  async removeDocument(id: string, session?: string): Promise<boolean> {
    const answer = await this.connection.sendRequest<{ removed: boolean }>('rag/removeDocument', { id, session });
    return answer.removed;
  }

  /** The uses of ``name`` (rag/references; by name, no type resolution) and its definitions;
   *  without ``session`` every indexed workspace folder answers, merged. */
  references(name: string, session?: string): Promise<ReferencesAnswer> {
    return this.connection.sendRequest<ReferencesAnswer>('rag/references', { name, session });
  }

  onIndexUpdated(handler: (update: IndexUpdated) => void): Disposable {
    return this.connection.onNotification(INDEX_UPDATED, handler);
  }
}

/** A 0-based LSP range (columns in UTF-16 code units). */
export interface Range {
  start: { line: number; character: number };
  end: { line: number; character: number };
}

/** A definition of a name (rag/definitions, and the definitions a rag/references answer carries). */
export interface SymbolDefinition {
  /** The session (workspace folder URI) whose index holds it. */
  session: string;
  uri: string;
  /** Relative to the session's folder. */
  path: string;
  name: string;
  kind: string;
  /** The qualified enclosing definition; "" at the top level. */
  container: string;
  /** From the name to the end of the definition. */
  range: Range;
  /** The name. */
  selectionRange: Range;
  /** The definition's first line, trimmed; null where the index holds no such line. */
  signature: string | null;
  doc?: string[];
}

/** One use of a name, matched by name (no type resolution). */
export interface SymbolReference {
  range: Range;
  kind: string;
  /** The qualified name of the definition the use is inside; null at a file's top level. */
  enclosing: string | null;
  enclosingKind: string | null;
  /** The line, trimmed. */
  text: string | null;
}

/** A rag/references answer (protocol.md): the uses grouped by file, and the name's definitions. */
export interface ReferencesAnswer {
  name: string;
  files: { session: string; uri: string; path: string; references: SymbolReference[] }[];
  /** Every reference to the name, before the limit. */
  total: number;
  truncated: boolean;
  definitions: SymbolDefinition[];
}

/** The message of a JSON-RPC error (or any error), for showing to the user. */
export function errorMessage(error: unknown): string {
  if (error && typeof error === 'object' && 'message' in error) {
    return String((error as { message: unknown }).message);
  }
  return String(error);
}
