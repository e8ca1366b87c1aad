// `npm ci` on each of the six VSIX targets, judged by npm's own platform rules (npm-install-checks, the function
// @npmcli/arborist calls for every package that is not optional) over package.json and package-lock.json: no package
// that npm would refuse there may be a non-optional dependency. And what the install step
// (scripts/install-platform-packages.mjs) adds in place of the omitted optional packages: for every target, the
// binaries the VSIX of that target carries (src/engine/models/prebuiltBinaries.ts), pinned in the lockfile, accepted
// there by npm; exactly one native package of each dev tool; and on this machine, nothing more than that.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import {pathToFileURL} from "node:url";
import {before, describe, it} from "node:test";
import {checkPlatform} from "npm-install-checks";
import {repoRoot} from "../helpers/paths.js";
import {packagesForTarget, vscodeTargets} from "../../src/engine/models/prebuiltBinaries.js";

type LockEntry = {
    name?: string, version?: string, integrity?: string, optional?: boolean, os?: string[], cpu?: string[], libc?: string[]
};
type Lock = {packages: Record<string, LockEntry>};
type Manifest = {dependencies?: Record<string, string>, devDependencies?: Record<string, string>};
type Environment = {os: string, cpu: string, libc?: string};
type InstallStep = {
    llamaPackagesFor(platform: string, arch: string, gpu?: string[]): string[],
    devTools: string[],
    devToolPackages(tool: string, pins: Record<string, LockEntry>, environment?: Environment): string[] | null,
    readPins(): Record<string, LockEntry>
};

let step: InstallStep;
const lock = JSON.parse(fs.readFileSync(path.join(repoRoot, "package-lock.json"), "utf8")) as Lock;
const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as Manifest;

/** A VS Code target as npm sees the machine: os, cpu and, on Linux, the C library (glibc: the VSIXs are glibc builds). */
function environmentOf(target: string): Environment {
    const [os, cpu] = target.split("-") as [string, string];
    return os === "linux" ? {os, cpu, libc: "glibc"} : {os, cpu};
}

function accepts(entry: LockEntry, id: string, environment: Environment): boolean {
    try {
        checkPlatform({...entry, _id: id}, false, environment);
        return true;
    } catch (error) {
        if ((error as {code?: string}).code !== "EBADPLATFORM")
            throw error;
        return false;
    }
}

/**
 * What npm ci would refuse in `environment`: every lockfile package that is not optional and whose os / cpu / libc
 * npm's check rejects, and every package.json dependency (not optionalDependencies) whose locked package it rejects.
 */
function refusals(lockfile: Lock, pkg: Manifest, environment: Environment): string[] {
    const refused = new Set<string>();
    for (const [key, entry] of Object.entries(lockfile.packages))
        if (key !== "" && entry.optional !== true && !accepts(entry, key, environment))
            refused.add(key);
    for (const name of [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.devDependencies ?? {})]) {
        const entry = lockfile.packages[`node_modules/${name}`];
        assert.ok(entry != null, `${name} is in package.json but not in the lockfile`);
        if (!accepts(entry, `node_modules/${name}`, environment))
            refused.add(`node_modules/${name}`);
    }
    return [...refused].sort();
}

describe("npm ci on every VSIX target (npm-install-checks over package.json and package-lock.json)", () => {
    before(async () => {
        // The tests are CommonJS (no top-level await); the step is a plain ES module, loaded as Node runs it.
        step = await import(pathToFileURL(path.join(repoRoot, "scripts/install-platform-packages.mjs")).href) as InstallStep;
    });

    it("the check refuses what npm refuses: a Linux x64 binary as a plain dependency on the other targets", () => {
        // The set-up this project had before: the Linux binaries as ordinary dependencies, refused on macOS (EBADPLATFORM).
        const linuxOnly = {os: ["linux"], cpu: ["x64"], libc: ["glibc"]};
        const old: Lock = {packages: {
            "": {}, "node_modules/@node-llama-cpp/linux-x64": linuxOnly, "node_modules/@esbuild/linux-x64": {...linuxOnly, optional: true}
        }};
        const pkg: Manifest = {dependencies: {"@node-llama-cpp/linux-x64": "3.21.1"}, devDependencies: {"@esbuild/linux-x64": "0.28.2"}};
        assert.deepEqual(refusals(old, pkg, environmentOf("linux-x64")), []);
        assert.deepEqual(refusals(old, pkg, environmentOf("darwin-arm64")),
            ["node_modules/@esbuild/linux-x64", "node_modules/@node-llama-cpp/linux-x64"]);
        assert.deepEqual(refusals(old, pkg, {os: "linux", cpu: "x64", libc: "musl"}).length, 2);
        // Optional everywhere: nothing refused, as npm only skips such a package.
        assert.deepEqual(refusals(old, {}, environmentOf("win32-arm64")), ["node_modules/@node-llama-cpp/linux-x64"]);
    });

    it("lists the six VSIX targets", () => {
        assert.deepEqual([...vscodeTargets].sort(), ["darwin-arm64", "darwin-x64", "linux-arm64", "linux-x64", "win32-arm64", "win32-x64"]);
    });

    for (const target of vscodeTargets) {
        it(`${target}: npm refuses no package, the install step adds this target's binaries and one of each dev tool's`, () => {
            const environment = environmentOf(target);
            assert.deepEqual(refusals(lock, manifest, environment), []);

            const [platform, arch] = target.split("-") as [string, string];
            const binaries = step.llamaPackagesFor(platform, arch);
            assert.deepEqual(binaries, packagesForTarget(target), "the install step adds what the VSIX of this target carries");
            const pins = step.readPins();
            for (const name of binaries) {
                assert.ok(pins[name]?.integrity?.startsWith("sha512-"), `${name} is pinned in the lockfile`);
                assert.equal(pins[name]?.optional, true, `${name} stays optional`);
                assert.ok(accepts(pins[name], name, environment), `npm accepts ${name} on ${target}`);
            }
            for (const tool of step.devTools) {
                const added = step.devToolPackages(tool, pins, environment);
                assert.equal(added?.length, 1, `${tool} on ${target}: ${JSON.stringify(added)}`);
                assert.ok(pins[added[0]!]?.integrity?.startsWith("sha512-"), `${added[0]} is pinned in the lockfile`);
            }
        });
    }

    it("no dependency or devDependency carries a platform restriction; the platform packages are only optional", () => {
        const restricted = [...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.devDependencies ?? {})]
            .filter((name) => {
                const entry = lock.packages[`node_modules/${name}`]!;
                return entry.os != null || entry.cpu != null || entry.libc != null;
            });
        assert.deepEqual(restricted, []);
    });

    it("on this machine the install step left node-llama-cpp's default build only: no CUDA or Vulkan download", () => {
        const installed = fs.readdirSync(path.join(repoRoot, "node_modules/@node-llama-cpp"))
            .map((name) => `@node-llama-cpp/${name}`).sort();
        assert.deepEqual(installed, step.llamaPackagesFor(process.platform, process.arch));
    });

    it("refuses a GPU build a platform does not have, with what it has", () => {
        assert.deepEqual(step.llamaPackagesFor("linux", "x64", ["cuda"]),
            ["@node-llama-cpp/linux-x64", "@node-llama-cpp/linux-x64-cuda", "@node-llama-cpp/linux-x64-cuda-ext"]);
        assert.throws(() => step.llamaPackagesFor("darwin", "arm64", ["cuda"]), /no such build for darwin-arm64 \(its builds: default\)/);
        assert.throws(() => step.llamaPackagesFor("sunos", "x64"), /no prebuilt binary for sunos-x64/);
    });
});
