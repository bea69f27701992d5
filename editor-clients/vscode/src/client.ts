// Creating, restarting and observing the language client, and the status bar item.
import * as vscode from 'vscode';
import {
  CloseAction,
  ErrorAction,
  LanguageClient,
  State,
  WorkDoneProgress,
  type LanguageClientOptions,
  type ServerOptions,
} from 'vscode-languageclient/node';
import { RaglsApi, type Connection } from './protocol';
import { daemonCommand, readSettings, type Settings } from './settings';
import { RestartPolicy } from './restarts';


export function settingsNow(): Settings {
  const configuration = vscode.workspace.getConfiguration('ragls');
  return readSettings(
    (key, fallback) => configuration.get(key, fallback),
    (key) => {
      const set = configuration.inspect(key);
      return set?.workspaceFolderValue ?? set?.workspaceValue ?? set?.globalValue;
    },
  );
}

function connectionOf(client: LanguageClient): Connection {
  return {
    sendRequest: (method, params, token) =>
      token ? client.sendRequest(method, params, token as vscode.CancellationToken) : client.sendRequest(method, params),
    onNotification: (method, handler) => client.onNotification(method, handler),
    onWorkDoneProgress: (token, handler) => client.onProgress(WorkDoneProgress.type, token, handler),
  };
}

export class RaglsClient implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private api: RaglsApi | undefined;
  private readonly status: vscode.StatusBarItem;
  private readonly restarts = new RestartPolicy();
  private readonly listeners: vscode.Disposable[] = [];

  constructor(private readonly output: vscode.LogOutputChannel) {
    this.status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 10);
    this.status.command = 'ragls.showStatus';
    this.show('$(sync~spin) ragls', 'starting');
  }

  get ragls(): RaglsApi | undefined {
    return this.client?.state === State.Running ? this.api : undefined;
  }

  private show(text: string, tooltip: string): void {
    this.status.text = text;
    this.status.tooltip = `ragls: ${tooltip}`;
    this.status.show();
  }

  setIndexing(message: string | undefined): void {
    if (message) this.show('$(sync~spin) ragls', message);
  }

  async start(): Promise<void> {
    const settings = settingsNow();
    let command: { command: string; args: string[] };
    try {
      command = daemonCommand(settings);
    } catch (error) {
      this.show('$(error) ragls', String(error));
      void vscode.window.showErrorMessage(`ragls: ${String(error)}`);
      return;
    }
    // No `transport`: with TransportKind.stdio the client appends `--stdio` to the arguments; a
    // plain command already speaks over stdio.
    const serverOptions: ServerOptions = { command: command.command, args: command.args };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: 'file' }],
      initializationOptions: settings.daemon,
      outputChannel: this.output,
      errorHandler: {
        error: () => ({ action: ErrorAction.Continue }),
        closed: () => this.onClosed(settings.maxRestarts),
      },
    };
    this.client = new LanguageClient('ragls', 'ragls', serverOptions, clientOptions);
    this.api = new RaglsApi(connectionOf(this.client), (warnings) => {
      void vscode.window.showWarningMessage(`ragls: ${warnings.join('; ')}`);
    });
    this.listeners.push(
      this.api.onIndexUpdated((update) => this.show(`$(database) ragls: ${update.chunkCount} chunks`, `${update.fileCount} files, ${update.chunkCount} chunks, generation ${update.generation}`)),
      this.client.onDidChangeState((event) => {
        if (event.newState === State.Stopped) this.show('$(error) ragls', 'the daemon stopped');
        if (event.newState === State.Running) this.show('$(sync~spin) ragls', 'indexing');
      }),
    );
    try {
      await this.client.start();
    } catch (error) {
      this.show('$(error) ragls', String(error));
      void vscode.window.showErrorMessage(`ragls: the daemon did not start: ${String(error)}`);
    }
  }

  private onClosed(maxRestarts: number): { action: CloseAction; message?: string } {
    const decision = this.restarts.closed(maxRestarts);
    if (!decision.restart) {
      this.show('$(error) ragls', 'the daemon keeps stopping');
      return { action: CloseAction.DoNotRestart, message: decision.message };
    }
    this.show('$(sync~spin) ragls', 'restarting the daemon');
    void vscode.window.showWarningMessage(decision.message);
    return { action: CloseAction.Restart };
  }

  async notifyConfiguration(): Promise<void> {
    if (this.client?.state !== State.Running) return;
    await this.client.sendNotification('workspace/didChangeConfiguration', { settings: { ragls: settingsNow().daemon } });
  }

  async restart(): Promise<void> {
    await this.stop();
    this.restarts.reset();
    await this.start();
  }

  async stop(): Promise<void> {
    for (const listener of this.listeners.splice(0)) listener.dispose();
    const client = this.client;
    this.client = undefined;
    this.api = undefined;
    if (client) await client.stop();
  }

  dispose(): void {
    void this.stop();
    this.status.dispose();
  }
}
