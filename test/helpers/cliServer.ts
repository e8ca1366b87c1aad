import {spawn, type ChildProcess} from "node:child_process";
import path from "node:path";
import {repoRoot} from "./paths.js";

/** The headless server as its own process: `kill -9` tests end it as a crash would. */
export type CliServer = {child: ChildProcess, url: string, stderr: () => string};

/**
 * `dist/cli.js serve` (built by npm test) with `args` and `--port 0`; resolves with its URL once it listens. Its log is
 * kept for `stderr()`, or passed on to this process's stderr with `{stderr: "inherit"}` (the benches: a long run's log).
 * `env`: the server's whole environment (default: this process's).
 */
export async function serveCli(args: readonly string[],
    {stderr: log = "capture", env}: {stderr?: "capture" | "inherit", env?: NodeJS.ProcessEnv} = {}): Promise<CliServer> {
    const child = spawn(process.execPath, [path.join(repoRoot, "dist/cli.js"), "serve", "--port", "0", ...args], {
        stdio: ["ignore", "pipe", log === "inherit" ? "inherit" : "pipe"], env: env ?? process.env
    });
    let stdout = "";
    let stderr = "";
    child.stderr?.on("data", (chunk) => (stderr += chunk));
    const url = await new Promise<string>((resolve, reject) => {
        child.stdout!.on("data", (chunk) => {
            stdout += chunk;
            const match = /listening on (\S+)/.exec(stdout);
            if (match != null)
                resolve(match[1]!);
        });
        child.on("exit", (code) => reject(new Error(`server exited ${code}: ${stderr || stdout}`)));
    });
    return {child, url, stderr: () => stderr};
}
