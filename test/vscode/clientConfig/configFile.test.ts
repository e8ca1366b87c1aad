import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {after, test} from "node:test";
import {
    ConfigFileRefusal, configBackupFile, newConfigFileMode, readConfigFile, replaceConfigFile
} from "../../../src/vscode/clientConfig/configFile.js";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "lr-config-file-"));
after(() => fs.rmSync(root, {recursive: true, force: true}));

/** A fresh folder per test, so that a stray temporary file of one test cannot hide in another's listing. */
function folder(name: string): string {
    const dir = path.join(root, name);
    fs.mkdirSync(dir);
    return dir;
}

const modeOf = (file: string) => fs.statSync(file).mode & 0o777;

test("a new file is created owner-only, with no backup and no temporary file left", async () => {
    const dir = folder("new");
    const file = path.join(dir, "nested", "config.toml");
    const previous = await readConfigFile(file);
    assert.deepEqual(previous, {text: "", mode: null});
    const {backup} = await replaceConfigFile(file, previous, "a = 1\n");
    assert.equal(backup, null);
    assert.equal(fs.readFileSync(file, "utf8"), "a = 1\n");
    assert.equal(modeOf(file), newConfigFileMode);
    assert.deepEqual(fs.readdirSync(path.dirname(file)), ["config.toml"]);
});

test("an existing file keeps its mode, and its previous text is kept beside it with the same mode", async () => {
    const dir = folder("existing");
    const file = path.join(dir, "settings.json");
    fs.writeFileSync(file, "{\"old\": true}\n");
    fs.chmodSync(file, 0o640);
    await replaceConfigFile(file, await readConfigFile(file), "{\"new\": true}\n");
    assert.equal(fs.readFileSync(file, "utf8"), "{\"new\": true}\n");
    assert.equal(modeOf(file), 0o640);
    assert.equal(fs.readFileSync(configBackupFile(file), "utf8"), "{\"old\": true}\n");
    assert.equal(modeOf(configBackupFile(file)), 0o640);
    assert.deepEqual(fs.readdirSync(dir).sort(), ["settings.json", "settings.json.local-responses.bak"]);
});

test("the new text replaces the file by a rename, so that a reader never sees it half written", async () => {
    const dir = folder("rename");
    const file = path.join(dir, "config.toml");
    fs.writeFileSync(file, "old = true\n");
    const before = fs.statSync(file).ino;
    await replaceConfigFile(file, await readConfigFile(file), "new = true\n");
    assert.notEqual(fs.statSync(file).ino, before, "a new inode was renamed over the name, not the old file rewritten in place");
});

test("a symbolic link is refused, not followed: the file it points to and the link stay as they were", async () => {
    const dir = folder("link");
    const elsewhere = path.join(folder("elsewhere"), "dotfiles-config.toml");
    fs.writeFileSync(elsewhere, "mine = 1\n");
    const file = path.join(dir, "config.toml");
    fs.symlinkSync(elsewhere, file);
    await assert.rejects(readConfigFile(file), (error: Error) => error instanceof ConfigFileRefusal
        && /is a symbolic link \(to .*dotfiles-config\.toml\); it was not followed/.test(error.message));
    // A link made after the read is refused by the write too.
    const plain = path.join(dir, "other.toml");
    const previous = await readConfigFile(plain);
    fs.symlinkSync(elsewhere, plain);
    await assert.rejects(replaceConfigFile(plain, previous, "theirs = 2\n"), ConfigFileRefusal);
    assert.equal(fs.readFileSync(elsewhere, "utf8"), "mine = 1\n");
    assert.ok(fs.lstatSync(file).isSymbolicLink() && fs.lstatSync(plain).isSymbolicLink());
});

test("a file edited between the read and the write, or a folder in its place, is refused and left as it is", async () => {
    const dir = folder("changed");
    const file = path.join(dir, "config.toml");
    fs.writeFileSync(file, "a = 1\n");
    const previous = await readConfigFile(file);
    fs.writeFileSync(file, "a = 2\n");
    await assert.rejects(replaceConfigFile(file, previous, "merged = 1\n"), /changed while it was being merged/);
    assert.equal(fs.readFileSync(file, "utf8"), "a = 2\n");
    assert.ok(!fs.existsSync(configBackupFile(file)));
    fs.mkdirSync(path.join(dir, "settings.json"));
    await assert.rejects(readConfigFile(path.join(dir, "settings.json")), /is not a regular file/);
});
