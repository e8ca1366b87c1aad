#!/usr/bin/env bash
# Which CPU variant a release-flavored llama-server (scripts/build-llama-server.sh, LLAMA_BUILD_FLAVOR=release) loads
# on this machine, checked by answering a few tokens on a tiny model: ggml picks the best-scoring libggml-cpu-*.so by the
# CPU's features, and a variant whose compiler emitted an instruction this CPU lacks dies with SIGILL at the first
# computation (GCC 12's sapphirerapids build on an AMD EPYC here). Such a variant is moved into disabled/ and the check
# runs again, so what is left runs. Prints `llama-server CPU variant: <name>` on stdout.
# Usage: llama-server-variant.sh <bin folder>   (LLAMA_SMOKE_MODEL: the model; default ../shared/models/stories260K.gguf)
set -euo pipefail

bin="$1"
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
model="${LLAMA_SMOKE_MODEL:-$repo_root/../shared/models/stories260K.gguf}"
log() { echo "[llama-server-variant] $*" >&2; }
[[ -f "$model" ]] || { log "no model to try the variants on: $model (set LLAMA_SMOKE_MODEL)"; exit 1; }

for attempt in $(seq 1 20); do
  port=$((20000 + RANDOM % 20000))
  out="$(mktemp)"
  "$bin/llama-server" -m "$model" --host 127.0.0.1 --port "$port" -c 256 -t 1 -np 1 >"$out" 2>&1 &
  pid=$!
  answered=""
  for _ in $(seq 1 100); do
    kill -0 "$pid" 2>/dev/null || break
    if curl -sf "http://127.0.0.1:$port/health" >/dev/null 2>&1; then
      curl -sf "http://127.0.0.1:$port/completion" -H 'content-type: application/json' \
        -d '{"prompt":"Once upon a time","n_predict":4}' >/dev/null 2>&1 && answered=1
      break
    fi
    sleep 0.2
  done
  # Its log names the module at higher verbosity only; the process's memory map always does.
  variant="$( (grep -o 'libggml-cpu[-a-z0-9_]*\.so' "$out"; grep -o 'libggml-cpu[-a-z0-9_]*\.so' "/proc/$pid/maps" 2>/dev/null) | head -1 || true)"
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null && status=0 || status=$?
  if [[ -n "$answered" ]]; then
    rm -f "$out"
    echo "llama-server CPU variant: ${variant:-unknown}"
    exit 0
  fi
  if [[ -z "$variant" || ! -f "$bin/$variant" ]]; then
    log "llama-server did not answer (exit $status) and no variant to set aside; its output:"
    tail -20 "$out" >&2
    rm -f "$out"
    exit 1
  fi
  log "$variant did not run here (exit $status: $(grep -m1 -io 'illegal instruction\|sigill' "$out" || echo 'no answer')): moved to disabled/"
  mkdir -p "$bin/disabled"
  mv "$bin/$variant" "$bin/disabled/"
  rm -f "$out"
done
log "no CPU variant ran"
exit 1
