// postinstall: adds the native packages this machine needs and nothing else. Why not leave it to npm: .npmrc sets
// omit=optional, because on linux-x64 npm would otherwise install every optional binary of node-llama-cpp that
// declares the machine's os and cpu (the CUDA and Vulkan builds, hundreds of MB, and the arm ones), and npm has no way
// to omit only some optional packages. So the platform packages stay optional (no dependency carries a platform
// restriction, npm ci works on every platform) and this step adds, for the machine it runs on:
//   - node-llama-cpp's prebuilt binary package(s) (src/engine/models/prebuiltBinaries.ts's shipped builds; Metal on
//     Apple silicon); LOCAL_RESPONSES_GPU=cuda or vulkan (comma-separated) adds that build where one exists;
//   - when the dev dependencies are installed: the native package of esbuild, Codex and Claude Code that npm's own
//     platform rules (npm-install-checks) accept here, as npm would have picked among their optionalDependencies.
//     (esbuild's own postinstall, which runs first, finds its package missing and fetches a copy of the binary into
//     its folder; its run-time lookup still asks for the package, so it is added here too.)
// Each package is fetched by exact version (`npm pack`), checked against the integrity in package-lock.json (in the
// packed CLI, which has no lockfile: dist/platform-packages.json, written from it by `npm pack`'s prepack) and unpacked
// beside the package that needs it. A package already there at that version is left alone, so the step is cheap to
// repeat and does nothing where npm did install the optional binaries.
// Usage: node scripts/install-platform-packages.mjs [--pins-out FILE]   (--pins-out: write the packed CLI's pins)
import {execFileSync} from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import {createRequire} from "node:module";
import os from "node:os";
import path from "node:path";
import {fileURLToPath} from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const requireHere = createRequire(path.join(root, "package.json"));

/** node-llama-cpp 3.21.1's packages per `${platform}-${arch}`: the default build, then the opt-in GPU builds. */
export const llamaBinaries = {
    "darwin-arm64": {default: ["mac-arm64-metal"]},
    "darwin-x64": {default: ["mac-x64"]},
    "linux-x64": {default: ["linux-x64"], vulkan: ["linux-x64-vulkan"], cuda: ["linux-x64-cuda", "linux-x64-cuda-ext"]},
    "linux-arm64": {default: ["linux-arm64"]},
    "linux-riscv64": {default: ["linux-riscv64"]},
    "win32-x64": {default: ["win-x64"], vulkan: ["win-x64-vulkan"], cuda: ["win-x64-cuda", "win-x64-cuda-ext"]},
    "win32-arm64": {default: ["win-arm64"]}
};

/** Dev tools whose native build comes as one optional package per platform. */
export const devTools = ["esbuild", "@openai/codex", "@anthropic-ai/claude-code"];

/** The node-llama-cpp packages for a machine, with the GPU builds asked for; throws where there are none. */
export function llamaPackagesFor(platform, arch, gpu = []) {
    const entry = llamaBinaries[`${platform}-${arch}`];
    if (entry == null)
        throw new Error(`node-llama-cpp 3.21.1 publishes no prebuilt binary for ${platform}-${arch}`);
    const unknown = gpu.filter((backend) => entry[backend] == null || backend === "default");
    if (unknown.length > 0)
        throw new Error(`LOCAL_RESPONSES_GPU=${unknown.join(",")}: no such build for ${platform}-${arch} (its builds: ${
            ["default", ...Object.keys(entry).filter((key) => key !== "default")].join(", ")})`);
    return [...entry.default, ...gpu.flatMap((backend) => entry[backend])].map((name) => `@node-llama-cpp/${name}`);
}

/** name -> {name (the registry name, for aliases), version, integrity, os, cpu, libc} of every platform package. */
export function readPins() {
    const lockFile = path.join(root, "package-lock.json");
    if (fs.existsSync(lockFile)) {
        const pins = {};
        for (const [key, entry] of Object.entries(JSON.parse(fs.readFileSync(lockFile, "utf8")).packages))
            if (key.startsWith("node_modules/") && !key.slice("node_modules/".length).includes("/node_modules/"))
                pins[key.slice("node_modules/".length)] = entry;
        return pins;
    }
    return JSON.parse(fs.readFileSync(path.join(root, "dist/platform-packages.json"), "utf8"));
}

/**
 * The node_modules folder holding an installed package (where its platform packages must go, to be found from it), or
 * null. Looked up as Node would, without require.resolve: packages whose "exports" hide package.json cannot be resolved.
 */
function installedFolder(name) {
    return requireHere.resolve.paths(name)?.find((folder) => fs.existsSync(path.join(folder, name, "package.json"))) ?? null;
}

/**
 * The optional packages of a dev tool that npm's platform check accepts in `environment` ({os, cpu, libc}; default:
 * this machine), or null where the tool is not installed.
 */
