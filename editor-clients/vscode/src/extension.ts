// Wiring only: start the client, register the commands, export the API for other extensions.
import * as vscode from 'vscode';
import { RaglsClient, settingsNow } from './client';
import { Commands } from './commands';
import type { IndexUpdated, SearchResult } from './protocol';
import { realVscodeApi, registerReports } from './vscodeapi';

export interface RaglsExtensionApi {
  search(query: string, topK?: number): Promise<SearchResult[]>;
  buildContextPrompt(query: string, topK?: number): Promise<string>;
  onIndexUpdated(listener: (update: IndexUpdated) => void): vscode.Disposable;
}

let client: RaglsClient | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<RaglsExtensionApi> {
  const output = vscode.window.createOutputChannel('ragls', { log: true });
  client = new RaglsClient(output);
  const running = client;
  const commands = new Commands(realVscodeApi(), () => running.ragls, () => settingsNow().topK);
  context.subscriptions.push(
    output,
    running,
    registerReports(),
    vscode.commands.registerCommand('ragls.search', (query?: string) => commands.search(query ?? '')),
    vscode.commands.registerCommand('ragls.findReferencesByName', (name?: string) =>
      commands.findReferencesByName(typeof name === 'string' ? name : undefined)),
    vscode.commands.registerCommand('ragls.copyContextPrompt', () => commands.copyContextPrompt()),
    vscode.commands.registerCommand('ragls.reindex', () => commands.reindex(true)),
    vscode.commands.registerCommand('ragls.showStatus', () => commands.showStatus()),
    // From the palette: the active file; from the explorer's context menu: the clicked item.
    vscode.commands.registerCommand('ragls.explainFile', (item?: vscode.Uri) =>
      commands.explainFile(item?.scheme === 'file' ? item.fsPath : undefined)),
    vscode.commands.registerCommand('ragls.addSelectionAsDocument', () => commands.addSelectionAsDocument()),
    vscode.commands.registerCommand('ragls.manageDocuments', () => commands.manageDocuments()),
    vscode.commands.registerCommand('ragls.restartDaemon', () => running.restart()),
    vscode.commands.registerCommand('ragls.restartServer', () => running.restart()), // the earlier id
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration('ragls.daemon') || event.affectsConfiguration('ragls.server')) void running.restart();
      else if (event.affectsConfiguration('ragls')) void running.notifyConfiguration();
    }),
  );
  await running.start();
  const api = () => {
    const ragls = running.ragls;
    if (!ragls) throw new Error('ragls: the daemon is not running');
    return ragls;
  };
  return {
    search: (query, topK) => api().search(query, topK ?? settingsNow().topK),
    buildContextPrompt: (query, topK) => api().buildContextPrompt(query, topK ?? settingsNow().topK),
    onIndexUpdated: (listener) => api().onIndexUpdated(listener),
  };
}

export async function deactivate(): Promise<void> {
  await client?.stop();
  client = undefined;
}
