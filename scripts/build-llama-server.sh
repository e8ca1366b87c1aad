#!/usr/bin/env bash
# Builds llama.cpp's `llama-server` and `ggml-rpc-server` (linked as `rpc-server` too) from the llama.cpp source that
# node-llama-cpp ships (node_modules/node-llama-cpp/llama/gitRelease.bundle), so the upstream engine used in tests and
# docs is exactly the llama.cpp version of the local engine.
#
# - Output: $CACHE/<bundle commit>/bin/{llama-server,ggml-rpc-server,rpc-server}; the last line printed on stdout is
#   that bin folder. CACHE defaults to ~/.cache/local-responses/llama-server (override: LOCAL_RESPONSES_LLAMA_CACHE).
# - Idempotent: when bin/.complete exists for that commit it prints the folder and exits at once. A lock (flock)
#   keeps two callers (a test helper and a person) from building the same commit twice at the same time;
#   with LLAMA_BUILD_NO_WAIT=1 a caller that finds the lock taken exits 75 at once instead of waiting.
# - Portable: -DGGML_NATIVE=OFF (no -march=native); on x86-64 AVX2/FMA/F16C/BMI2 are switched on explicitly, which
#   every x86-64 machine of the last decade has. Static libraries, so the binaries can be copied elsewhere.
# - Jobs: LLAMA_BUILD_JOBS (default 2); run under `nice -n 19` on a shared machine. About 10-20 min on 2 cores.
# - LLAMA_BUILD_FLAVOR=release builds it as llama.cpp's Linux releases are (-DGGML_BACKEND_DL=ON
#   -DGGML_CPU_ALL_VARIANTS=ON, shared libraries with an $ORIGIN rpath): every CPU variant a module beside the binary,
#   the best one for the machine chosen at run time, as node-llama-cpp's prebuilt CPU build does. That is the yardstick
#   the benchmarks compare with (a static AVX2 build flatters this server on an AVX-512 machine); the tests keep the
#   portable flavor (one static build, a third of the compile time). Output: $CACHE/<commit>-release/bin. About 40 min
#   on 2 cores (with GGML_BACKEND_DL every variant is a dependency of ggml itself: none can be left out).
#   LLAMA_CPU_VARIANT=zen4 builds that one variant's kernels alone, with the release's flags for it (a third of the
#   time): the variant node-llama-cpp's prebuilt build loads here (the bench prints it) is the fair one to compare with. After the build each variant this machine would pick is tried on a tiny model (LLAMA_SMOKE_MODEL, default
#   ../shared/models/stories260K.gguf); one that dies (GCC 12's sapphirerapids build stopped with SIGILL on an AMD
#   EPYC here) is moved aside into disabled/ and said, so the next best loads.
# Never builds inside the repository, never commits anything.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bundle="${LLAMA_BUNDLE:-$repo_root/node_modules/node-llama-cpp/llama/gitRelease.bundle}"
cache_root="${LOCAL_RESPONSES_LLAMA_CACHE:-$HOME/.cache/local-responses/llama-server}"
jobs="${LLAMA_BUILD_JOBS:-2}"
flavor="${LLAMA_BUILD_FLAVOR:-portable}"
case "$flavor" in portable | release) ;; *) echo "[build-llama-server] LLAMA_BUILD_FLAVOR is portable or release, not '$flavor'" >&2; exit 1 ;; esac

log() { echo "[build-llama-server] $*" >&2; }

if [[ ! -f "$bundle" ]]; then
  log "llama.cpp bundle not found: $bundle (run npm ci first)"
  exit 1
fi

commit="$(git bundle list-heads "$bundle" | awk 'NR==1 {print $1}')"
if [[ -z "$commit" ]]; then
  log "cannot read the bundle's head commit: $bundle"
  exit 1
fi
dest="$cache_root/$commit"
[[ "$flavor" == release ]] && dest="$cache_root/$commit-release${LLAMA_CPU_VARIANT:+-$LLAMA_CPU_VARIANT}"
bin="$dest/bin"
if [[ -f "$bin/.complete" ]]; then
  echo "$bin"
  exit 0
fi

mkdir -p "$dest"
exec 9>"$dest/.lock"
if [[ "${LLAMA_BUILD_NO_WAIT:-}" == 1 ]]; then
  # Tests use this: a build started elsewhere (a person, another checkout) is reported, not waited on for an hour.
  flock -n 9 || { log "another build of $commit is running (lock: $dest/.lock); run again when it ends"; exit 75; }
else
  flock 9
fi
if [[ -f "$bin/.complete" ]]; then # built by another caller while we waited for the lock
  echo "$bin"
  exit 0
