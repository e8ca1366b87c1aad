import assert from "node:assert/strict";
import {execFileSync, spawn} from "node:child_process";
import {once} from "node:events";
import path from "node:path";
import {repoRoot} from "./paths.js";

/** Sets up the arm64 Node 20 and qemu (scripts/arm64-setup.sh, cached) and returns the Node binary's path. */
export function arm64Node(): string {
    const setup = execFileSync("bash", [path.join(repoRoot, "scripts/arm64-setup.sh")],
        {encoding: "utf8", stdio: ["ignore", "pipe", "inherit"]});
    return setup.trim().split("\n").at(-1)!;
}

export type Arm64Server = {
    url: string,
    pid: number,
    stderr(): string,
    /** Stops the server (SIGTERM) and resolves with its exit code. */
    stop(): Promise<number | null>
};

/**
 * Starts `cli serve ARGS` under an arm64 Node and waits (up to 15 minutes: emulated) for its `listening on` line.
 * Executed directly: binfmt_misc hands it to qemu-aarch64, also when node-llama-cpp starts it again to test its binary.
 */
export async function startArm64Server(node: string, cli: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<Arm64Server> {
    const child = spawn(node, [cli, "serve", "--port", "0", "--threads", "1", "--parallel", "1", "--context-size", "256", ...args], {
        env: {...env, QEMU_LD_PREFIX: "/usr/aarch64-linux-gnu"},
        stdio: ["ignore", "pipe", "pipe"]
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const exited = once(child, "exit");
    const stop = async () => {
        child.kill("SIGTERM");
        const [code] = await exited as [number | null];
        return code;
    };
    const deadline = Date.now() + 15 * 60_000;
    while (!stdout.includes("\n") && child.exitCode == null && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 100));
    const url = /^listening on (http:\/\/127\.0\.0\.1:\d+\/v1)\n/.exec(stdout)?.[1];
    if (url == null) {
        await stop();
        assert.fail(`no 'listening on' line; stdout: ${stdout}\nstderr: ${stderr}`);
    }
    return {url, pid: child.pid!, stderr: () => stderr, stop};
}