export function devToolPackages(tool, pins, environment = {}) {
    const folder = installedFolder(tool);
    if (folder == null)
        return null;
    const {checkPlatform} = requireHere("npm-install-checks");
    const manifest = JSON.parse(fs.readFileSync(path.join(folder, tool, "package.json"), "utf8"));
    return Object.keys(manifest.optionalDependencies ?? {}).filter((name) => {
        try {
            checkPlatform({...pins[name], _id: name}, false, environment);
            return true;
        } catch {
            return false;
        }
    });
}

function integrityOf(file) {
    return `sha512-${crypto.createHash("sha512").update(fs.readFileSync(file)).digest("base64")}`;
}

/** Runs npm: the one running this install where there is one (npm_execpath), else npm from PATH. */
function npm(args) {
    const env = {...process.env, npm_config_global: undefined, npm_config_update_notifier: "false", npm_config_audit: "false"};
    const cli = process.env.npm_execpath;
    if (cli != null && cli.endsWith(".js"))
        return execFileSync(process.execPath, [cli, ...args], {encoding: "utf8", env, stdio: ["ignore", "pipe", "inherit"]});
    return execFileSync("npm", args, {encoding: "utf8", env, stdio: ["ignore", "pipe", "inherit"], shell: process.platform === "win32"});
}

/** Fetches each [name, folder] through the registry, checks it against its pin and unpacks it at folder/name. */
function fetchAll(wanted, pins) {
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "lr-platform-packages-"));
    try {
        const specs = wanted.map(([name]) => `${pins[name].name ?? name}@${pins[name].version}`);
        const packed = JSON.parse(npm(["pack", ...specs, "--json", "--pack-destination", scratch]));
        wanted.forEach(([name, folder], index) => {
            const tarball = path.join(scratch, packed[index].filename);
            const actual = integrityOf(tarball);
            if (actual !== pins[name].integrity)
                throw new Error(`${specs[index]}: the registry's tarball has integrity ${actual}, the pin is ${pins[name].integrity}`);
            const target = path.join(folder, name);
            fs.rmSync(target, {recursive: true, force: true});
            fs.mkdirSync(target, {recursive: true});
            execFileSync("tar", ["-xzf", tarball, "-C", target, "--strip-components=1"]);
        });
    } finally {
        fs.rmSync(scratch, {recursive: true, force: true});
    }
}

function main() {
    const pinsOut = process.argv.indexOf("--pins-out");
    const pins = readPins();
    if (pinsOut !== -1) {
        // The packed CLI's pins: node-llama-cpp's binary packages, the only platform packages it installs.
        const llama = Object.fromEntries(Object.entries(pins).filter(([name]) => name.startsWith("@node-llama-cpp/"))
            .map(([name, {version, integrity, os: osList, cpu, libc}]) => [name, {version, integrity, os: osList, cpu, libc}]));
        fs.mkdirSync(path.dirname(path.resolve(process.argv[pinsOut + 1])), {recursive: true});
        fs.writeFileSync(process.argv[pinsOut + 1], `${JSON.stringify(llama, null, 2)}\n`);
        return;
    }
    // npm's --os / --cpu / --libc (installing for another machine, e.g. `npm install --cpu=arm64`) reach scripts as
    // npm_config_* variables: the packages are then that machine's, as npm picks its optional packages for it.
    const machine = {
        os: process.env.npm_config_os || process.platform, cpu: process.env.npm_config_cpu || process.arch,
        ...(process.env.npm_config_libc ? {libc: process.env.npm_config_libc} : {})
    };
    const gpu = (process.env.LOCAL_RESPONSES_GPU ?? "").split(",").map((value) => value.trim()).filter(Boolean);
    const wanted = [];
    const llamaFolder = installedFolder("node-llama-cpp");
    if (llamaFolder != null)
        wanted.push(...llamaPackagesFor(machine.os, machine.cpu, gpu).map((name) => [name, llamaFolder]));
    for (const tool of devTools)
        wanted.push(...(devToolPackages(tool, pins, machine) ?? []).map((name) => [name, installedFolder(tool)]));
    const missing = wanted.filter(([name, folder]) => {
        if (pins[name] == null)
            throw new Error(`${name} is not pinned (package-lock.json or dist/platform-packages.json)`);
        const manifest = path.join(folder, name, "package.json");
        return !fs.existsSync(manifest) || JSON.parse(fs.readFileSync(manifest, "utf8")).version !== pins[name].version;
    });
    if (missing.length === 0)
        return;
    const started = Date.now();
    fetchAll(missing, pins);
    console.log(`local-responses: installed ${missing.map(([name]) => name).join(", ")} for ${machine.os}-${machine.cpu} `
        + `in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

if (process.argv[1] != null && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
    try {
        main();
    } catch (error) {
        console.error(`local-responses: could not install this machine's platform packages: ${error.message}`);
        process.exit(1);
    }
}
