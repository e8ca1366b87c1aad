// The CLI package, as a user gets it: `npm pack` of this repository installed into an empty prefix with no dev
// dependencies and no build step, its postinstall adding this machine's node-llama-cpp binary (and no CUDA or Vulkan
// build: optional packages omitted, as this project's CI keeps them). Then `local-responses --help`, `serve` with no
// model (the bundled demo model, from the package) and `serve --model FILE` each work, and a binary removed after the
// install fails with the one line that says how to put it back, which is checked by doing what it says.
import assert from "node:assert/strict";
import {execFileSync, spawn} from "node:child_process";
import {once} from "node:events";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {after, before, describe, it} from "node:test";
import {arm64Node, startArm64Server} from "../../helpers/arm64Cli.js";
import {models, repoRoot} from "../../helpers/paths.js";
import {packagesForTarget} from "../../../src/engine/models/prebuiltBinaries.js";

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "lr-cli-package-"));
const prefix = path.join(scratch, "prefix");
const installed = path.join(prefix, "node_modules/local-responses");
const bin = path.join(prefix, "node_modules/.bin/local-responses");
const home = path.join(scratch, "home");
/** This machine's VSIX target, whose binaries the install step adds. */
const target = `${process.platform}-${process.arch}`;

/**
 * This process's environment without what the npm running these tests put there (its omit=optional, its scripts'
 * variables), as in a fresh shell; `home` replaces HOME for the servers, whose key file and settings go there.
 */
function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name) && name !== "INIT_CWD"));
    return {...env, ...extra};
}

