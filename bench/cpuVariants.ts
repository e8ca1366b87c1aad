import fs from "node:fs";

/**
 * Which of ggml's CPU variants (`libggml-cpu-<name>.so`, chosen at run time by the CPU's features) a process and its
 * children have loaded, read from /proc (Linux). Benchmarks print it for both sides, so a comparison says whether the
 * two ran the same kernels: node-llama-cpp's prebuilt CPU build and a release-built llama-server each pick their own.
 * Returns the names found (e.g. `["zen4"]`), or `["unknown (not Linux)"]` where /proc cannot tell.
 */
export function loadedCpuVariants(pid: number): string[] {
    if (process.platform !== "linux")
        return ["unknown (not Linux)"];
    const found = new Set<string>();
    for (const id of processTree(pid)) {
        const maps = readOrEmpty(`/proc/${id}/maps`);
        for (const match of maps.matchAll(/libggml-cpu(?:-([\w-]+?))?\.so/g))
            // `libggml-cpu.so`: one variant's build (build-llama-server.sh's LLAMA_CPU_VARIANT), named by the build.
            found.add(match[1] ?? "the build's own (libggml-cpu.so)");
        // A static build has no variant module: its kernels are in the binary itself.
        if (found.size === 0 && /llama-server/.test(maps) && !/libggml/.test(maps))
            found.add("built in (static)");
    }
    return [...found].sort();
}

/** `pid` and every descendant, through /proc/<pid>/task/<tid>/children. */
function processTree(pid: number): number[] {
    const seen: number[] = [];
    const pending = [pid];
    while (pending.length > 0) {
        const id = pending.pop()!;
        seen.push(id);
        for (const task of listOrEmpty(`/proc/${id}/task`))
            for (const child of readOrEmpty(`/proc/${id}/task/${task}/children`).split(/\s+/).filter(Boolean))
                pending.push(Number(child));
    }
    return seen;
}

function readOrEmpty(file: string): string {
    try {
        return fs.readFileSync(file, "utf8");
    } catch {
        return "";
    }
}

function listOrEmpty(folder: string): string[] {
    try {
        return fs.readdirSync(folder);
    } catch {
        return [];
    }
}
