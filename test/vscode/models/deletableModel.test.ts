import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {after, before, describe, it} from "node:test";
import {deletableModel} from "../../../src/vscode/models/deletableModel.js";

describe("deletableModel: the Models view deletes only .gguf files in the models folder", () => {
    let root = "";
    let folder = "";
    let outside = "";

    before(() => {
        root = fs.mkdtempSync(path.join(os.tmpdir(), "lr-delete-"));
        folder = path.join(root, "models");
        outside = path.join(root, "elsewhere");
        fs.mkdirSync(folder);
        fs.mkdirSync(outside);
        fs.writeFileSync(path.join(folder, "tiny.gguf"), "GGUF");
        fs.writeFileSync(path.join(folder, "notes.txt"), "keep me");
        fs.writeFileSync(path.join(outside, "precious.gguf"), "GGUF");
        fs.mkdirSync(path.join(folder, "folder.gguf"));
        fs.mkdirSync(path.join(folder, "nested"));
        fs.writeFileSync(path.join(folder, "nested", "deep.gguf"), "GGUF");
        fs.symlinkSync(path.join(outside, "precious.gguf"), path.join(folder, "link.gguf"));
        fs.symlinkSync(outside, path.join(folder, "linked-folder"));
    });

    after(() => fs.rmSync(root, {recursive: true, force: true}));

    it("accepts a real .gguf file in the folder", async () => {
        assert.equal(await deletableModel(path.join(folder, "tiny.gguf"), folder), path.join(folder, "tiny.gguf"));
    });

    it("accepts it through a linked models folder too (both compared by real path)", async () => {
        const linkedFolder = path.join(root, "models-link");
        fs.symlinkSync(folder, linkedFolder);
        assert.equal(await deletableModel(path.join(linkedFolder, "tiny.gguf"), folder), path.join(linkedFolder, "tiny.gguf"));
    });

    it("refuses a .gguf outside the folder, also reached with ..", async () => {
        await assert.rejects(deletableModel(path.join(outside, "precious.gguf"), folder), /Refusing to delete .*not in the models folder/);
        await assert.rejects(deletableModel(path.join(folder, "..", "elsewhere", "precious.gguf"), folder), /not in the models folder/);
    });

    it("refuses a file that is not .gguf", async () => {
        await assert.rejects(deletableModel(path.join(folder, "notes.txt"), folder), /only \.gguf model files/);
    });

    it("refuses a link in the folder that points out of it, and a file under a linked folder", async () => {
        await assert.rejects(deletableModel(path.join(folder, "link.gguf"), folder), /is a link/);
        await assert.rejects(deletableModel(path.join(folder, "linked-folder", "precious.gguf"), folder), /not in the models folder/);
        assert.ok(fs.existsSync(path.join(outside, "precious.gguf")));
    });

    it("refuses a folder, a file in a subfolder, and a path that does not exist", async () => {
        await assert.rejects(deletableModel(path.join(folder, "folder.gguf"), folder), /not a regular file/);
        await assert.rejects(deletableModel(path.join(folder, "nested", "deep.gguf"), folder), /not in the models folder/);
        await assert.rejects(deletableModel(path.join(folder, "gone.gguf"), folder), /no longer exists/);
    });
});