function serve(args: string[]) {
    const child = spawn(bin, ["serve", "--port", "0", "--threads", "1", "--api-key", "sk-package", ...args], {
        env: cleanEnv({
            HOME: home, XDG_CONFIG_HOME: path.join(home, ".config"), LOCAL_RESPONSES_DATA_DIR: fs.mkdtempSync(path.join(scratch, "data-"))
        }),
        stdio: ["ignore", "pipe", "pipe"]
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const exited = once(child, "exit").then(([code]) => code as number);
    const listening = (async () => {
        while (!stdout.includes("\n") && child.exitCode == null)
            await new Promise((resolve) => setTimeout(resolve, 50));
        return /^listening on (http:\/\/127\.0\.0\.1:\d+\/v1)\n/.exec(stdout)?.[1] ?? null;
    })();
    return {child, exited, listening, output: () => ({stdout, stderr})};
}

async function ask(url: string): Promise<{model: string, output_text: string, status: string}> {
    const response = await fetch(`${url}/responses`, {
        method: "POST", headers: {"authorization": "Bearer sk-package", "content-type": "application/json"},
        body: JSON.stringify({model: "any", input: "Once upon a time", max_output_tokens: 8})
    });
    assert.equal(response.status, 200);
    const body = await response.json() as {model: string, status: string, output: {content?: {text: string}[]}[]};
    const text = body.output.flatMap((item) => item.content ?? []).map((part) => part.text).join("");
    return {model: body.model, status: body.status, output_text: text};
}

let tarball: string | undefined;

/** `npm pack` of this checkout (its prepack builds the CLI bundle), once for the file. */
function packOnce(): string {
    if (tarball == null) {
        const started = performance.now();
        const packed = JSON.parse(execFileSync("npm", ["pack", "--json", "--pack-destination", scratch], {
            cwd: repoRoot, encoding: "utf8", env: cleanEnv(), stdio: ["ignore", "pipe", "inherit"], timeout: 5 * 60_000
        })) as {filename: string}[];
        tarball = path.join(scratch, packed[0]!.filename);
        console.log(`cli package: packed in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    }
    return tarball;
}

/**
 * Installs the package into an empty `dir` as a user would, less the optional packages: omitting them keeps npm from
 * downloading node-llama-cpp's CUDA and Vulkan builds, and the package's postinstall adds the machine's own build.
 * (A global install, `npm install -g`, cannot omit them: there npm installs them itself.)
 */
function installInto(dir: string, extraArgs: string[] = []): void {
    fs.mkdirSync(dir, {recursive: true});
    const started = performance.now();
    // node-llama-cpp's own postinstall looks for the host's binary and, not finding one, builds llama.cpp from source:
    // installed into a prefix, node-llama-cpp sits beside this package, out of reach of the package.json config that
    // skips it, so the flag it documents skips it (the package's own postinstall adds the binary).
    execFileSync("npm", ["install", "--prefix", dir, "--omit=dev", "--omit=optional", "--no-save", "--no-audit", "--no-fund",
        "--loglevel=error", "--node-llama-cpp-postinstall=skip", ...extraArgs, packOnce()], {
        cwd: dir, env: cleanEnv(), stdio: ["ignore", "inherit", "inherit"], timeout: 5 * 60_000
    });
    console.log(`cli package: installed ${extraArgs.join(" ")} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

after(() => fs.rmSync(scratch, {recursive: true, force: true}));

describe("the CLI package (npm pack, installed into an empty prefix)", {timeout: 10 * 60_000}, () => {
    before(() => {
        fs.mkdirSync(home, {recursive: true});
        installInto(prefix);
    });

    it("installs the bundle, the demo model and this machine's binary only: no dev dependencies, no sources, no GPU builds", () => {
        for (const file of ["dist/cli.js", "dist/tokenizerWorkerMain.js", "models/stories260K.gguf", "models/LICENSE-llama2c.txt"])
            assert.ok(fs.existsSync(path.join(installed, file)), file);
        assert.ok(!fs.existsSync(path.join(installed, "src")), "no sources");
        for (const devOnly of ["typescript", "esbuild", "tsx", "@openai/codex", "openai"])
            assert.ok(!fs.existsSync(path.join(prefix, "node_modules", devOnly)), `${devOnly} is a dev dependency`);
        const binaries = fs.readdirSync(path.join(prefix, "node_modules/@node-llama-cpp")).map((name) => `@node-llama-cpp/${name}`);
        assert.deepEqual(binaries.sort(), packagesForTarget(target).sort());
    });

    it("local-responses --help", () => {
        const help = execFileSync(bin, ["--help"], {encoding: "utf8", env: cleanEnv({HOME: home})});
        assert.match(help, /^Usage: local-responses serve \[--model FILE\] \[options\]/);
    });

    it("local-responses serve with no model serves the bundled demo model, says so, and answers", async () => {
        const server = serve([]);
        try {
            const url = await server.listening;
            assert.ok(url, server.output().stderr);
            assert.ok(server.output().stderr.includes(`serving the bundled demo model ${path.join(installed, "models/stories260K.gguf")}`),
                server.output().stderr);
            if (process.platform === "linux") {
                // The addon mapped is the installed package's, not this checkout's.
                const maps = fs.readFileSync(`/proc/${server.child.pid}/maps`, "utf8");
                assert.ok(maps.includes(path.join(prefix, "node_modules/@node-llama-cpp")), "the installed binary is loaded");
                assert.ok(!maps.includes(path.join(repoRoot, "node_modules")), "nothing is loaded from the checkout");
            }
            const answer = await ask(url);
            assert.equal(answer.model, "stories260K");
            assert.ok(answer.output_text.length > 0, JSON.stringify(answer));
        } finally {
            server.child.kill("SIGTERM");
        }
        assert.equal(await server.exited, 0);
    });

    it("local-responses serve --model FILE", async () => {
        const server = serve(["--model", models.qwen]);
        try {
            const url = await server.listening;
            assert.ok(url, server.output().stderr);
            assert.equal((await ask(url)).model, "stories260K-qwen");
        } finally {
            server.child.kill("SIGTERM");
        }
        assert.equal(await server.exited, 0);
    });

    it("a missing platform binary: one line saying how to add it, and doing that works", async () => {
        const [binary] = packagesForTarget(target);
        const moved = path.join(scratch, "moved-binary");
        fs.renameSync(path.join(prefix, "node_modules", binary!), moved);
        const server = serve([]);
        assert.equal(await server.exited, 1);
        const errors = server.output().stderr.split("\n").filter((line) => line.startsWith("error: "));
        assert.equal(errors.length, 1, server.output().stderr);
        // gpu auto, the default, with no GPU build installed asks for the CPU's build, which is gone.
        assert.match(errors[0]!, new RegExp(`^error: Could not load model '[^']+': No usable node-llama-cpp binary for gpu auto on `
            + `${target} \\(looked for [^)]*${binary}\\)\\. `
            + "It is added at install time: run `node scripts/install-platform-packages\\.mjs` in the local-responses folder"));

        execFileSync(process.execPath, ["scripts/install-platform-packages.mjs"], {
            cwd: installed, env: cleanEnv(), stdio: "inherit", timeout: 5 * 60_000
        });
        const again = serve([]);
        try {
            assert.ok(await again.listening, again.output().stderr);
        } finally {
            again.child.kill("SIGTERM");
        }
        assert.equal(await again.exited, 0);
    });
});

describe("the CLI package installed for linux-arm64 (npm's --cpu) and run by an arm64 Node under qemu", {
    timeout: 20 * 60_000, skip: target === "linux-x64" ? false : "the qemu set-up (scripts/arm64-setup.sh) is for linux-x64 hosts"
}, () => {
    const arm64Prefix = path.join(scratch, "prefix-arm64");
    let nodeArm64 = "";
    before(() => {
        fs.mkdirSync(home, {recursive: true});
        nodeArm64 = arm64Node();
        // npm picks packages for the machine it is told: the install step reads the same --os / --cpu / --libc.
        installInto(arm64Prefix, ["--os=linux", "--cpu=arm64", "--libc=glibc"]);
    });

    it("adds the linux-arm64 binary only, and `serve` with no model answers from it", async () => {
        const binaries = fs.readdirSync(path.join(arm64Prefix, "node_modules/@node-llama-cpp"));
        assert.deepEqual(binaries, ["linux-arm64"]);
        const cli = path.join(arm64Prefix, "node_modules/local-responses/dist/cli.js");
        const started = performance.now();
        const server = await startArm64Server(nodeArm64, cli, ["--api-key", "sk-package"],
            cleanEnv({HOME: home, XDG_CONFIG_HOME: path.join(home, ".config"),
                LOCAL_RESPONSES_DATA_DIR: fs.mkdtempSync(path.join(scratch, "data-"))}));
        const {url} = server;
        try {
            assert.match(server.stderr(), /serving the bundled demo model \S+prefix-arm64\/node_modules\/local-responses\/models\/stories260K\.gguf/);
            const maps = fs.readFileSync(`/proc/${server.pid}/maps`, "utf8");
            assert.ok(maps.includes(path.join(arm64Prefix, "node_modules/@node-llama-cpp/linux-arm64/bins/linux-arm64/llama-addon.node")),
                "the installed arm64 addon is mapped");
            const answer = await ask(url);
            assert.equal(answer.model, "stories260K");
            assert.ok(answer.output_text.length > 0, JSON.stringify(answer));
            const seconds = ((performance.now() - started) / 1000).toFixed(1);
            console.log(`cli package on linux-arm64 under qemu: answered ${seconds} s after start: ${JSON.stringify(answer.output_text)}`);
        } finally {
            assert.equal(await server.stop(), 0, server.stderr());
        }
    });
});