fi

# Tools from the machine; install the missing ones when we can (root or passwordless sudo).
missing=()
for tool in cmake g++ make git; do command -v "$tool" >/dev/null 2>&1 || missing+=("$tool"); done
if ((${#missing[@]})); then
  packages=()
  for tool in "${missing[@]}"; do
    case "$tool" in g++) packages+=(g++) ;; *) packages+=("$tool") ;; esac
  done
  log "installing missing tools: ${packages[*]}"
  if [[ "$(id -u)" == 0 ]]; then sudo_cmd=(); elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo_cmd=(sudo -n); else
    log "missing ${missing[*]} and no root to apt-get install them"
    exit 1
  fi
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${packages[@]}"
fi

src="$dest/src"
if [[ ! -d "$src/.git" ]]; then
  rm -rf "$src"
  log "cloning $bundle -> $src"
  git clone -q "$bundle" "$src"
fi
git -C "$src" -c advice.detachedHead=false checkout -q "$commit"

generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)

if [[ "$flavor" == release ]]; then
  cpu_flags=(-DGGML_CPU_ALL_VARIANTS=ON)
  if [[ -n "${LLAMA_CPU_VARIANT:-}" ]]; then
    # One variant's features, read from the line of ggml's CMakeLists.txt that defines it for the release build
    # (`ggml_add_cpu_backend_variant(zen4 SSE42 AVX … AVX512_BF16)`): its kernels compiled as the release compiles them.
    features="$(grep -E "ggml_add_cpu_backend_variant\(${LLAMA_CPU_VARIANT}[[:space:]]" "$src/ggml/src/CMakeLists.txt" | head -1 \
      | sed -E 's/.*variant\([a-z0-9_.]+[[:space:]]*//; s/\).*//')"
    [[ -n "$features" ]] || { log "no CPU variant '$LLAMA_CPU_VARIANT' in ggml/src/CMakeLists.txt"; exit 1; }
    cpu_flags=()
    for feature in $features; do cpu_flags+=("-DGGML_$feature=ON"); done
    log "CPU variant $LLAMA_CPU_VARIANT alone: ${cpu_flags[*]}"
  fi
  log "configuring as llama.cpp's releases are (commit $commit)"
  cmake -S "$src" -B "$dest/build" "${generator[@]}" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_RPATH='$ORIGIN' -DCMAKE_BUILD_WITH_INSTALL_RPATH=ON \
    -DGGML_BACKEND_DL=ON -DGGML_NATIVE=OFF "${cpu_flags[@]}" \
    -DGGML_RPC=ON -DLLAMA_CURL=OFF \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
    >&2
  # The CPU variants are modules nothing links to: named, so they are built whatever ggml's dependencies say.
  mapfile -t variants < <(cmake --build "$dest/build" --target help | grep -o 'ggml-cpu-[a-z0-9_]*' | sort -u)
  started=$SECONDS
  log "building llama-server, ggml-rpc-server and ${#variants[@]} CPU variants with -j$jobs"
  cmake --build "$dest/build" --config Release --target llama-server ggml-rpc-server "${variants[@]}" -j "$jobs" >&2
  log "built in $((SECONDS - started)) s"
  rm -rf "$bin" && mkdir -p "$bin"
  cp -a "$dest/build/bin/." "$bin/"
  ln -sf ggml-rpc-server "$bin/rpc-server"
  "$(dirname "${BASH_SOURCE[0]}")/llama-server-variant.sh" "$bin" >&2
  touch "$bin/.complete"
  echo "$bin"
  exit 0
fi

arch_flags=()
case "$(uname -m)" in
  x86_64 | amd64) arch_flags=(-DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON) ;;
esac

log "configuring (commit $commit)"
cmake -S "$src" -B "$dest/build" "${generator[@]}" \
  -DCMAKE_BUILD_TYPE=Release \
  -DGGML_NATIVE=OFF "${arch_flags[@]}" \
  -DGGML_RPC=ON \
  -DLLAMA_CURL=OFF \
  -DBUILD_SHARED_LIBS=OFF \
  -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
  >&2

started=$SECONDS
log "building llama-server and ggml-rpc-server with -j$jobs"
cmake --build "$dest/build" --config Release --target llama-server ggml-rpc-server -j "$jobs" >&2
log "built in $((SECONDS - started)) s"

mkdir -p "$bin"
cp "$dest/build/bin/llama-server" "$dest/build/bin/ggml-rpc-server" "$bin/"
ln -sf ggml-rpc-server "$bin/rpc-server"
"$bin/llama-server" --version >&2 2>&1 || true
touch "$bin/.complete"
echo "$bin"
