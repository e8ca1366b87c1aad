import assert from "node:assert/strict";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {describe, it} from "node:test";
import {readOrCreateApiKey} from "../../src/host/apiKeyFile.js";
import {CliUsageError, parseCliOptions} from "../../src/host/cliOptions.js";
import {defaultConfig} from "../../src/host/config.js";

describe("settings of background mode, conversations, compaction and quotas", () => {
    it("defaults to the reference values", () => {
        const config = defaultConfig();
        assert.deepEqual(
            [config.background.maxJobs, config.background.maxJobsPerKey, config.background.deadlineSeconds,
                config.background.retentionSeconds,
                config.background.inputMaxBytes, config.background.eventMaxCount, config.background.eventMaxBytes],
            [64, 4, 300, 900, 2 * 1024 * 1024, 4096, 2 * 1024 * 1024]
        );
        assert.deepEqual([config.conversations.maxEntries, config.conversations.maxBytes, config.conversations.ttlSeconds],
            [256, 64 * 1024 * 1024, 3600]);
        assert.deepEqual([config.store.ownerMaxEntries, config.store.ownerMaxBytes], [0, 0]);
        assert.equal(config.compaction.summaryMaxTokens, 1024);
    });

    it("reads every limit from flags, or from the environment, and refuses bad values", () => {
        const {config} = parseCliOptions([
            "--responses-background-max-jobs", "8", "--responses-background-workers", "3",
            "--responses-background-stream-write-timeout-secs", "7", "--conversation-store-max-entries", "0",
            "--responses-store-owner-max-entries", "10", "--compaction-keep-tokens", "256", "--compaction-secret", "s3cret"
        ], {LOCAL_RESPONSES_BACKGROUND_EVENT_MAX_COUNT: "100", LOCAL_RESPONSES_CONVERSATION_STORE_TTL_SECS: "60"});
        assert.equal(config.background.maxJobs, 8);
        assert.equal(config.background.workers, 3);
        assert.equal(config.background.streamWriteTimeoutSeconds, 7);
        assert.equal(config.background.eventMaxCount, 100);
        assert.equal(config.background.maxJobsPerKey, 4, "untouched limits keep their default");
        assert.equal(config.conversations.maxEntries, 0);
        assert.equal(config.conversations.ttlSeconds, 60);
        assert.equal(config.store.ownerMaxEntries, 10);
        assert.equal(config.compaction.keepTokens, 256);
        assert.equal(config.compaction.secret, "s3cret");
        assert.throws(() => parseCliOptions(["--responses-background-workers", "0"]), CliUsageError);
        assert.throws(() => parseCliOptions(["--responses-background-deadline-secs", "soon"]), CliUsageError);
    });

    it("an API key file may hold several keys, one per line", async () => {
        const dir = await fs.mkdtemp(path.join(os.tmpdir(), "lr-keys-"));
        try {
            const file = path.join(dir, "keys");
            await fs.writeFile(file, "# team keys\nsk-one\n\n  sk-two  \n", {mode: 0o600});
            const result = await readOrCreateApiKey(file);
            assert.deepEqual(result.keys, ["sk-one", "sk-two"]);
            assert.equal(result.key, "sk-one");
        } finally {
            await fs.rm(dir, {recursive: true, force: true});
        }
    });
});
