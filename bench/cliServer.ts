import {spawn} from "node:child_process";
import path from "node:path";
import {repoRoot} from "../test/helpers/paths.js";

/** A `dist/cli.js serve` in its own process: its API's base URL (ending in `/v1`, as it prints it) and how to stop it. */
export type CliServer = {url: string, stop: () => void};

/**
 * Starts `node dist/cli.js serve <args>` (run `npm run build` first) and resolves once it prints where it listens; a
 * process that exits first rejects with what it printed. Its log goes to this process's stderr.
 */
export async function startCliServer(args: readonly string[]): Promise<CliServer> {
    const child = spawn(process.execPath, [path.join(repoRoot, "dist/cli.js"), "serve", ...args], {stdio: ["ignore", "pipe", "inherit"]});
    const url = await new Promise<string>((resolve, reject) => {
        let out = "";
        child.stdout!.on("data", (data) => {
            out += data;
            const match = /listening on (\S+)/.exec(out);
            if (match != null)
                resolve(match[1]!);
        });
        child.once("exit", (code) => reject(new Error(`dist/cli.js serve exited (${code}):\n${out}`)));
    });
    return {url, stop: () => child.kill("SIGTERM")};
}

/** The prompt tokens of a Responses input, as a server started with `--no-auth` counts them (without evaluating it). */
export async function countInputTokens(server: CliServer, input: string): Promise<number> {
    const response = await fetch(`${server.url}/responses/input_tokens`, {
        method: "POST", headers: {"content-type": "application/json"}, body: JSON.stringify({model: "m", input})
    });
    return (await response.json() as {input_tokens: number}).input_tokens;
}
