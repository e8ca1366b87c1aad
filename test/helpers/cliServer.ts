import {spawn, type ChildProcess} from "node:child_process";
import path from "node:path";
import {repoRoot} from "./paths.js";

/** The headless server as its own process: `kill -9` tests end it as a crash would. */
export type CliServer = {child: ChildProcess, url: string, stderr: () => string};

/** `dist/cli.js serve` (built by npm test) with `args`; resolves with its URL once it listens. */
export async function serveCli(args: readonly string[]): Promise<CliServer> {
    const child = spawn(process.execPath, [path.join(repoRoot, "dist/cli.js"), "serve", "--port", "0", ...args], {
        stdio: ["ignore", "pipe", "pipe"]
    });
    let stdout = "";
    let stderr = "";
    child.stderr!.on("data", (chunk) => (stderr += chunk));
    const url = await new Promise<string>((resolve, reject) => {
        child.stdout!.on("data", (chunk) => {
            stdout += chunk;
            const match = /listening on (\S+)/.exec(stdout);
            if (match != null)
                resolve(match[1]!);
        });
        child.on("exit", (code) => reject(new Error(`server exited ${code}: ${stderr}`)));
    });
    return {child, url, stderr: () => stderr};
}
