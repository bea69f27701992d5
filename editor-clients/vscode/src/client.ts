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
import * as fs from 'node:fs';
import { DaemonNotFound, findDaemon, type DaemonCommand } from './discovery';
import { RaglsApi, type Connection, type Status } from './protocol';
import { IgnoredWarning, readSettings, type Settings } from './settings';
import { RestartPolicy } from './restarts';
import { summarize } from './statusView';

/** How often the status bar re-reads rag/sessions: while a run or changes are pending, and otherwise (for the age). */
const BUSY_REFRESH_MS = 1000;
const IDLE_REFRESH_MS = 30000;

function executable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}


export function settingsNow(): Settings {
  const configuration = vscode.workspace.getConfiguration('ragls');
  return readSettings((key, fallback) => configuration.get(key, fallback), (key) => configuration.inspect(key));
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
  private refreshTimer: NodeJS.Timeout | undefined;
  private readonly ignoredWarning = new IgnoredWarning();

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

  /** Re-read every session's status and show it; again in 1 s while busy, else in 30 s. */
  private async refresh(): Promise<void> {
    clearTimeout(this.refreshTimer);
    const api = this.ragls;
    if (!api) return;
    let statuses: Status[];
    try {
      statuses = await api.sessions();
    } catch {
      return; // the daemon went away: onDidChangeState says so
    }
    if (this.ragls !== api) return;
    const summary = summarize(statuses, Date.now());
    this.status.text = summary.text;
    this.status.tooltip = summary.tooltip;
    this.status.backgroundColor = summary.warning ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.status.show();
    const busy = statuses.length === 0 || statuses.some((s) => s.indexing || s.stale || s.generation === 0);
    this.refreshTimer = setTimeout(() => void this.refresh(), busy ? BUSY_REFRESH_MS : IDLE_REFRESH_MS);
  }

  private locate(settings: Settings): DaemonCommand | undefined {
    try {
      return findDaemon(settings, {
        folders: (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath),
        trusted: vscode.workspace.isTrusted,
        env: process.env,
        platform: process.platform,
        executable,
      });
    } catch (error) {
      const message = error instanceof DaemonNotFound ? error.message : String(error);
      this.show('$(error) ragls', message);
      this.output.error(message);
      void vscode.window.showErrorMessage(`ragls: ${message}`, 'Open Settings').then((choice) => {
        if (choice) void vscode.commands.executeCommand('workbench.action.openSettings', 'ragls.daemon');
      });
      return undefined;
    }
  }

  /** Tell the user that a workspace's user-only settings were ignored (once for each set of keys). */
  private warnIgnored(settings: Settings): void {
    const message = this.ignoredWarning.next(settings.ignored);
    if (message === undefined) return;
    this.output.warn(message);
    void vscode.window.showWarningMessage(message);
  }

  async start(): Promise<void> {
    const settings = settingsNow();
    this.warnIgnored(settings);
    const command = this.locate(settings);
    if (!command) return;
    this.output.info(`starting the daemon: ${[command.command, ...command.args].join(' ')} (from ${command.source})`);
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
      this.api.onIndexUpdated(() => void this.refresh()),
      this.client.onDidChangeState((event) => {
        if (event.newState === State.Stopped) {
          clearTimeout(this.refreshTimer);
          this.show('$(error) ragls', 'the daemon stopped');
        }
        if (event.newState === State.Running) {
          this.show('$(sync~spin) ragls', 'indexing');
          void this.refresh();
        }
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
    const settings = settingsNow();
    this.warnIgnored(settings);
    await this.client.sendNotification('workspace/didChangeConfiguration', { settings: { ragls: settings.daemon } });
  }

  async restart(): Promise<void> {
    await this.stop();
    this.restarts.reset();
    await this.start();
  }

  async stop(): Promise<void> {
    clearTimeout(this.refreshTimer);
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
