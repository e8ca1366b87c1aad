import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {after, describe, it} from "node:test";
import OpenAI from "openai";
import {defaultConfig, type LibrarySettings, type StorageSettings} from "../../../src/host/config.js";
import {LocalResponsesHost} from "../../../src/host/LocalResponsesHost.js";
import {models} from "../../helpers/paths.js";
import {promptStateFiles, stateFiles, waitForStates} from "../../helpers/promptStates.js";

/**
 * Security audit finding 5: the prompt cache on disk kept its limits only when a model's cache opened or saved, and
 * per model. Now one byte budget bounds the whole `prompt-states/` folder, the TTL is swept on a timer whatever is
 * loaded (an unloaded or removed model's states too), and the files are owner-only. Real engine, a `--models-dir`
 * library of symlinked stories260K copies, a small `--prompt-cache-min-tokens` so that states are saved.
 */
const root = fs.mkdtempSync(path.join(os.tmpdir(), "lr-state-limits-"));
after(() => fs.rmSync(root, {recursive: true, force: true}));

const story = "Once upon a time, there was a little girl named Lily. She loved to play outside in the park with her dog. ";

/**
 * A library folder of symlinks to the shared models, under the names given (copies of one file are distinct models);
 * one already made is kept as it is (a restart on it).
 */
function modelsFolder(name: string, ids: string[]): string {
    const folder = path.join(root, name);
    if (fs.existsSync(folder))
        return folder;
    fs.mkdirSync(folder);
    for (const id of ids)
        fs.symlinkSync(models.chatml, path.join(folder, `${id}.gguf`));
    return folder;
}

type Library = {host: LocalResponsesHost, client: OpenAI, dataDir: string, log: string[]};

async function startLibrary(name: string, ids: string[], storage: Partial<StorageSettings>,
    library: Partial<LibrarySettings> = {}, beforeStart?: (dataDir: string) => void): Promise<Library> {
    const base = defaultConfig();
    const dataDir = path.join(root, `${name}-data`);
    fs.mkdirSync(dataDir, {recursive: true, mode: 0o700});
    beforeStart?.(dataDir);
    const log: string[] = [];
    const host = new LocalResponsesHost({
        ...base, port: 0, threads: 1, contextSize: 2048, parallel: 1, apiKeys: ["sk-states"],
        storage: {kind: "durable", dataDir, promptCacheMinTokens: 64, ...storage},
        library: {...base.library, modelsDir: modelsFolder(name, ids), isolation: "shared", ...library}
    }, {log: (line) => log.push(line)});
    const url = await host.start();
    return {host, client: new OpenAI({baseURL: url, apiKey: "sk-states", maxRetries: 0}), dataDir, log};
}

/** A prompt of a few hundred tokens that no other call shares a prefix with (its first word differs). */
async function ask(library: Library, model: string, opening: string): Promise<void> {
    await library.client.responses.create({model, input: `${opening} ${story.repeat(3)}`, max_output_tokens: 2, temperature: 0});
}

function bytesOnDisk(dataDir: string): number {
    return promptStateFiles(dataDir).reduce((sum, name) => sum + fs.statSync(path.join(dataDir, "prompt-states", name)).size, 0);
}

/** The states whose manifest (written last) is there too. */
function committedStates(dataDir: string): string[] {
    return stateFiles(dataDir).filter((name) => fs.existsSync(path.join(dataDir, "prompt-states", name.replace(/\.state$/, ".json"))));
}

function mode(file: string): string {
    return (fs.statSync(file).mode & 0o777).toString(8);
}

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!condition() && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 50));
}

