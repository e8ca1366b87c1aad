import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {before, describe, it} from "node:test";
import type {LlamaContextSequence, Token} from "node-llama-cpp";
import {modelFingerprint, PromptStateCache, type PromptStateIdentity} from "../../../../../src/engine/llama/runtime/PromptStateCache.js";
import {models} from "../../../../helpers/paths.js";
import {useTinyModel} from "../../../../helpers/tinyModel.js";

const story = "Once upon a time, there was a little girl named Lily. She loved to play outside in the park with her dog. ";
const contextSettings = JSON.stringify({contextSize: 1024, flashAttention: false});
/** The partition (an API key's owner id) the states below are saved for. */
const owner = "key_owner_a";

describe("PromptStateCache (real stories260K sequences, saveStateToFile / loadStateFromFile)", () => {
    const tinyModel = useTinyModel();
    let identity: PromptStateIdentity;
    before(async () => {
        identity = {model: await modelFingerprint(models.chatml), context: contextSettings};
    });

    /** A new folder holding the saved state of a four-story prefix (minTokens 16). */
    async function savedStory(): Promise<{dir: string, prefix: Token[]}> {
        const dir = folder();
        const prefix = tinyModel().tokenize(story.repeat(4));
        await withSequence(prefix, async (sequence) => {
            const cache = await PromptStateCache.open({folder: dir, identity, minTokens: 16});
            assert.ok(await cache.save(prefix, owner, (file) => sequence.saveStateToFile(file)).done);
        });
        return {dir, prefix};
    }

    /** A fresh context's sequence with `tokens` evaluated, as after a prompt; `use` runs, then the context goes. */
    async function withSequence<T>(tokens: Token[], use: (sequence: LlamaContextSequence) => Promise<T>): Promise<T> {
        const context = await tinyModel().createContext({contextSize: 1024, threads: 1});
        try {
            const sequence = context.getSequence();
            if (tokens.length > 0)
                await sequence.evaluateWithoutGeneratingNewTokens(tokens);
            return await use(sequence);
        } finally {
            await context.dispose();
        }
    }

    function folder(): string {
        return fs.mkdtempSync(path.join(os.tmpdir(), "lr-prompt-state-"));
    }

    it("a saved prefix is found after a restart (a new cache on the folder) and restores exactly those tokens", async () => {
        const dir = folder();
        const prefix = tinyModel().tokenize(story.repeat(6));
        const prompt = [...prefix, ...tinyModel().tokenize(" And then the dog barked.")];
        const saved = await withSequence(prefix, async (sequence) => {
            const cache = await PromptStateCache.open({folder: dir, identity, minTokens: 64});
            assert.equal(await cache.save(prefix.slice(0, 10), owner, (file) => sequence.saveStateToFile(file)).done, false,
                "shorter than minTokens");
            return cache.save(prefix, owner, (file) => sequence.saveStateToFile(file)).done;
        });
        assert.equal(saved, true);

        const reopened = await PromptStateCache.open({folder: dir, identity, minTokens: 64});
        assert.equal(reopened.find(prompt.slice(0, prefix.length - 1), owner)?.tokenCount, prefix.length - 1,
            "a prompt that shares part of a state matches that part (what follows is erased after loading)");
        assert.equal(reopened.find(prompt.slice(0, 63), owner), null, "a shared part shorter than minTokens is no match");
        assert.equal(reopened.covers(prompt, owner), true);
        const hit = reopened.find(prompt, owner);
        assert.equal(hit?.tokenCount, prefix.length);
        await withSequence([], async (sequence) => {
            assert.equal(await reopened.restore(hit!, owner, (file) => sequence.loadStateFromFile(file, {acceptRisk: true})), true);
            assert.deepEqual(sequence.contextTokens, prefix);
            assert.equal(sequence.nextTokenIndex, prefix.length);
        });
    });

    it("a state written for one model is never loaded into another (the key and the manifest differ)", async () => {
        const {dir, prefix} = await savedStory();
        const other = {model: await modelFingerprint(models.qwen), context: contextSettings};
        assert.notEqual(other.model, identity.model);
        const forOther = await PromptStateCache.open({folder: dir, identity: other, minTokens: 16});
        assert.equal(forOther.find(prefix, owner), null);
        const forOtherContext = await PromptStateCache.open({
            folder: dir, identity: {...identity, context: "{\"contextSize\":2048}"}, minTokens: 16
        });
        assert.equal(forOtherContext.find(prefix, owner), null);
        // Even handed a hit by hand, the other model's cache refuses to load it.
        const hit = (await PromptStateCache.open({folder: dir, identity, minTokens: 16})).find(prefix, owner)!;
        let loaded = false;
        assert.equal(await forOther.restore(hit, owner, async () => void (loaded = true)), false);
        assert.equal(loaded, false);
    });

    it("a truncated state file is ignored; half-written leftovers are never used and are cleaned", async () => {
        const {dir, prefix} = await savedStory();
        const state = fs.readdirSync(dir).find((name) => name.endsWith(".state"))!;
        fs.writeFileSync(path.join(dir, "0123.state.tmp-1-abcd"), "half");
        fs.writeFileSync(path.join(dir, "feed.state"), "a state whose manifest was never written");

        // Same size, altered bytes: only the digest can tell.
        const cache = await PromptStateCache.open({folder: dir, identity, minTokens: 16});
        const bytes = fs.readFileSync(path.join(dir, state));
        bytes[bytes.length - 1] ^= 0xff;
        fs.writeFileSync(path.join(dir, state), bytes);
        let loaded = false;
        assert.equal(await cache.restore(cache.find(prefix, owner)!, owner, async () => void (loaded = true)), false);
        assert.equal(loaded, false);
        assert.equal(cache.find(prefix, owner), null, "dropped");

        // Truncated: the size no longer matches the manifest, so a new cache drops it when opening.
        await withSequence(prefix, async (sequence) => {
            assert.ok(await cache.save(prefix, owner, (file) => sequence.saveStateToFile(file)).done);
        });
        fs.truncateSync(path.join(dir, state), 100);
        const reopened = await PromptStateCache.open({folder: dir, identity, minTokens: 16});
        assert.equal(reopened.find(prefix, owner), null);
        assert.deepEqual(fs.readdirSync(dir), [], "leftovers and the unusable entry are gone");
    });

    it("holds its disk budget, least recently used out first", async () => {
        const dir = folder();
        const prefixes = [1, 2, 3].map((count) => tinyModel().tokenize(`${count} ${story.repeat(3)}`));
        let stateBytes = 0;
        const cache = await PromptStateCache.open({folder: dir, identity, minTokens: 16, maxBytes: Number.MAX_SAFE_INTEGER});
        for (const prefix of prefixes)
            await withSequence(prefix, async (sequence) => {
                await cache.save(prefix, owner,
                    async (file) => stateBytes = Math.max(stateBytes, (await sequence.saveStateToFile(file)).fileSize)).done;
            });
        await withSequence([], (sequence) => cache.restore(cache.find(prefixes[0]!, owner)!, owner,
            (file) => sequence.loadStateFromFile(file, {acceptRisk: true})));
        // Room for two: the least recently used (the second) goes.
        const tight = await PromptStateCache.open({folder: dir, identity, minTokens: 16, maxBytes: stateBytes * 2 + stateBytes / 2});
        assert.equal(tight.stats().entries, 2);
        assert.ok(tight.find(prefixes[0]!, owner) != null, "used most recently");
        assert.equal(tight.find(prefixes[1]!, owner), null);
        assert.ok(tight.find(prefixes[2]!, owner) != null);
    });

    it("a state is one partition's: another key never finds, loads or overwrites it", async () => {
        const {dir, prefix} = await savedStory();
        const cache = await PromptStateCache.open({folder: dir, identity, minTokens: 16});
        const hit = cache.find(prefix, owner)!;
        assert.equal(hit.tokenCount, prefix.length);
        assert.equal(cache.find(prefix, "key_owner_b"), null);
        assert.equal(cache.covers(prefix, "key_owner_b"), false);
        let loaded = false;
        assert.equal(await cache.restore(hit, "key_owner_b", async () => void (loaded = true)), false);
        assert.equal(loaded, false);
        // The same tokens saved for another key are a file of their own.
        await withSequence(prefix, async (sequence) => {
            assert.equal(await cache.save(prefix, "key_owner_b", (file) => sequence.saveStateToFile(file)).done, true);
        });
        assert.equal(cache.stats().entries, 2);
    });

    it("states unused for the TTL are deleted, at lookup and when the folder is opened", async () => {
        const {dir, prefix} = await savedStory();
        let now = Date.now();
        const cache = await PromptStateCache.open({folder: dir, identity, minTokens: 16, ttlSeconds: 60, now: () => now});
        assert.ok(cache.find(prefix, owner) != null);
        now += 61_000;
        assert.equal(cache.find(prefix, owner), null, "expired: never loaded");
        await PromptStateCache.open({folder: dir, identity, minTokens: 16, ttlSeconds: 60, now: () => now});
        assert.deepEqual(fs.readdirSync(dir), [], "expired states are removed from disk");
    });

    it("a state deleted under an open cache (the sweeper, another model's save) is a miss, not an error, and is saved again", async () => {
        const {dir, prefix} = await savedStory();
        const cache = await PromptStateCache.open({folder: dir, identity, minTokens: 16});
        const removeAll = () => fs.readdirSync(dir).forEach((name) => fs.rmSync(path.join(dir, name)));
        removeAll();
        await withSequence(prefix, async (sequence) => {
            assert.equal(await cache.save(prefix, owner, (file) => sequence.saveStateToFile(file)).done, true, "not taken as saved");
        });
        const hit = cache.find(prefix, owner)!;
        assert.ok(hit != null);
        removeAll();
        let loaded = false;
        assert.equal(await cache.restore(hit, owner, async () => void (loaded = true)), false);
        assert.equal(loaded, false);
        assert.equal(cache.find(prefix, owner), null);
        await withSequence(prefix, async (sequence) => {
            assert.equal(await cache.save(prefix, owner, (file) => sequence.saveStateToFile(file)).done, true);
        });
        for (const name of fs.readdirSync(dir))
            assert.equal((fs.statSync(path.join(dir, name)).mode & 0o777).toString(8), "600", name);
    });

    it("forget removes one partition's states (a key deleted its stored data), or all", async () => {
        const {dir, prefix} = await savedStory();
        const cache = await PromptStateCache.open({folder: dir, identity, minTokens: 16});
        await withSequence(prefix, async (sequence) => {
            await cache.save(prefix, "key_owner_b", (file) => sequence.saveStateToFile(file)).done;
        });
        assert.equal(await cache.forget(owner), 1);
        assert.equal(cache.find(prefix, owner), null);
        assert.ok(cache.find(prefix, "key_owner_b") != null);
        assert.equal(fs.readdirSync(dir).length, 2, "the other key's state and manifest stay");
        assert.equal(await cache.forget(), 1);
        assert.deepEqual(fs.readdirSync(dir), []);
    });

    it("forgetIn deletes a partition's states from the folder without an open cache (a model not loaded)", async () => {
        const {dir, prefix} = await savedStory();
        await withSequence(prefix, async (sequence) => {
            const cache = await PromptStateCache.open({folder: dir, identity, minTokens: 16});
            await cache.save(prefix, "key_owner_b", (file) => sequence.saveStateToFile(file)).done;
        });
        assert.equal(await PromptStateCache.forgetIn(dir, owner), 1);
        assert.equal(fs.readdirSync(dir).length, 2, "the other key's state and manifest stay");
        const reopened = await PromptStateCache.open({folder: dir, identity, minTokens: 16});
        assert.equal(reopened.find(prefix, owner), null);
        assert.ok(reopened.find(prefix, "key_owner_b") != null);
        assert.equal(await PromptStateCache.forgetIn(dir), 1);
        assert.deepEqual(fs.readdirSync(dir), []);
        assert.equal(await PromptStateCache.forgetIn(path.join(dir, "missing")), 0);
    });

    it("manifests of the first version, which named no partition, are dropped", async () => {
        const {dir, prefix} = await savedStory();
        const manifest = fs.readdirSync(dir).find((name) => name.endsWith(".json"))!;
        const old = JSON.parse(fs.readFileSync(path.join(dir, manifest), "utf8")) as Record<string, unknown>;
        delete old.partition;
        fs.writeFileSync(path.join(dir, manifest), JSON.stringify({...old, version: 1}));
        const cache = await PromptStateCache.open({folder: dir, identity, minTokens: 16});
        assert.equal(cache.find(prefix, owner), null);
        assert.deepEqual(fs.readdirSync(dir), []);
    });
});
