import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {describe, it} from "node:test";
import {CliUsageError, parseCliOptions} from "../../src/host/cliOptions.js";
import {defaultConfig} from "../../src/host/config.js";
import {defaultDataDir, readOrCreateSecret} from "../../src/host/dataFolder.js";

describe("data folder and store flags", () => {
    it("the CLI defaults to a durable store in the user's data directory; --store memory and --data-dir are read", () => {
        const promptCache = {promptCacheMaxBytes: 2 * 1024 ** 3, promptCacheMinTokens: 1024, promptCacheTtlSeconds: 86_400};
        assert.deepEqual(parseCliOptions([], {}).config.storage, {kind: "durable", dataDir: defaultDataDir(), ...promptCache});
        assert.deepEqual(parseCliOptions(["--store", "memory", "--data-dir", "/srv/lr"], {}).config.storage,
            {kind: "memory", dataDir: "/srv/lr", ...promptCache});
        assert.deepEqual(parseCliOptions([], {LOCAL_RESPONSES_STORE: "memory", LOCAL_RESPONSES_DATA_DIR: "/d"}).config.storage,
            {kind: "memory", dataDir: "/d", ...promptCache});
        assert.deepEqual(parseCliOptions(["--prompt-cache-max-bytes", "0", "--prompt-cache-min-tokens", "4096", "--prompt-cache-ttl-secs",
            "600"], {}).config.storage,
        {kind: "durable", dataDir: defaultDataDir(), promptCacheMaxBytes: 0, promptCacheMinTokens: 4096, promptCacheTtlSeconds: 600});
        assert.equal(parseCliOptions([], {}).config.sharedPromptCache, false, "each key's prompt cache is its own by default");
        assert.equal(parseCliOptions(["--shared-prompt-cache"], {}).config.sharedPromptCache, true);
        assert.throws(() => parseCliOptions(["--store", "disk"], {}),
            (error: Error) => error instanceof CliUsageError && /--store must be durable or memory/.test(error.message));
        assert.equal(defaultConfig().storage.kind, "memory", "embedders and tests name a folder to get one");
    });

    it("default data directory per platform (XDG on Linux)", () => {
        const home = os.homedir();
        assert.equal(defaultDataDir("linux", {XDG_DATA_HOME: "/xdg"}), "/xdg/local-responses");
        assert.equal(defaultDataDir("linux", {}), path.join(home, ".local/share/local-responses"));
        assert.equal(defaultDataDir("darwin", {}), path.join(home, "Library/Application Support/local-responses"));
        assert.equal(defaultDataDir("win32", {LOCALAPPDATA: "C:\\Users\\u\\AppData\\Local"}),
            path.join("C:\\Users\\u\\AppData\\Local", "local-responses"));
    });

    it("a sealing secret is made once in a 0600 file and read back; a file readable by others is refused", () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lr-secret-"));
        const file = path.join(dir, "nested", "reasoning-secret");
        const secret = readOrCreateSecret(file);
        assert.equal(fs.statSync(file).mode & 0o777, 0o600);
        assert.equal(readOrCreateSecret(file), secret);
        assert.ok(secret.length >= 40);
        fs.chmodSync(file, 0o644);
        assert.throws(() => readOrCreateSecret(file), /readable by other users/);
    });
});
