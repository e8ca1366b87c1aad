import assert from "node:assert/strict";
import {execFileSync} from "node:child_process";
import {createHash} from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {after, describe, it} from "node:test";
import {gpuBuildsFolder, installedPackageFolder} from "../../../../src/engine/models/gpuBuilds/installedGpuBuilds.js";
import {installedGpuBuildsIn, installGpuBuild, removeGpuBuild} from "../../../../src/engine/models/gpuBuilds/installGpuBuild.js";
import {LoopbackFileServer} from "../../../helpers/LoopbackFileServer.js";

/**
 * The installer behind `local-responses gpu install`, fed a tarball built here and served from 127.0.0.1 in place
 * of the registry's: accepted only with the integrity it is pinned to, all or nothing, and nothing left half-installed.
 */
const root = fs.mkdtempSync(path.join(os.tmpdir(), "lr-gpu-install-"));
after(() => fs.rmSync(root, {recursive: true, force: true}));

const vulkanPackage = "@node-llama-cpp/linux-x64-vulkan";
const linux = {platform: "linux", arch: "x64"};

/** A tarball shaped like npm's (everything under package/), with a package.json of the pinned version. */
function packTarball(name: string, payload: string): string {
    const source = path.join(root, `${name}-source`, "package");
    fs.mkdirSync(path.join(source, "bins"), {recursive: true});
    fs.writeFileSync(path.join(source, "package.json"), JSON.stringify({name: vulkanPackage, version: "3.21.1"}));
    fs.writeFileSync(path.join(source, "bins", "payload.txt"), payload);
    const tarball = path.join(root, `${name}.tgz`);
    execFileSync("tar", ["-czf", tarball, "-C", path.dirname(source), "package"]);
    return tarball;
}

function sri(file: string): string {
    return `sha512-${createHash("sha512").update(fs.readFileSync(file)).digest("base64")}`;
}

async function served<T>(file: string, use: (server: LoopbackFileServer) => Promise<T>, bytesPerSecond = 0): Promise<T> {
    const server = new LoopbackFileServer({file, bytesPerSecond});
    await server.start();
    try {
        return await use(server);
    } finally {
        await server.stop();
    }
}

/** What is in the GPU builds' folder, scratch folders included. */
function contents(folder: string): string[] {
    return fs.existsSync(folder) ? fs.readdirSync(folder, {recursive: true}).map(String).sort() : [];
}

