import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {after, test} from "node:test";
import {keepOverridingKeys, writeClaudeSettings, type ConfirmKeyRemoval} from "../../../src/vscode/claude/writeClaudeSettings.js";
import {configBackupFile} from "../../../src/vscode/clientConfig/configFile.js";

const provider = {endpoint: "http://127.0.0.1:8080/v1", model: "stories260K"};
const root = fs.mkdtempSync(path.join(os.tmpdir(), "lr-claude-write-"));
after(() => fs.rmSync(root, {recursive: true, force: true}));

function settingsFile(name: string, text?: string): string {
    const dir = path.join(root, name);
    fs.mkdirSync(dir);
    const file = path.join(dir, "settings.json");
    if (text != null)
        fs.writeFileSync(file, text);
    return file;
}

/** A confirmation port that records what it was asked and answers `answer`. */
function asking(answer: boolean): {confirm: ConfirmKeyRemoval, asked: string[][]} {
    const asked: string[][] = [];
    return {asked, confirm: (keys) => {
        asked.push(keys);
        return Promise.resolve(answer);
    }};
}

const withKey = `${JSON.stringify({env: {ANTHROPIC_API_KEY: "sk-ant-mine", KEEP_ME: "1"}}, null, 2)}\n`;
const envOf = (file: string) => (JSON.parse(fs.readFileSync(file, "utf8")) as {env: Record<string, string>}).env;

test("a key the person set is asked about, and stays when they say no", async () => {
    const file = settingsFile("declined", withKey);
    const {confirm, asked} = asking(false);
    const write = await writeClaudeSettings(file, provider, confirm);
    assert.deepEqual(asked, [["ANTHROPIC_API_KEY"]]);
    assert.deepEqual(write, {outcome: "written", backup: configBackupFile(file), removed: [], kept: ["ANTHROPIC_API_KEY"]});
    assert.equal(envOf(file).ANTHROPIC_API_KEY, "sk-ant-mine");
    assert.equal(envOf(file).ANTHROPIC_BASE_URL, "http://127.0.0.1:8080");
    assert.equal(fs.readFileSync(configBackupFile(file), "utf8"), withKey);
});

test("where nobody can be asked, the key stays", async () => {
    const file = settingsFile("non-interactive", withKey);
    const write = await writeClaudeSettings(file, provider, keepOverridingKeys);
    assert.equal(write.outcome, "written");
    assert.equal(envOf(file).ANTHROPIC_API_KEY, "sk-ant-mine");
});

test("the key is removed when the person agrees, and the backup still holds it", async () => {
    const file = settingsFile("agreed", withKey);
    const write = await writeClaudeSettings(file, provider, asking(true).confirm);
    assert.deepEqual(write, {outcome: "written", backup: configBackupFile(file), removed: ["ANTHROPIC_API_KEY"], kept: []});
    assert.ok(!("ANTHROPIC_API_KEY" in envOf(file)));
    assert.equal(envOf(file).KEEP_ME, "1");
    assert.equal(fs.readFileSync(configBackupFile(file), "utf8"), withKey);
});

test("a settings.json that is a link, or not JSON, is refused before anyone is asked, and left as it is", async () => {
    const target = settingsFile("elsewhere", withKey);
    const linked = settingsFile("linked");
    fs.symlinkSync(target, linked);
    const broken = settingsFile("broken", "{\"env\": {\"ANTHROPIC_API_KEY\": \"sk-ant-mine\",}}");
    for (const file of [linked, broken]) {
        const {confirm, asked} = asking(true);
        const write = await writeClaudeSettings(file, provider, confirm);
        assert.equal(write.outcome, "refused", file);
        assert.match(write.outcome === "refused" ? write.reason : "", /symbolic link|not valid JSON/);
        assert.deepEqual(asked, []);
        assert.ok(!fs.existsSync(configBackupFile(file)));
    }
    assert.equal(fs.readFileSync(target, "utf8"), withKey);
    assert.ok(fs.lstatSync(linked).isSymbolicLink());
    assert.equal(fs.readFileSync(broken, "utf8"), "{\"env\": {\"ANTHROPIC_API_KEY\": \"sk-ant-mine\",}}");
});

test("a new settings.json is created owner-only", async () => {
    const file = path.join(root, "fresh", "settings.json");
    const write = await writeClaudeSettings(file, provider, keepOverridingKeys);
    assert.deepEqual(write, {outcome: "written", backup: null, removed: [], kept: []});
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
});
