// The part of the VS Code API the commands use, behind an interface so tests can stub it.
// Only this module and extension.ts/client.ts import 'vscode' at run time.
import * as vscode from 'vscode';

export interface PickItem<T> {
  label: string;
  description?: string;
  detail?: string;
  value: T;
}

export interface QuickPickLike<T> {
  value: string;
  items: readonly PickItem<T>[];
  busy: boolean;
  placeholder: string | undefined;
  /** The line above the input: where the search view says its results are partial. */
  title: string | undefined;
  readonly selectedItems: readonly PickItem<T>[];
  onDidChangeValue(listener: (value: string) => void): void;
  onDidAccept(listener: () => void): void;
  onDidHide(listener: () => void): void;
  show(): void;
  hide(): void;
  dispose(): void;
}

/** A workspace folder: its URI (the daemon's session id), path and name. */
export interface Folder {
  uri: string;
  path: string;
  name: string;
}

export interface ProgressLike {
  report(value: { message?: string; increment?: number }): void;
}

export interface VscodeApi {
  createQuickPick<T>(): QuickPickLike<T>;
  showQuickPick<T>(items: PickItem<T>[], placeholder: string): Promise<PickItem<T> | undefined>;
  showInputBox(prompt: string, placeholder?: string): Promise<string | undefined>;
  showInformationMessage(message: string): void;
  showErrorMessage(message: string): void;
  writeClipboard(text: string): Promise<void>;
  openFileAt(folder: string | undefined, file: string, startLine: number, endLine: number): Promise<void>;
  withProgress<R>(title: string, task: (progress: ProgressLike, token: vscode.CancellationToken) => Promise<R>): Promise<R>;
  activeSelection(): { text: string; file?: string; startLine?: number } | undefined;
  /** The absolute path of the active editor's file, if it is one on disk. */
  activeFilePath(): string | undefined;
  /** The identifier under the active editor's cursor, if any. */
  wordAtCursor(): string | undefined;
  /** The workspace folders, in order. */
  folders(): Folder[];
  /** The URI of the workspace folder holding ``path``, if any. */
  folderOf(path: string): string | undefined;
  /** The URI of the active editor's workspace folder, if any. */
  activeFolder(): string | undefined;
  /** Open ``markdown`` as the read-only status document (replacing what it showed). */
  showReport(markdown: string): Promise<void>;
}

/** The scheme of the read-only status document (registered by registerReports). */
export const REPORT_SCHEME = 'ragls';
const REPORT_URI = vscode.Uri.from({ scheme: REPORT_SCHEME, path: '/ragls status.md' });
let reportText = '';
const reportChanged = new vscode.EventEmitter<vscode.Uri>();

/** The content provider behind showReport: one virtual, read-only document. */
export function registerReports(): vscode.Disposable {
  return vscode.workspace.registerTextDocumentContentProvider(REPORT_SCHEME, {
    onDidChange: reportChanged.event,
    provideTextDocumentContent: () => reportText,
  });
}

export function realVscodeApi(): VscodeApi {
  return {
    createQuickPick<T>() {
      const pick = vscode.window.createQuickPick<vscode.QuickPickItem & { value: T }>();
      pick.matchOnDescription = false;
      pick.matchOnDetail = false;
      return {
        get value() { return pick.value; },
        set value(v: string) { pick.value = v; },
        get items() { return pick.items as unknown as PickItem<T>[]; },
        set items(items: readonly PickItem<T>[]) {
          // Results are ranked by the daemon: keep its order, no fuzzy filtering by VS Code.
          pick.items = items.map((item) => ({ ...item, alwaysShow: true }));
        },
        get busy() { return pick.busy; },
        set busy(b: boolean) { pick.busy = b; },
        get placeholder() { return pick.placeholder; },
        set placeholder(p: string | undefined) { pick.placeholder = p; },
        get title() { return pick.title; },
        set title(t: string | undefined) { pick.title = t; },
        get selectedItems() { return pick.selectedItems as unknown as PickItem<T>[]; },
        onDidChangeValue: (listener) => { pick.onDidChangeValue(listener); },
        onDidAccept: (listener) => { pick.onDidAccept(listener); },
        onDidHide: (listener) => { pick.onDidHide(listener); },
        show: () => pick.show(),
        hide: () => pick.hide(),
        dispose: () => pick.dispose(),
      };
    },
    async showQuickPick(items, placeholder) {
      return vscode.window.showQuickPick(items, { placeHolder: placeholder });
    },
    async showInputBox(prompt, placeholder) {
      return vscode.window.showInputBox({ prompt, placeHolder: placeholder, ignoreFocusOut: true });
    },
    showInformationMessage(message) { void vscode.window.showInformationMessage(message); },
    showErrorMessage(message) { void vscode.window.showErrorMessage(message); },
    async writeClipboard(text) { await vscode.env.clipboard.writeText(text); },
    async openFileAt(folder, file, startLine, endLine) {
      const base = folder ? vscode.Uri.file(folder) : vscode.workspace.workspaceFolders?.[0]?.uri;
      const uri = base ? vscode.Uri.joinPath(base, file) : vscode.Uri.file(file);
      const document = await vscode.workspace.openTextDocument(uri);
      // The hit's lines selected whole, the cursor on its first line (where the reader starts).
      const last = document.lineAt(Math.min(document.lineCount - 1, Math.max(0, endLine - 1)));
      const first = Math.min(last.lineNumber, Math.max(0, startLine - 1));
      const selection = new vscode.Selection(last.range.end, new vscode.Position(first, 0));
      const editor = await vscode.window.showTextDocument(document);
      editor.selection = selection; // set here: the showTextDocument option drops the direction
      editor.revealRange(selection, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    },
    withProgress(title, task) {
      return Promise.resolve(
        vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, task),
      );
    },
    activeFilePath() {
      const uri = vscode.window.activeTextEditor?.document.uri;
      return uri?.scheme === 'file' ? uri.fsPath : undefined;
    },
    wordAtCursor() {
      const editor = vscode.window.activeTextEditor;
      if (!editor) return undefined;
      const range = editor.document.getWordRangeAtPosition(editor.selection.active);
      return range ? editor.document.getText(range) : undefined;
    },
    folders() {
      return (vscode.workspace.workspaceFolders ?? []).map((f) => ({ uri: f.uri.toString(), path: f.uri.fsPath, name: f.name }));
    },
    folderOf(path) {
      return vscode.workspace.getWorkspaceFolder(vscode.Uri.file(path))?.uri.toString();
    },
    activeFolder() {
      const uri = vscode.window.activeTextEditor?.document.uri;
      return uri ? vscode.workspace.getWorkspaceFolder(uri)?.uri.toString() : undefined;
    },
    async showReport(markdown) {
      reportText = markdown;
      reportChanged.fire(REPORT_URI);
      const document = await vscode.workspace.openTextDocument(REPORT_URI);
      await vscode.languages.setTextDocumentLanguage(document, 'markdown');
      await vscode.window.showTextDocument(document, { preview: false });
    },
    activeSelection() {
      const editor = vscode.window.activeTextEditor;
      if (!editor) return undefined;
      const text = editor.document.getText(editor.selection);
      return { text, file: vscode.workspace.asRelativePath(editor.document.uri), startLine: editor.selection.start.line + 1 };
    },
  };
}
