// Test doubles: a scripted Connection (the daemon) and a recording VscodeApi (the editor).
import type { CancellationTokenLike, Connection, Disposable, WorkDoneProgressValue } from '../src/protocol';
import type { Folder, PickItem, ProgressLike, QuickPickLike, VscodeApi } from '../src/vscodeapi';

export class FakeConnection implements Connection {
  requests: { method: string; params: any }[] = [];
  handlers: Record<string, (params: any) => unknown> = {};
  progress = new Map<string, (value: WorkDoneProgressValue) => void>();

  async sendRequest<R>(method: string, params: any, _token?: CancellationTokenLike): Promise<R> {
    this.requests.push({ method, params });
    const handler = this.handlers[method];
    if (!handler) throw { code: -32601, message: `no fake for ${method}` };
    return (await handler.call(this, params)) as R;
  }

  onNotification(): Disposable {
    return { dispose() {} };
  }

  onWorkDoneProgress(token: string, handler: (value: WorkDoneProgressValue) => void): Disposable {
    this.progress.set(token, handler);
    return { dispose: () => this.progress.delete(token) };
  }
}

export class FakeQuickPick<T> implements QuickPickLike<T> {
  value = '';
  items: readonly PickItem<T>[] = [];
  busy = false;
  placeholder: string | undefined;
  title: string | undefined;
  selectedItems: PickItem<T>[] = [];
  shown = false;
  changeListeners: ((value: string) => void)[] = [];
  acceptListeners: (() => void)[] = [];
  hideListeners: (() => void)[] = [];
  onDidChangeValue(listener: (value: string) => void) { this.changeListeners.push(listener); }
  onDidAccept(listener: () => void) { this.acceptListeners.push(listener); }
  onDidHide(listener: () => void) { this.hideListeners.push(listener); }
  show() { this.shown = true; }
  hide() { this.shown = false; this.hideListeners.forEach((l) => l()); }
  dispose() {}
  type(value: string) { this.value = value; this.changeListeners.forEach((l) => l(value)); }
  accept(index: number) { this.selectedItems = [this.items[index] as PickItem<T>]; this.acceptListeners.forEach((l) => l()); }
}

export class FakeVscode implements VscodeApi {
  picks: FakeQuickPick<any>[] = [];
  info: string[] = [];
  errors: string[] = [];
  clipboard = '';
  opened: { folder: string | undefined; file: string; startLine: number; endLine: number }[] = [];
  workspaceFolders: Folder[] = [];
  active: string | undefined;
  reports: string[] = [];
  inputs: (string | undefined)[] = [];
  quickPickAnswers: number[] = [];
  progressReports: { message?: string; increment?: number }[] = [];
  selection: { text: string; file?: string; startLine?: number } | undefined;
  activeFile: string | undefined;

  createQuickPick<T>(): QuickPickLike<T> {
    const pick = new FakeQuickPick<T>();
    this.picks.push(pick);
    return pick;
  }
  placeholders: string[] = [];
  async showQuickPick<T>(items: PickItem<T>[], placeholder: string): Promise<PickItem<T> | undefined> {
    this.placeholders.push(placeholder);
    const index = this.quickPickAnswers.shift();
    return index === undefined ? undefined : items[index];
  }
  async showInputBox(): Promise<string | undefined> { return this.inputs.shift(); }
  activeFilePath() { return this.activeFile; }
  word: string | undefined;
  wordAtCursor() { return this.word; }
  showInformationMessage(message: string) { this.info.push(message); }
  showErrorMessage(message: string) { this.errors.push(message); }
  async writeClipboard(text: string) { this.clipboard = text; }
  async openFileAt(folder: string | undefined, file: string, startLine: number, endLine: number) {
    this.opened.push({ folder, file, startLine, endLine });
  }
  folders() { return this.workspaceFolders; }
  folderOf(path: string) { return this.workspaceFolders.find((f) => path.startsWith(`${f.path}/`))?.uri; }
  activeFolder() { return this.active; }
  async showReport(markdown: string) { this.reports.push(markdown); }
  async withProgress<R>(_title: string, task: (progress: ProgressLike, token: any) => Promise<R>): Promise<R> {
    const token = { isCancellationRequested: false, onCancellationRequested: () => ({ dispose() {} }) };
    return task({ report: (value) => this.progressReports.push(value) }, token);
  }
  activeSelection() { return this.selection; }
}
