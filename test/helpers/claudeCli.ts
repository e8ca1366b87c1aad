import {spawn} from "node:child_process";
import fs from "node:fs";
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

export type ClaudeSessionOptions = {
    /** The folder it works in; also its HOME, where its onboarding is marked done and the folder trusted. */
    cwd: string,
    baseUrl: string,
    apiKey: string,
    /** Added to the session's environment: the model names, and the traffic settings. */
    env: Record<string, string>
};

/** An interactive `claude` running under a pseudo-terminal. */
export type ClaudeSession = {
    /** What it drew so far (escape sequences and all). */
    screen(): string,
    /** Types `/exit` and Enter, and resolves once it has exited (killed after `timeoutMs` if it has not). */
    exit(timeoutMs?: number): Promise<number | null>
};

/**
 * Claude Code's interactive session (no `-p`) under a pseudo-terminal: util-linux `script` gives it one, 120 columns
 * wide, and passes what the test types on. `--` ends the options before the prompt (`--tools` takes several values), so
 * put the prompt last in `args` after `--`: it is submitted as the session's first message. Its onboarding and the
 * folder's trust dialog are marked done in `$HOME/.claude.json`, so nothing waits for a key.
 */
export function startClaudeSession(args: string[], options: ClaudeSessionOptions): ClaudeSession {
    fs.writeFileSync(path.join(options.cwd, ".claude.json"), JSON.stringify({
        hasCompletedOnboarding: true, projects: {[options.cwd]: {hasTrustDialogAccepted: true}}
    }));
    const quoted = [claudeBin, ...args].map((arg) => `'${arg.replaceAll("'", "'\\''")}'`).join(" ");
    const child = spawn("script", ["-qfec", `stty cols 120 rows 40; exec ${quoted}`, "/dev/null"], {
        cwd: options.cwd,
        env: {
            PATH: process.env.PATH,
            HOME: options.cwd,
            TERM: "xterm-256color",
            ANTHROPIC_BASE_URL: options.baseUrl,
            ANTHROPIC_AUTH_TOKEN: options.apiKey,
            DISABLE_AUTOUPDATER: "1",
            ...options.env
        },
        stdio: ["pipe", "pipe", "pipe"]
    });
    let screen = "";
    child.stdout.on("data", (chunk) => (screen += chunk));
    child.stderr.on("data", (chunk) => (screen += chunk));
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    return {
        screen: () => screen,
        async exit(timeoutMs = 20_000) {
            child.stdin.write("/exit");
            await new Promise((resolve) => setTimeout(resolve, 500));
            child.stdin.write("\r");
            const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
            const code = await exited;
            clearTimeout(timer);
            return code;
        }
    };
}

/** The JSON lines of `--output-format stream-json` output. */
export function claudeStreamEvents(stdout: string): Array<{type: string, subtype?: string, [key: string]: any}> {
    return stdout.split("\n").filter((line) => line.trim().startsWith("{")).map((line) => JSON.parse(line));
}
