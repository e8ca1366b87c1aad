import {execFileSync} from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {repoRoot} from "../../helpers/paths.js";

const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as {name: string, version: string};

export function vsixPath(target: string): string {
    return path.join(repoRoot, `${pkg.name}-${target}-${pkg.version}.vsix`);
}

/**
 * Builds the VSIXs of `targets` with scripts/package-vsix.mjs, which rebuilds only those whose inputs changed
 * (`npm test` has built them all in `npm run e2e:prepare`, so this costs one esbuild run). Needs the e2e tools.
 */
export function buildVsixs(targets: readonly string[]): void {
    execFileSync(process.execPath, ["scripts/package-vsix.mjs", ...targets.flatMap((target) => ["--target", target])], {
        cwd: repoRoot,
        stdio: ["ignore", "inherit", "inherit"],
        timeout: 15 * 60_000
    });
}

/** Unzips a VSIX into a fresh temporary folder; the caller removes it. */
export function unpackVsix(file: string): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `lr-${path.basename(file, ".vsix")}-`));
    execFileSync("unzip", ["-q", file, "-d", dir]);
    return dir;
}

/** Every file under a folder, as paths relative to it. */
export function listFiles(dir: string): string[] {
    return fs.readdirSync(dir, {withFileTypes: true, recursive: true})
        .filter((entry) => entry.isFile())
        .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
        .sort();
}

/** The first bytes of a file. */
export function readStart(file: string, length: number): Buffer {
    const handle = fs.openSync(file, "r");
    try {
        const bytes = Buffer.alloc(length);
        return bytes.subarray(0, fs.readSync(handle, bytes, 0, length, 0));
    } finally {
        fs.closeSync(handle);
    }
}
