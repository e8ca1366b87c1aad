import path from "node:path";
import {repoRoot} from "./paths.js";
import {runCli, type CliExit} from "./runCli.js";

/**
 * Claude Code's native binary, from its platform package for this machine, which `npm ci` adds
 * (scripts/install-platform-packages.mjs); the `@anthropic-ai/claude-code` wrapper's postinstall, which would copy it
 * in place, runs before that step and finds it missing. Linux with musl has packages of its own.
 */
function claudePackage(): string {
    const report = process.report.getReport() as {header?: {glibcVersionRuntime?: string}};
    const musl = process.platform === "linux" && report.header?.glibcVersionRuntime == null;
    return `@anthropic-ai/claude-code-${process.platform}-${process.arch}${musl ? "-musl" : ""}`;
}

export const claudeBin = path.join(repoRoot, "node_modules", claudePackage(), process.platform === "win32" ? "claude.exe" : "claude");

export type ClaudeRunOptions = {
    /** The folder it works in; also its HOME, so its settings and sessions stay in the test's scratch folder. */
    cwd: string,
    /** The server's origin (no `/v1`: Claude Code posts to `/v1/messages` itself). */
    baseUrl: string,
    apiKey: string,
    model: string,
    timeoutMs: number
};

/**
 * Runs `claude ARGS` offline against the server: the key as `ANTHROPIC_AUTH_TOKEN` (sent as a bearer token), no
 * non-essential traffic or auto-update, the served model's name for both its models, and nothing else of this
 * process's environment.
 */
export function runClaude(args: string[], options: ClaudeRunOptions): Promise<CliExit> {
    return runCli(claudeBin, args, {
        cwd: options.cwd,
        env: {
            PATH: process.env.PATH,
            HOME: options.cwd,
            ANTHROPIC_BASE_URL: options.baseUrl,
            ANTHROPIC_AUTH_TOKEN: options.apiKey,
            ANTHROPIC_MODEL: options.model,
            ANTHROPIC_SMALL_FAST_MODEL: options.model,
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
            DISABLE_AUTOUPDATER: "1"
        },
        timeoutMs: options.timeoutMs
    });
}

/** The JSON lines of `--output-format stream-json` output. */
export function claudeStreamEvents(stdout: string): Array<{type: string, subtype?: string, [key: string]: any}> {
    return stdout.split("\n").filter((line) => line.trim().startsWith("{")).map((line) => JSON.parse(line));
}