describe("installGpuBuild", () => {
    const genuine = packTarball("genuine", "the real build");
    const pinned = sri(genuine);

    it("installs a tarball whose sha512 matches its pin, where node-llama-cpp's import finds it; remove takes it away", async () => {
        const folder = gpuBuildsFolder(path.join(root, "ok"));
        const installed = await served(genuine, (server) => installGpuBuild({
            folder, build: "vulkan", ...linux, tarballUrl: () => server.url, integrity: () => pinned
        }));
        assert.deepEqual(installed, [installedPackageFolder(folder, vulkanPackage)]);
        assert.equal(fs.readFileSync(path.join(installed[0]!, "bins", "payload.txt"), "utf8"), "the real build");
        assert.deepEqual(await installedGpuBuildsIn(folder, "linux", "x64"), ["vulkan"]);
        assert.deepEqual(contents(folder).filter((entry) => entry.startsWith(".")), []);
        assert.deepEqual(await removeGpuBuild(folder, "vulkan", "linux", "x64"), installed);
        assert.deepEqual(await installedGpuBuildsIn(folder, "linux", "x64"), []);
    });

    it("refuses a tampered tarball, saying so, and leaves nothing installed (a build there before stays as it was)", async () => {
        const folder = gpuBuildsFolder(path.join(root, "tampered"));
        await served(genuine, (server) => installGpuBuild({
            folder, build: "vulkan", ...linux, tarballUrl: () => server.url, integrity: () => pinned
        }));
        const before = contents(folder);
        // One changed byte of the payload: a tarball the registry never published.
        const tampered = packTarball("tampered", "the real bu1ld");
        await assert.rejects(served(tampered, (server) => installGpuBuild({
            folder, build: "vulkan", ...linux, tarballUrl: () => server.url, integrity: () => pinned
        })), /linux-x64-vulkan@3\.21\.1 from http:\/\/127\.0\.0\.1:\d+\/tampered\.tgz does not match its pinned integrity.*nothing was installed/);
        assert.deepEqual(contents(folder), before);
        assert.equal(fs.readFileSync(path.join(installedPackageFolder(folder, vulkanPackage), "bins", "payload.txt"), "utf8"),
            "the real build");

        const fresh = gpuBuildsFolder(path.join(root, "tampered-fresh"));
        await assert.rejects(served(tampered, (server) => installGpuBuild({
            folder: fresh, build: "vulkan", ...linux, tarballUrl: () => server.url, integrity: () => pinned
        })), /does not match its pinned integrity/);
        assert.deepEqual(contents(fresh), []);
        assert.deepEqual(await installedGpuBuildsIn(fresh, "linux", "x64"), []);
    });

    it("checks the real registry's tarball against the lockfile's pin by default (the fake one fails it)", async () => {
        const folder = gpuBuildsFolder(path.join(root, "default-pin"));
        await assert.rejects(served(genuine, (server) => installGpuBuild({
            folder, build: "vulkan", ...linux, tarballUrl: () => server.url
        })), /does not match its pinned integrity \(got sha512-.*expected sha512-flEeSzONQ6OIm5bY…\)/);
        assert.deepEqual(contents(folder), []);
    });

    it("offline: one line saying the registry cannot be reached, nothing installed", async () => {
        const folder = gpuBuildsFolder(path.join(root, "offline"));
        // A loopback port nothing listens on: the connection is refused, as offline.
        const server = new LoopbackFileServer({file: genuine});
        await server.start();
        const url = server.url;
        await server.stop();
        await assert.rejects(installGpuBuild({folder, build: "vulkan", ...linux, tarballUrl: () => url, integrity: () => pinned}),
            /^Error: cannot reach http:\/\/127\.0\.0\.1:\d+ to fetch @node-llama-cpp\/linux-x64-vulkan \(ECONNREFUSED\): are you offline\?$/);
        assert.deepEqual(contents(folder), []);
    });

    it("cancelled mid-download: rejects with the signal's reason and leaves no scratch behind", async () => {
        const folder = gpuBuildsFolder(path.join(root, "cancelled"));
        const big = path.join(root, "big.tgz");
        fs.writeFileSync(big, Buffer.alloc(4 * 1024 * 1024, 7));
        const cancel = new AbortController();
        let seen = 0;
        await assert.rejects(served(big, (server) => installGpuBuild({
            folder, build: "vulkan", ...linux, tarballUrl: () => server.url, integrity: () => pinned, signal: cancel.signal,
            onProgress: ({downloadedBytes}) => {
                seen = downloadedBytes;
                if (downloadedBytes > 64 * 1024)
                    cancel.abort(new Error("cancelled by the test"));
            }
        }), 512 * 1024), /cancelled by the test/);
        assert.ok(seen > 0 && seen < 4 * 1024 * 1024, `${seen} bytes before the cancel`);
        assert.deepEqual(contents(folder), []);
    });

    it("names the builds a platform has when asked for one it lacks", async () => {
        await assert.rejects(installGpuBuild({folder: path.join(root, "mac"), build: "cuda", platform: "darwin", arch: "arm64"}),
            /node-llama-cpp 3\.21\.1 has no cuda build for darwin-arm64 \(it runs on the CPU only there\)/);
        await assert.rejects(installGpuBuild({folder: path.join(root, "mac"), build: "cuda", platform: "linux", arch: "arm64"}),
            /no cuda build for linux-arm64/);
    });
});
