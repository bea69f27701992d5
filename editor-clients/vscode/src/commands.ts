// The commands of the extension, written against VscodeApi and RaglsApi only.
import type { CancellationTokenLike, PathExplanation, RaglsApi, ReferencesAnswer, SearchResult, Status } from './protocol';
import { errorMessage, partialNote } from './protocol';
import { basename, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { statusReport } from './statusView';
import type { Folder, PickItem, VscodeApi } from './vscodeapi';

export const SEARCH_DEBOUNCE_MS = 150;

/** A hit and the workspace folder whose session answered it (undefined with one folder). */
export interface Hit {
  result: SearchResult;
  folder?: Folder;
}

/** RRF's k (SPEC §4), for merging the rankings of several folders. */
export const FOLDER_FUSION_K = 60;

/**
 * The hits of several folders as one ranking: reciprocal rank fusion of each folder's own ranking
 * (score 1/(k + rank)), so folders interleave by rank. Scores of different sessions are not
 * comparable (each has its own statistics); ranks are. Ties keep the folders' order.
 */
export function fuseFolders(lists: { folder: Folder; results: SearchResult[] }[], topK: number): Hit[] {
  const scored = lists.flatMap(({ folder, results }, f) =>
    results.map((result, rank) => ({ hit: { result, folder }, score: 1 / (FOLDER_FUSION_K + rank + 1), f, rank })));
  scored.sort((a, b) => b.score - a.score || a.f - b.f || a.rank - b.rank);
  return scored.slice(0, topK).map((s) => s.hit);
}

export function resultItem(result: SearchResult, folder?: Folder): PickItem<Hit> {
  const meta = result.metadata;
  const file = meta.file ? `${folder ? `${folder.name}/` : ''}${meta.file}` : undefined;
  const where = file ? `${file}:${meta.startLine ?? 1}` : result.id;
  const symbol = meta.symbol ? `${meta.kind ?? ''} ${meta.symbol}`.trim() : '';
  const preview = result.content.split('\n').find((line) => line.trim() !== '') ?? '';
  return { label: where, description: symbol, detail: preview.trim().slice(0, 200), value: { result, folder } };
}

/** Where a definition or a use of a name is: the file's folder and name, its 1-based line. */
export interface Place {
  folder: string;
  file: string;
  line: number;
}

function placeOf(uri: string, line: number): Place {
  const path = fileURLToPath(uri);
  return { folder: dirname(path), file: basename(path), line: line + 1 };
}

/**
 * A rag/references answer as quick-pick items: the definitions first, then each use with the
 * definition it is inside and its line. With several workspace folders, a path is prefixed with
 * its folder's name (the answer says which session, i.e. folder URI, holds each file).
 */
export function referenceItems(answer: ReferencesAnswer, folders: Folder[] = []): PickItem<Place>[] {
  const prefix = (session: string) => {
    if (folders.length <= 1) return '';
    const folder = folders.find((f) => f.uri === session || pathToFileURL(f.path).href === session);
    return `${folder?.name ?? basename(fileURLToPath(session))}/`;
  };
  const definitions = answer.definitions.map((d) => {
    const line = d.selectionRange.start.line;
    return {
      label: `${prefix(d.session)}${d.path}:${line + 1}`,
      description: `definition: ${d.kind} ${d.container ? `${d.container}.` : ''}${d.name}`,
      detail: d.signature ?? undefined,
      value: placeOf(d.uri, line),
    };
  });
  const uses = answer.files.flatMap((file) => file.references.map((r) => ({
    label: `${prefix(file.session)}${file.path}:${r.range.start.line + 1}`,
    description: r.enclosing ? `in ${r.enclosing}` : '',
    detail: r.text ?? undefined,
    value: placeOf(file.uri, r.range.start.line),
  })));
  return [...definitions, ...uses];
}

export function explanationText(found: PathExplanation): string {
  if (found.indexed) return `ragls: ${found.path} is indexed (${found.chunks} chunks)`;
  const detail = found.detail ? ` (${found.detail})` : '';
  return `ragls: ${found.path} is not indexed: ${found.reason}${detail}`;
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
    const pick = this.vscode.createQuickPick<Hit>();
    const folders = this.vscode.folders();
    pick.placeholder = folders.length > 1 ? `Search ${folders.length} workspace folders (ragls)` : 'Search the workspace (ragls)';
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
        const { hits, partial } = await this.searchFolders(api, folders, query);
        if (mine === generation) {
          pick.items = hits.map((hit) => resultItem(hit.result, hit.folder));
          // While a first index runs, answers come from the files read so far: say so.
          pick.title = partial;
        }
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
          const { result, folder } = chosen.value;
          const meta = result.metadata;
          if (meta.file) {
            void this.vscode.openFileAt(folder?.path, meta.file, meta.startLine ?? 1, meta.endLine ?? meta.startLine ?? 1);
          } else {
            this.vscode.showInformationMessage(result.content.slice(0, 500));
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

  /** One folder: the daemon's default session. Several: each folder's session, fused by rank.
   *  ``partial``: what to say when an answer came from a first index still under way. */
  private async searchFolders(api: RaglsApi, folders: Folder[], query: string): Promise<{ hits: Hit[]; partial?: string }> {
    const topK = this.topK();
    if (folders.length <= 1) {
      const answer = await api.searchAnswer(query, topK);
      return { hits: answer.results.map((result) => ({ result })), partial: partialNote(answer) };
    }
    const answers = await Promise.all(folders.map(async (folder) => ({ folder, answer: await api.searchAnswer(query, topK, folder.uri) })));
    const lists = answers.map(({ folder, answer }) => ({ folder, results: answer.results }));
    const partial = answers.filter(({ answer }) => answer.partial).map(({ folder, answer }) => `${folder.name}: ${partialNote(answer)}`);
    return { hits: fuseFolders(lists, topK), partial: partial.length > 0 ? partial.join('; ') : undefined };
  }

  /**
   * "Find References by Name": the definitions and uses of ``name`` (default: the identifier
   * under the cursor, else asked for) in every workspace folder, matched by name with no type
   * resolution (for languages whose own server gives none), in a quick pick that opens the
   * chosen one. Returns how many places were listed.
   */
  async findReferencesByName(name?: string): Promise<number> {
    const api = this.api();
    if (!api) return 0;
    const wanted = (name ?? this.vscode.wordAtCursor() ?? (await this.vscode.showInputBox('Find references to the name', 'parse_config')))?.trim();
    if (!wanted) return 0;
    let answer: ReferencesAnswer;
    try {
      answer = await api.references(wanted); // every workspace folder's index answers, merged
    } catch (error) {
      this.vscode.showErrorMessage(`ragls: ${errorMessage(error)}`);
      return 0;
    }
    const items = referenceItems(answer, this.vscode.folders());
    if (items.length === 0) {
      this.vscode.showInformationMessage(`ragls: no definitions or references named ${wanted}`);
      return 0;
    }
    const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
    const shown = items.length - answer.definitions.length;
    const uses = `${count(answer.total, 'reference')}${answer.truncated ? `, the first ${shown} shown` : ''}`;
    const chosen = await this.vscode.showQuickPick(items, `${wanted}: ${count(answer.definitions.length, 'definition')}, ${uses} (matched by name)`);
    if (chosen) await this.vscode.openFileAt(chosen.value.folder, chosen.value.file, chosen.value.line, chosen.value.line);
    return items.length;
  }

  async copyContextPrompt(): Promise<string | undefined> {
    const api = this.api();
    if (!api) return undefined;
    const question = await this.vscode.showInputBox('Question to build a context prompt for', 'How does authentication work?');
    if (!question) return undefined;
    try {
      // A prompt is built from one corpus: the active editor's folder, else the first.
      const answer = await api.buildContextPromptAnswer(question, this.topK(), this.vscode.activeFolder());
      await this.vscode.writeClipboard(answer.prompt);
      const partial = partialNote(answer);
      this.vscode.showInformationMessage(`ragls: context prompt copied to the clipboard${partial ? ` (${partial})` : ''}`);
      return answer.prompt;
    } catch (error) {
      this.vscode.showErrorMessage(`ragls: ${errorMessage(error)}`);
      return undefined;
    }
  }

  async reindex(force = true): Promise<Status | undefined> {
    const api = this.api();
    if (!api) return undefined;
    try {
      const sessions = this.vscode.folders().map((folder): Folder | undefined => folder);
      if (sessions.length === 0) sessions.push(undefined);
      return await this.vscode.withProgress('ragls: indexing', async (progress, token) => {
        let status: Status | undefined;
        for (const folder of sessions) {
          if (token.isCancellationRequested) break;
          let last = 0;
          const share = 100 / sessions.length; // each folder's run fills its share of the bar
          const where = folder && sessions.length > 1 ? `${folder.name}: ` : '';
          status = await api.index({
            force,
            session: folder?.uri,
            token: token as CancellationTokenLike,
            onProgress: (value) => {
              const percentage = value.percentage ?? last;
              progress.report({ message: `${where}${value.message ?? ''}`, increment: Math.max(0, percentage - last) * share / 100 });
              last = percentage;
            },
          });
        }
        return status;
      });
    } catch (error) {
      this.vscode.showErrorMessage(`ragls: ${errorMessage(error)}`);
      return undefined;
    }
  }

  /** The full status of every session, opened as a read-only Markdown document. */
  async showStatus(): Promise<Status[] | undefined> {
    const api = this.api();
    if (!api) return undefined;
    try {
      const statuses = await api.sessions();
      await this.vscode.showReport(statusReport(statuses, Date.now()));
      return statuses;
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
      const found = await api.explainPath(target, this.vscode.folderOf(target));
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
