// Fetches an npm package by exact name and version through the npm registry (`npm pack`), checks the tarball
// against a sha512 integrity pinned in this repository, and unpacks it into a cache folder outside node_modules.
// Pins come from package-lock.json (every @node-llama-cpp/* binary package is there as an optional dependency of
// node-llama-cpp) or, for packages the lockfile does not list, from scripts/pinned-packages.json.
import {execFileSync} from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

export const repo = path.resolve(import.meta.dirname, "../..");
export const binaryCache = path.join(repo, ".tools/binaries");

/** The integrity pinned for name@version, or an error saying where it should have been. */
export function pinnedIntegrity(name, version) {
    const lock = JSON.parse(fs.readFileSync(path.join(repo, "package-lock.json"), "utf8"));
    const locked = lock.packages?.[`node_modules/${name}`];
    if (locked?.version === version && typeof locked.integrity === "string")
        return locked.integrity;
    const pins = JSON.parse(fs.readFileSync(path.join(repo, "scripts/pinned-packages.json"), "utf8"));
    const pinned = pins[`${name}@${version}`];
    if (typeof pinned === "string")
        return pinned;
    throw new Error(`${name}@${version} has no pinned integrity (neither in package-lock.json nor in scripts/pinned-packages.json)`);
}

/** sha512 integrity ("sha512-<base64>") of a file. */
export function integrityOf(file) {
    return `sha512-${crypto.createHash("sha512").update(fs.readFileSync(file)).digest("base64")}`;
}

/**
 * The unpacked folder of name@version (its package.json at the top), fetched once into `cacheRoot` and checked
 * against its pinned integrity; a later call finds it there (the integrity it was checked against is recorded).
 */
export function fetchPinnedPackage(name, version, {cacheRoot = binaryCache, log = console.log} = {}) {
    const integrity = pinnedIntegrity(name, version);
    const home = path.join(cacheRoot, `${name.replace("/", "+")}@${version}`);
    const unpacked = path.join(home, "package");
    const marker = path.join(home, "integrity");
    if (fs.existsSync(path.join(unpacked, "package.json")) && fs.existsSync(marker) && fs.readFileSync(marker, "utf8") === integrity)
        return unpacked;

    fs.rmSync(home, {recursive: true, force: true});
    fs.mkdirSync(home, {recursive: true});
    const started = performance.now();
    // `npm pack` of a registry spec downloads the tarball (through npm's cache) without installing anything.
    const [packed] = JSON.parse(execFileSync("npm", ["pack", `${name}@${version}`, "--json", "--pack-destination", home], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "inherit"],
        env: {...process.env, npm_config_update_notifier: "false", npm_config_fund: "false", npm_config_audit: "false"}
    }));
    const tarball = path.join(home, packed.filename);
    const actual = integrityOf(tarball);
    if (actual !== integrity) {
        fs.rmSync(home, {recursive: true, force: true});
        throw new Error(`${name}@${version}: the registry's tarball has integrity ${actual}, the pinned one is ${integrity}`);
    }
    execFileSync("tar", ["-xzf", tarball, "-C", home]);
    fs.rmSync(tarball);
    fs.writeFileSync(marker, integrity);
    log(
        `fetched ${name}@${version} (${(sizeOf(unpacked) / 1e6).toFixed(1)} MB unpacked, integrity checked) `
            + `in ${((performance.now() - started) / 1000).toFixed(1)} s`
    );
    return unpacked;
}

/** Bytes of the files under a folder. */
export function sizeOf(dir) {
    return fs.readdirSync(dir, {withFileTypes: true, recursive: true})
        .filter((entry) => entry.isFile())
        .reduce((total, entry) => total + fs.statSync(path.join(entry.parentPath, entry.name)).size, 0);
}
