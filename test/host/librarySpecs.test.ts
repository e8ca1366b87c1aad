import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {after, test} from "node:test";
import {defaultConfig, type HostConfig} from "../../src/host/config.js";
import {librarySpecs, usesLibrary} from "../../src/host/librarySpecs.js";
import {readModelPresets} from "../../src/host/modelPresets.js";
import {repoRoot} from "../helpers/paths.js";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "lr-library-specs-"));
after(() => fs.rmSync(root, {recursive: true, force: true}));

function write(relative: string, text = "GGUF"): string {
    const file = path.join(root, relative);
    fs.mkdirSync(path.dirname(file), {recursive: true});
    fs.writeFileSync(file, text);
    return file;
}

function config(library: Partial<HostConfig["library"]>, modelPath: string | null = null): HostConfig {
    const base = defaultConfig();
    return {...base, modelPath, library: {...base.library, ...library}};
}

test("docs/models.md's presets example reads as documented", async () => {
    const docs = fs.readFileSync(path.join(repoRoot, "docs/models.md"), "utf8");
    const toml = /```toml\n([\s\S]*?)```/.exec(docs.slice(docs.indexOf("## A model library")))![1]!;
    const presets = await readModelPresets(write("docs/presets.toml", toml));
    assert.deepEqual([...presets.keys()], ["coder", "small", "gpt-oss-20b-MXFP4"]);
    assert.deepEqual(presets.get("coder"), {
        path: path.join(root, "docs/Qwen3-Coder-30B-A3B-Instruct-Q4_K_M.gguf"), aliases: ["gpt-5-codex", "claude-sonnet-4-5"],
        contextSize: 65536, parallel: 2
    });
    assert.deepEqual(presets.get("gpt-oss-20b-MXFP4"), {chatWrapper: "gpt-oss"});
    const json = await readModelPresets(
        write("docs/presets.json", JSON.stringify({models: {coder: {path: "c.gguf", context_size: 4096}}})));
    assert.deepEqual(json.get("coder"), {path: path.join(root, "docs/c.gguf"), contextSize: 4096});
});

test("a typo or a wrong type in a presets file is one line naming it", async () => {
    await assert.rejects(readModelPresets(write("bad1.toml", `[models.${"a"}]\ncontext = 4096\n`)), /models\.a\.context is not a preset setting/);
    await assert.rejects(readModelPresets(write("bad2.json", "{\"models\": {\"a\": {\"parallel\": 0}}}")), /models\.a\.parallel must be an integer ≥ 1/);
    await assert.rejects(readModelPresets(write("bad3.json", "{\"a\": {}}")), /expected a "models" table/);
    await assert.rejects(readModelPresets(write("bad4.toml", "[models\n")), /is not valid TOML/);
});

test("the library's models: --model files first (the first the default), then presets with a path, then the folder", async () => {
    const first = write("named/first.gguf");
    write("folder/first.gguf");
    write("folder/other-Q4_K_M.gguf");
    write("folder/mmproj-other-f16.gguf");
    const presets = write("presets.json", JSON.stringify({models: {
        renamed: {path: "named/first.gguf", aliases: ["alias"]},
        "other-Q4_K_M": {context_size: 8192, parallel: 2}
    }}));
    const {models: listed, defaultModel} = await librarySpecs(config({modelsDir: path.join(root, "folder"), presetsFile: presets}, first));
    assert.equal(defaultModel, "first");
    assert.deepEqual(listed.map((model) => [model.id, model.path, model.aliases, model.contextSize, model.parallel]), [
        ["first", first, [], null, null],
        ["renamed", first, ["alias"], null, null],
        ["other-Q4_K_M", path.join(root, "folder/other-Q4_K_M.gguf"), [], 8192, 2]
    ]);
    assert.equal(listed[2]!.projector, path.join(root, "folder/mmproj-other-f16.gguf"));
    const orphan = write("orphan.json", JSON.stringify({models: {missing: {context_size: 4096}}}));
    await assert.rejects(librarySpecs(config({presetsFile: orphan}, first)), /models\.missing names no model found/);
});

test("a library only when asked for: a folder, a presets file or a second --model", () => {
    assert.equal(usesLibrary(config({})), false);
    assert.equal(usesLibrary(config({extraModelPaths: ["b.gguf"]})), true);
    assert.equal(usesLibrary(config({modelsDir: "/m"})), true);
    assert.equal(usesLibrary({...config({modelsDir: "/m"}), engine: "upstream"}), false);
    assert.equal(usesLibrary(config({withUpstream: true})), true, "one --model beside upstreams is a library of one");
});
