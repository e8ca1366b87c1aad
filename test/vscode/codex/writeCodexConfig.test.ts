import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {after, test} from "node:test";
import {parse, type TomlTable} from "smol-toml";
import {writeCodexConfig} from "../../../src/vscode/codex/writeCodexConfig.js";
import {configBackupFile} from "../../../src/vscode/clientConfig/configFile.js";

const provider = {endpoint: "http://127.0.0.1:8080/v1", model: "stories260K"};
const root = fs.mkdtempSync(path.join(os.tmpdir(), "lr-codex-write-"));
after(() => fs.rmSync(root, {recursive: true, force: true}));

function codexHome(name: string): string {
    const dir = path.join(root, name);
    fs.mkdirSync(dir);
    return dir;
}

test("config.toml is merged, its mode kept, and the previous file kept beside it", async () => {
    const file = path.join(codexHome("merge"), "config.toml");
    const previous = "# mine\napproval_policy = \"never\"\n";
    fs.writeFileSync(file, previous);
    fs.chmodSync(file, 0o640);
    const write = await writeCodexConfig(file, provider);
    assert.deepEqual(write, {outcome: "written", backup: configBackupFile(file)});
    const config = parse(fs.readFileSync(file, "utf8"));
    assert.equal(config.approval_policy, "never");
    assert.equal(((config.model_providers as TomlTable)["local-responses"] as TomlTable).base_url, provider.endpoint);
    assert.equal(fs.readFileSync(configBackupFile(file), "utf8"), previous);
    assert.equal(fs.statSync(file).mode & 0o777, 0o640);
    // Again: nothing to change, so nothing is written (the file keeps its inode).
    const inode = fs.statSync(file).ino;
    assert.deepEqual(await writeCodexConfig(file, provider), {outcome: "unchanged"});
    assert.equal(fs.statSync(file).ino, inode);
});

test("a config.toml that is a symbolic link to a file elsewhere is refused; neither the link nor its target changes", async () => {
    const target = path.join(codexHome("dotfiles"), "codex.toml");
    fs.writeFileSync(target, "approval_policy = \"never\"\n");
    const file = path.join(codexHome("linked"), "config.toml");
    fs.symlinkSync(target, file);
    const write = await writeCodexConfig(file, provider);
    assert.equal(write.outcome, "refused");
    assert.match(write.outcome === "refused" ? write.reason : "", /symbolic link .*not followed/);
    assert.equal(fs.readFileSync(target, "utf8"), "approval_policy = \"never\"\n");
    assert.ok(fs.lstatSync(file).isSymbolicLink());
    assert.deepEqual(fs.readdirSync(path.dirname(file)), ["config.toml"], "no backup, no temporary file");
});

test("a config.toml that is not TOML is refused with the reason, and left byte for byte", async () => {
    const file = path.join(codexHome("invalid"), "config.toml");
    const broken = "model = \"gpt-5\"\n[model_providers.local-responses\nbase_url = 1\n";
    fs.writeFileSync(file, broken);
    const write = await writeCodexConfig(file, provider);
    assert.equal(write.outcome, "refused");
    assert.match(write.outcome === "refused" ? write.reason : "", /config\.toml was not changed: it is not valid TOML/);
    assert.equal(fs.readFileSync(file, "utf8"), broken);
    assert.deepEqual(fs.readdirSync(path.dirname(file)), ["config.toml"]);
});
