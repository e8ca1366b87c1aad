import {spawn, type ChildProcess} from "node:child_process";
import net from "node:net";
import path from "node:path";
import {repoRoot} from "./paths.js";

/**
 * llama.cpp's `llama-server` and `rpc-server` for upstream-engine tests, built from node-llama-cpp's bundled
 * llama.cpp by scripts/build-llama-server.sh (once per machine: ~10-20 min on 2 cores, then a cache hit).
 * `npm test` builds them before any test runs (`npm run upstream:prepare`): a build started by a test would spend that
 * test file's 10-minute timeout on a fresh machine. A test run on its own still builds them on first use.
 * Nothing here skips: a failed build fails the test that needed it.
 */
const binDirs = new Map<LlamaServerBuild, Promise<string>>();

/**
 * How llama-server is built (scripts/build-llama-server.sh): `portable`, one static AVX2 build, for the tests (a third of
 * the compile time); `release`, as llama.cpp's releases are (every CPU variant, the best loaded at run time), the
 * yardstick the benchmarks compare with: on an AVX-512 machine the portable build is slower than what users download.
 */
export type LlamaServerBuild = "portable" | "release";

/** Minutes a test hook that may build llama-server allows (a fresh 2-core machine needs 10-20). */
export const buildTimeoutMs = 45 * 60_000;

/** The folder holding llama-server and ggml-rpc-server; builds them on first use (asynchronously: test timeouts still work). */
export function llamaServerBinDir(build: LlamaServerBuild = "portable"): Promise<string> {
    let binDir = binDirs.get(build);
    if (binDir != null)
        return binDir;
    binDir = new Promise((resolve, reject) => {
        const script = path.join(repoRoot, "scripts/build-llama-server.sh");
        const child = spawn("nice", ["-n", "19", "bash", script],
            {stdio: ["ignore", "pipe", "pipe"], env: {...process.env, LLAMA_BUILD_NO_WAIT: "1", LLAMA_BUILD_FLAVOR: build}});
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (data) => (stdout += data));
        child.stderr.on("data", (data) => (stderr = (stderr + data).slice(-8000)));
        child.once("error", reject);
        child.once("exit", (code) => {
            const dir = stdout.trim().split("\n").at(-1) ?? "";
            if (code === 0 && dir !== "")
                resolve(dir);
            else
                reject(new Error(`scripts/build-llama-server.sh failed (exit ${code}):\n${stderr.slice(-4000)}`));
        });
    });
    binDirs.set(build, binDir);
    return binDir;
}

export type LlamaServerProcess = {
    /** Base URL without `/v1`. */
    url: string,
    port: number,
    /** The process, for a profiler to attach to (bench:token-split). */
    pid: number,
    /** What the process wrote (for failure messages). */
    output(): string,
    /** Stops it (SIGTERM, or SIGKILL for an abrupt death) and waits for the exit. */
    stop(signal?: NodeJS.Signals): Promise<void>
};

export type LlamaServerOptions = {
    model: string,
    /** Parallel slots (`-np`); the total context is `contextPerSlot × slots`. */
    slots?: number,
    contextPerSlot?: number,
    /** Keep generating past end-of-text (long generations for cancel and disconnect tests). */
    ignoreEos?: boolean,
    /** `--rpc host:port,…`: split the model over rpc-servers. */
    rpc?: string[],
    apiKey?: string,
    extraArgs?: string[],
    /** Defaults to `portable` (see `LlamaServerBuild`); benchmarks ask for `release`. */
    build?: LlamaServerBuild
};

export async function freePort(): Promise<number> {
    return await new Promise((resolve, reject) => {
        const server = net.createServer();
        server.once("error", reject);
        server.listen(0, "127.0.0.1", () => {
            const {port} = server.address() as net.AddressInfo;
            server.close(() => resolve(port));
        });
    });
}

/** A llama-server on 127.0.0.1 with one thread and `--jinja`, answering `/health` before this returns. */
export async function startLlamaServer(options: LlamaServerOptions): Promise<LlamaServerProcess> {
    const bin = path.join(await llamaServerBinDir(options.build), "llama-server");
    const port = await freePort();
    const slots = options.slots ?? 2;
    const args = [
        "-m", options.model, "--host", "127.0.0.1", "--port", String(port), "-t", "1", "-tb", "1",
        "-c", String((options.contextPerSlot ?? 2048) * slots), "-np", String(slots), "--jinja", "--threads-http", "8", "--no-webui",
        ...(options.ignoreEos ? ["--ignore-eos"] : []),
        ...(options.rpc != null ? ["--rpc", options.rpc.join(","), "-ngl", "99"] : []),
        ...(options.apiKey != null ? ["--api-key", options.apiKey] : []),
        ...(options.extraArgs ?? [])
    ];
    const child = spawn(bin, args, {stdio: ["ignore", "pipe", "pipe"]});
    const url = `http://127.0.0.1:${port}`;
    const handle = track(child, url, port);
    await waitUntil(async () => {
        if (child.exitCode != null)
            throw new Error(`llama-server exited (${child.exitCode}):\n${handle.output().slice(-3000)}`);
        const response = await fetch(`${url}/health`).catch(() => null);
        return response?.ok === true;
    }, 120_000, () => `llama-server did not become healthy:\n${handle.output().slice(-3000)}`);
    return handle;
}

/** An `rpc-server` (ggml's RPC backend) on 127.0.0.1, ready once it listens. */
export async function startRpcServer(): Promise<LlamaServerProcess> {
    const bin = path.join(await llamaServerBinDir(), "ggml-rpc-server");
    const port = await freePort();
    const child = spawn(bin, ["-H", "127.0.0.1", "-p", String(port), "-t", "1"], {stdio: ["ignore", "pipe", "pipe"]});
    const handle = track(child, `127.0.0.1:${port}`, port);
    await waitUntil(async () => {
        if (child.exitCode != null)
            throw new Error(`rpc-server exited (${child.exitCode}):\n${handle.output().slice(-3000)}`);
        return await new Promise<boolean>((resolve) => {
            const socket = net.connect(port, "127.0.0.1", () => {
                socket.destroy();
                resolve(true);
            });
            socket.once("error", () => resolve(false));
        });
    }, 30_000, () => `rpc-server did not listen:\n${handle.output().slice(-3000)}`);
    return handle;
}

function track(child: ChildProcess, url: string, port: number): LlamaServerProcess {
    let output = "";
    const append = (chunk: Buffer) => {
        output = (output + chunk.toString("utf8")).slice(-64 * 1024);
    };
    child.stdout?.on("data", append);
    child.stderr?.on("data", append);
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    return {
        url,
        port,
        pid: child.pid!,
        output: () => output,
        stop: async (signal = "SIGTERM") => {
            if (child.exitCode == null && child.signalCode == null)
                child.kill(signal);
            await exited;
        }
    };
}

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number, message: () => string): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
        if (await check())
            return;
        await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(message());
}
