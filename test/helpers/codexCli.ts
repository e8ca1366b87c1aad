import fs from "node:fs";
import path from "node:path";
import {repoRoot} from "./paths.js";
import {runCli, type CliExit} from "./runCli.js";

/** The Codex CLI the tests drive (the npm package's binary). */
export const codexBin = path.join(repoRoot, "node_modules/.bin/codex");
const keyVariable = "LOCAL_RESPONSES_TEST_KEY";

/**
 * Codex's config.toml in `codexHome`: the server at `baseUrl` as a Responses provider, its key from the environment
 * `runCodex` sets, no retries (a failure shows at once), and a 20 s idle timeout on the stream.
 */
export function writeCodexConfig(codexHome: string, model: string, baseUrl: string): void {
    fs.writeFileSync(path.join(codexHome, "config.toml"), [
        `model = "${model}"`,
        `model_provider = "local"`,
        `[model_providers.local]`,
        `name = "Local Responses"`,
        `base_url = "${baseUrl}"`,
        `wire_api = "responses"`,
        `env_key = "${keyVariable}"`,
        `request_max_retries = 0`,
        `stream_max_retries = 0`,
        `stream_idle_timeout_ms = 20000`
    ].join("\n") + "\n");
}

export type CodexExit = CliExit;

/** Runs `codex ARGS` in `cwd` with only PATH, the Codex home and the key in its environment; killed after `timeoutMs`. */
export function runCodex(args: string[], options: {cwd: string, codexHome: string, apiKey: string, timeoutMs: number}): Promise<CodexExit> {
    return runCli(codexBin, args, {
        cwd: options.cwd,
        env: {
            PATH: process.env.PATH, HOME: options.codexHome, CODEX_HOME: options.codexHome, [keyVariable]: options.apiKey, RUST_LOG: "error"
        },
        timeoutMs: options.timeoutMs
    });
}

/** The JSON events of `codex exec --json` output. */
export function codexEvents(stdout: string): Array<{type: string, [key: string]: any}> {
    return stdout.split("\n").filter((line) => line.trim().startsWith("{")).map((line) => JSON.parse(line));
}
