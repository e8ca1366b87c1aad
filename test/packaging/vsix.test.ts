// Every platform's VSIX, opened and judged by its bytes: its manifest names its target, it carries exactly the
// node-llama-cpp binary packages of that platform, every native file in it is of that platform's format and
// architecture (read from the ELF / Mach-O / PE headers, not from file names), and it stays under 40 MB.
import assert from "node:assert/strict";
import {execFileSync} from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import {after, before, describe, it, test} from "node:test";
import {repoRoot} from "../helpers/paths.js";
import {packagesForTarget, vscodeTargets} from "../../src/engine/models/prebuiltBinaries.js";
import {headerBytes, readNativeHeader, type NativeArch, type NativeFormat} from "./helpers/nativeHeader.js";
import {buildVsixs, listFiles, readStart, unpackVsix, vsixPath} from "./helpers/vsix.js";

/** What each target's native code must be. */
const expected: Record<string, {format: NativeFormat, arch: NativeArch, bins: string}> = {
    "darwin-arm64": {format: "mach-o", arch: "arm64", bins: "mac-arm64-metal"},
    "darwin-x64": {format: "mach-o", arch: "x64", bins: "mac-x64"},
    "linux-x64": {format: "elf", arch: "x64", bins: "linux-x64"},
    "linux-arm64": {format: "elf", arch: "arm64", bins: "linux-arm64"},
    "win32-x64": {format: "pe", arch: "x64", bins: "win-x64"},
    "win32-arm64": {format: "pe", arch: "arm64", bins: "win-arm64"}
};
const maxBytes = 40 * 1000 * 1000;
const nativeNames = /\.(node|so|dylib|dll|exe)$|\.so\.\d/;

describe("platform VSIXs", () => {
    const unpacked = new Map<string, string>();

    before(() => {
        assert.deepEqual(Object.keys(expected).sort(), [...vscodeTargets].sort(), "every target has its expectation");
        buildVsixs(vscodeTargets);
        for (const target of vscodeTargets)
            unpacked.set(target, unpackVsix(vsixPath(target)));
    });
    after(() => {
        for (const dir of unpacked.values())
            fs.rmSync(dir, {recursive: true, force: true});
    });

    for (const target of Object.keys(expected)) {
        it(`${target}: manifest target, its binary packages only, native files of its platform, under 40 MB`, () => {
            const dir = unpacked.get(target)!;
            const want = expected[target]!;

            const manifest = fs.readFileSync(path.join(dir, "extension.vsixmanifest"), "utf8");
            assert.equal(/<Identity\b[^>]*\bTargetPlatform="([^"]+)"/.exec(manifest)?.[1], target);
            const size = fs.statSync(vsixPath(target)).size;
            assert.ok(size < maxBytes, `${(size / 1e6).toFixed(1)} MB`);

            const extension = path.join(dir, "extension");
            const scopeDir = path.join(extension, "node_modules/@node-llama-cpp");
            const shipped = fs.readdirSync(scopeDir).map((name) => `@node-llama-cpp/${name}`).sort();
            assert.deepEqual(shipped, [...packagesForTarget(target)].sort());
            const pkg = JSON.parse(fs.readFileSync(path.join(extension, "package.json"), "utf8")) as {dependencies: Record<string, string>};
            assert.deepEqual(Object.keys(pkg.dependencies).filter((name) => name.startsWith("@node-llama-cpp/")).sort(), shipped);

            let natives = 0;
            const problems: string[] = [];
            for (const file of listFiles(extension)) {
                const header = readNativeHeader(readStart(path.join(extension, file), headerBytes));
                if (header == null) {
                    if (nativeNames.test(file))
                        problems.push(`${file}: named like a native file, but has no native header`);
                    continue;
                }
                natives++;
                if (header.format !== want.format || header.archs.length !== 1 || header.archs[0] !== want.arch)
                    problems.push(`${file}: ${header.format} ${header.archs.join("+")}`);
            }
            assert.deepEqual(problems, [], `native files not for ${target}`);
            const addon = path.join(scopeDir, want.bins, "bins", want.bins, "llama-addon.node");
            assert.ok(fs.existsSync(addon), `${path.relative(extension, addon)} is missing`);
            assert.deepEqual(readNativeHeader(readStart(addon, headerBytes))?.archs, [want.arch]);
            assert.ok(natives >= 5, `${natives} native files`);

            // The build metadata node-llama-cpp checks before loading agrees.
            const metadata = JSON.parse(fs.readFileSync(path.join(path.dirname(addon), "_nlcBuildMetadata.json"), "utf8")) as {
                buildOptions: {platform: string, arch: string}
            };
            assert.equal(`${metadata.buildOptions.platform}-${metadata.buildOptions.arch}`, want.bins.replace(/-metal$/, ""));

            // Nothing for building from source, nothing of node-llama-cpp's own bins folder but its notes.
            const nlc = path.join(extension, "node_modules/node-llama-cpp");
            assert.ok(!fs.existsSync(path.join(nlc, "llama/gitRelease.bundle")));
            assert.deepEqual(fs.readdirSync(path.join(nlc, "bins")).filter((name) => !name.endsWith(".moved.txt")), []);
        });
    }

    it("the default VSIXs carry one binary package and one LevelDB prebuild each, and only they differ", () => {
        const levelDbPrebuilds = "node_modules/classic-level/prebuilds/";
        const otherThanBinaries = (target: string) => listFiles(path.join(unpacked.get(target)!, "extension"))
            .filter((file) => !file.startsWith("node_modules/@node-llama-cpp/") && !file.startsWith(levelDbPrebuilds));
        const reference = otherThanBinaries("linux-x64");
        for (const target of vscodeTargets) {
            assert.deepEqual(otherThanBinaries(target), reference, target);
            // classic-level 3.0.0 has no Windows-on-ARM prebuild: there the durable store falls back to memory.
            const prebuilds = fs.existsSync(path.join(unpacked.get(target)!, "extension", levelDbPrebuilds))
                ? fs.readdirSync(path.join(unpacked.get(target)!, "extension", levelDbPrebuilds)) : [];
            assert.deepEqual(prebuilds, target === "win32-arm64" ? [] : [target], target);
        }
    });
});

test("no linux-armhf VSIX: node-llama-cpp 3.21.1's linux-armv7l package holds aarch64 binaries", () => {
    const dir = execFileSync(process.execPath, ["scripts/fetch-pinned.mjs", "@node-llama-cpp/linux-armv7l", "3.21.1"],
        {cwd: repoRoot, encoding: "utf8"}).trim();
    const bins = path.join(dir, "bins/linux-armv7l");
    const archs = new Set(listFiles(bins).flatMap((file) => readNativeHeader(readStart(path.join(bins, file), headerBytes))?.archs ?? []));
    assert.deepEqual([...archs], ["arm64"]);
    assert.ok(!vscodeTargets.includes("linux-armhf"));
});
