import assert from "node:assert/strict";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {after, before, describe, it} from "node:test";
import {readOrCreateApiKey} from "../../src/host/apiKeyFile.js";

describe("API key file", () => {
    let dir: string;
    before(async () => {
        dir = await fs.mkdtemp(path.join(os.tmpdir(), "lr-api-key-"));
    });
    after(() => fs.rm(dir, {recursive: true, force: true}));

    it("two servers starting at once on a new path both succeed, with the same key, one of them making it", async () => {
        const file = path.join(dir, "race", "api-key");
        const results = await Promise.all([readOrCreateApiKey(file), readOrCreateApiKey(file), readOrCreateApiKey(file)]);
        assert.equal(new Set(results.map((result) => result.key)).size, 1, "one key");
        assert.equal(results.filter((result) => result.created).length, 1, "made once");
        assert.equal((await fs.readFile(file, "utf8")).trim(), results[0]!.key);
        if (process.platform !== "win32")
            assert.equal((await fs.stat(file)).mode & 0o777, 0o600);
    });

    it("a file another process has created but not yet written is read once its key is there", async () => {
        const file = path.join(dir, "being-written");
        await fs.writeFile(file, "", {mode: 0o600});
        setTimeout(() => void fs.writeFile(file, "sk-theirs\n"), 100);
        const result = await readOrCreateApiKey(file);
        assert.deepEqual(result, {key: "sk-theirs", keys: ["sk-theirs"], created: false});
    });

    it("a file that stays empty is refused after the wait", async () => {
        const file = path.join(dir, "empty");
        await fs.writeFile(file, "# no key\n", {mode: 0o600});
        await assert.rejects(readOrCreateApiKey(file, {emptyWaitMs: 50}), /API key file .* is empty/);
    });

    it("checks the mode where it means something, not on Windows (which reports 0666 for any writable file)", async () => {
        const file = path.join(dir, "shared");
        await fs.writeFile(file, "sk-one\n");
        await fs.chmod(file, 0o666);
        if (process.platform !== "win32")
            await assert.rejects(readOrCreateApiKey(file, {platform: "linux"}), /readable by other users \(mode 666\); run: chmod 600/);
        assert.deepEqual(await readOrCreateApiKey(file, {platform: "win32"}), {key: "sk-one", keys: ["sk-one"], created: false});
    });

    it("creates a new file on Windows too", async () => {
        const file = path.join(dir, "win", "api-key");
        const made = await readOrCreateApiKey(file, {platform: "win32"});
        assert.equal(made.created, true);
        assert.match(made.key, /^sk-local-/);
        assert.deepEqual(await readOrCreateApiKey(file, {platform: "win32"}), {...made, created: false});
    });
});
