// The commands of the extension, written against VscodeApi and RaglsApi only.
import type { CacheStatus, CancellationTokenLike, PathExplanation, RaglsApi, SearchResult, Status } from './protocol';
import { errorMessage } from './protocol';
import type { PickItem, VscodeApi } from './vscodeapi';

export const SEARCH_DEBOUNCE_MS = 150;

export function resultItem(result: SearchResult): PickItem<SearchResult> {
  const meta = result.metadata;
  const where = meta.file ? `${meta.file}:${meta.startLine ?? 1}` : result.id;
  const symbol = meta.symbol ? `${meta.kind ?? ''} ${meta.symbol}`.trim() : '';
  const preview = result.content.split('\n').find((line) => line.trim() !== '') ?? '';
  return { label: where, description: symbol, detail: preview.trim().slice(0, 200), value: result };
}

export function explanationText(found: PathExplanation): string {
  if (found.indexed) return `ragls: ${found.path} is indexed (${found.chunks} chunks)`;
  const detail = found.detail ? ` (${found.detail})` : '';
  return `ragls: ${found.path} is not indexed: ${found.reason}${detail}`;
}

function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

function ageText(seconds: number): string {
  if (seconds < 90) return `${Math.round(seconds)} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  if (seconds < 129600) return `${Math.round(seconds / 3600)} h`;
  return `${Math.round(seconds / 86400)} d`;
}

/** The stored index in one phrase: "index on disk: saved (generation 4, 2.3 MB, written 41 s ago)". */
export function cacheText(cache: CacheStatus): string {
  const stored = cache.storedGeneration === null ? 'nothing stored' : `generation ${cache.storedGeneration}`;
  const age = cache.ageSeconds === null ? '' : `, written ${ageText(cache.ageSeconds)} ago`;
  const detail = cache.detail ? `: ${cache.detail}` : '';
  return `index on disk: ${cache.state} (${stored}, ${sizeText(cache.bytesOnDisk)}${age})${detail}`;
}

export function statusText(status: Status): string {
  const skipped = Object.entries(status.skipped)
    .map(([reason, count]) => `${reason} ${count}`)
    .join(', ');
  const watcher = status.watcher ? `${status.watcher.state} (${status.watcher.watches} watches)` : 'none';
  const parts = [
    `${status.fileCount} files, ${status.chunkCount} chunks, generation ${status.generation}${status.indexing ? ' (indexing)' : ''}`,
    `watcher: ${watcher}`,
    `skipped: ${skipped || 'nothing'}`,
  ];
  if (status.stale) parts.push('stale: changes pending');
  if (status.cache) parts.push(cacheText(status.cache));
  if (status.lastError) parts.push(`last error: ${status.lastError}`);
  for (const warning of status.warnings ?? []) parts.push(`warning: ${warning}`);
  for (const hint of status.hints ?? []) parts.push(`note: ${hint}`);
  return parts.join(' · ');
}

export class Commands {
  constructor(
    private readonly vscode: VscodeApi,
    private readonly ragls: () => RaglsApi | undefined,
    private readonly topK: () => number,
    private readonly delay: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {}

  private api(): RaglsApi | undefined {
    const api = this.ragls();
    if (!api) this.vscode.showErrorMessage('ragls: the daemon is not running');
    return api;
  }

  /** A QuickPick that searches as you type (debounced) and opens the chosen result. */
  search(initial = ''): Promise<void> {
    const api = this.api();
    if (!api) return Promise.resolve();
    const pick = this.vscode.createQuickPick<SearchResult>();
    pick.placeholder = 'Search the workspace (ragls)';
    let generation = 0;
    const run = async (query: string) => {
      const mine = ++generation;
      await this.delay(SEARCH_DEBOUNCE_MS);
      if (mine !== generation) return; // a newer keystroke superseded this one
      if (query.trim() === '') {
        pick.items = [];
        return;
      }
      pick.busy = true;
      try {
        const results = await api.search(query, this.topK());
        if (mine === generation) pick.items = results.map(resultItem);
      } catch (error) {
        if (mine === generation) this.vscode.showErrorMessage(`ragls: ${errorMessage(error)}`);
      } finally {
        if (mine === generation) pick.busy = false;
      }
    };
    return new Promise<void>((resolve) => {
      pick.onDidChangeValue((value) => void run(value));
      pick.onDidAccept(() => {
        const chosen = pick.selectedItems[0];
        pick.hide();
        if (chosen) {
          const meta = chosen.value.metadata;
          if (meta.file) {
            void this.vscode.openFileAt(undefined, meta.file, meta.startLine ?? 1, meta.endLine ?? meta.startLine ?? 1);
          } else {
            this.vscode.showInformationMessage(chosen.value.content.slice(0, 500));
          }
        }
      });
      pick.onDidHide(() => {
        pick.dispose();
        resolve();
      });
      pick.show();
      if (initial) {
        pick.value = initial;
        void run(initial);
      }
    });
  }

  async copyContextPrompt(): Promise<string | undefined> {
    const api = this.api();
    if (!api) return undefined;
    const question = await this.vscode.showInputBox('Question to build a context prompt for', 'How does authentication work?');
    if (!question) return undefined;
    try {
      const prompt = await api.buildContextPrompt(question, this.topK());
      await this.vscode.writeClipboard(prompt);
      this.vscode.showInformationMessage('ragls: context prompt copied to the clipboard');
      return prompt;
    } catch (error) {
      this.vscode.showErrorMessage(`ragls: ${errorMessage(error)}`);
      return undefined;
    }
  }

  async reindex(force = true): Promise<Status | undefined> {
    const api = this.api();
    if (!api) return undefined;
    try {
      return await this.vscode.withProgress('ragls: indexing', async (progress, token) => {
        let last = 0;
        return api.index({
          force,
          token: token as CancellationTokenLike,
          onProgress: (value) => {
            const percentage = value.percentage ?? last;
            progress.report({ message: value.message, increment: Math.max(0, percentage - last) });
            last = percentage;
          },
        });
      });
    } catch (error) {
      this.vscode.showErrorMessage(`ragls: ${errorMessage(error)}`);
      return undefined;
    }
  }

  async showStatus(): Promise<Status | undefined> {
    const api = this.api();
    if (!api) return undefined;
    try {
      const status = await api.status();
      this.vscode.showInformationMessage(`ragls: ${statusText(status)}`);
      return status;
    } catch (error) {
      this.vscode.showErrorMessage(`ragls: ${errorMessage(error)}`);
      return undefined;
    }
  }

  /** Why the given file (default: the active editor's) is or is not indexed. */
  async explainFile(path?: string): Promise<PathExplanation | undefined> {
    const api = this.api();
    if (!api) return undefined;
    const target = path ?? this.vscode.activeFilePath();
    if (!target) {
      this.vscode.showErrorMessage('ragls: open a file (or pick one in the explorer) first');
      return undefined;
    }
    try {
      const found = await api.explainPath(target);
      this.vscode.showInformationMessage(explanationText(found));
      return found;
    } catch (error) {
      this.vscode.showErrorMessage(`ragls: ${errorMessage(error)}`);
      return undefined;
    }
  }

  async addSelectionAsDocument(): Promise<string | undefined> {
    const api = this.api();
    if (!api) return undefined;
    const selection = this.vscode.activeSelection();
    if (!selection || selection.text.trim() === '') {
      this.vscode.showErrorMessage('ragls: select some text first');
      return undefined;
    }
    const metadata: Record<string, string> = { source: 'selection' };
    if (selection.file) metadata.origin = `${selection.file}:${selection.startLine ?? 1}`;
    try {
      const id = await api.addDocument(selection.text, metadata);
      this.vscode.showInformationMessage(`ragls: added document ${id}`);
      return id;
    } catch (error) {
      this.vscode.showErrorMessage(`ragls: ${errorMessage(error)}`);
      return undefined;
    }
  }

  /** Lists the added documents; choosing one offers to remove it. */
  async manageDocuments(): Promise<boolean> {
    const api = this.api();
    if (!api) return false;
    try {
      const documents = await api.listDocuments();
      if (documents.length === 0) {
        this.vscode.showInformationMessage('ragls: no added documents');
        return false;
      }
      const chosen = await this.vscode.showQuickPick(
        documents.map((d) => ({ label: d.preview.split('\n')[0], description: `${d.contentLength} characters`, detail: d.id, value: d })),
        'Choose a document to remove',
      );
      if (!chosen) return false;
      const answer = await this.vscode.showQuickPick(
        [{ label: 'Remove', value: true }, { label: 'Keep', value: false }],
        `Remove "${chosen.label}"?`,
      );
      if (!answer?.value) return false;
      const removed = await api.removeDocument(chosen.value.id);
      this.vscode.showInformationMessage(removed ? 'ragls: document removed' : 'ragls: the document was already gone');
      return removed;
    } catch (error) {
      this.vscode.showErrorMessage(`ragls: ${errorMessage(error)}`);
      return false;
    }
  }
}