describe("prompt states keep their limits (real engine, a library of stories260K copies)", () => {
    it("one byte budget for the whole folder: two models, each in its own process, share --prompt-cache-max-bytes", async () => {
        // The size of one state first (no budget to speak of), so that the budget below holds two of them, not four.
        const probe = await startLibrary("probe", ["alpha"], {});
        try {
            await ask(probe, "alpha", "Zero");
            await waitForStates(probe.dataDir, 1);
        } finally {
            await probe.host.dispose();
        }
        const oneState = bytesOnDisk(probe.dataDir);
        assert.ok(oneState > 10_000, `a state takes ${oneState} bytes`);
        const maxBytes = Math.floor(oneState * 2.5);

        const library = await startLibrary("budget", ["alpha", "beta"], {promptCacheMaxBytes: maxBytes}, {isolation: "process"});
        try {
            for (const [model, opening] of [["alpha", "One"], ["alpha", "Two"], ["beta", "Three"], ["beta", "Four"]] as const) {
                const before = committedStates(library.dataDir);
                await ask(library, model, opening);
                // Each save is let finish before the next request, so that the order of use is the order of the calls.
                await until(() => committedStates(library.dataDir).some((name) => !before.includes(name)), 10_000);
            }
            // The budget is applied right after a save's manifest is written: give the last save's eviction its moment.
            await until(() => bytesOnDisk(library.dataDir) <= maxBytes, 5_000);
            const total = bytesOnDisk(library.dataDir);
            assert.ok(total <= maxBytes, `${total} bytes on disk across both models' folders against a budget of ${maxBytes}`);
            assert.equal(stateFiles(library.dataDir).length, 2, "room for two states in all");
            assert.ok(stateFiles(library.dataDir).every((name) => name.startsWith(path.join("models", "beta"))),
                "the least recently used (alpha's) went first");
        } finally {
            await library.host.dispose();
        }
    });

    it("state files and manifests are 0600, the folders 0700, even when the folders were there before as 0755", async () => {
        const library = await startLibrary("modes", ["alpha"], {}, {}, (dataDir) => {
            fs.mkdirSync(path.join(dataDir, "prompt-states", "models", "alpha"), {recursive: true, mode: 0o755});
            for (const folder of ["prompt-states", "prompt-states/models", "prompt-states/models/alpha"])
                fs.chmodSync(path.join(dataDir, folder), 0o755);
        });
        try {
            await ask(library, "alpha", "Modes");
            await waitForStates(library.dataDir, 1);
            const files = promptStateFiles(library.dataDir);
            assert.ok(files.some((name) => name.endsWith(".state")) && files.some((name) => name.endsWith(".json")), files.join(", "));
            for (const name of files)
                assert.equal(mode(path.join(library.dataDir, "prompt-states", name)), "600", name);
            for (const folder of ["prompt-states", "prompt-states/models", "prompt-states/models/alpha"])
                assert.equal(mode(path.join(library.dataDir, folder)), "700", folder);
        } finally {
            await library.host.dispose();
        }
    });

    it("the TTL is swept on a timer: an unloaded model's states and a removed model's folder go", async () => {
        const statesFolder = (dataDir: string, id: string) => path.join(dataDir, "prompt-states", "models", id);
        const saved = async (library: Library, model: string, opening: string) => {
            await ask(library, model, opening);
            // Checked at once: the state may expire before the next model has answered.
            const inFolder = () => committedStates(library.dataDir).some((name) => name.startsWith(path.join("models", model)));
            await until(inFolder, 5_000);
            assert.ok(inFolder(), `${model}'s prompt was saved`);
        };
        const first = await startLibrary("ttl", ["alpha", "beta"], {promptCacheTtlSeconds: 3});
        try {
            await saved(first, "beta", "Removed");
        } finally {
            await first.host.dispose();
        }
        // beta is removed while the server is stopped (Node 20 does not report a symlink's removal to the folder's watcher).
        fs.rmSync(path.join(root, "ttl", "beta.gguf"));
        const library = await startLibrary("ttl", ["alpha"], {promptCacheTtlSeconds: 3});
        try {
            await saved(library, "alpha", "Unloaded");
            assert.equal(await (library.host.engine as unknown as {unloadModel(id: string): Promise<boolean>}).unloadModel("alpha"), true);
            // Nothing opens or saves a cache from now on: only the sweeper's timer can remove anything.
            const betaFolder = statesFolder(library.dataDir, "beta");
            await until(() => promptStateFiles(library.dataDir).length === 0 && !fs.existsSync(betaFolder), 8_000);
            assert.deepEqual(promptStateFiles(library.dataDir), [], "no state outlives its TTL, loaded or not");
            assert.equal(fs.existsSync(betaFolder), false, "the removed model's folder went");
            assert.equal(fs.existsSync(statesFolder(library.dataDir, "alpha")), true, "a model still listed keeps its (empty) folder");
            assert.ok(library.log.some((line) => /prompt cache: deleted \d+ past the TTL/.test(line)), library.log.join("\n"));
        } finally {
            await library.host.dispose();
        }
    });
});
