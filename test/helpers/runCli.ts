import {spawn} from "node:child_process";

export type CliExit = {code: number | null, stdout: string, stderr: string, ms: number};

export type CliRunOptions = {
    cwd: string,
    /** The whole environment of the child: nothing of the test process leaks in unless named here. */
    env: NodeJS.ProcessEnv,
    /** Killed (SIGKILL) after this long. */
    timeoutMs: number
};

/** Runs a client's CLI with its stdin closed (Claude Code waits for piped input otherwise) and collects its output. */
export function runCli(bin: string, args: string[], options: CliRunOptions): Promise<CliExit> {
    return new Promise((resolve, reject) => {
        const started = performance.now();
        const child = spawn(bin, args, {cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"]});
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (chunk) => (stdout += chunk));
        child.stderr.on("data", (chunk) => (stderr += chunk));
        const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs);
        child.on("error", reject);
        child.on("close", (code) => {
            clearTimeout(timer);
            resolve({code, stdout, stderr, ms: performance.now() - started});
        });
    });
}
