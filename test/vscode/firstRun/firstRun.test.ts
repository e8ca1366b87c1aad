import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import {test} from "node:test";
import type {ModelFit} from "../../../src/engine/models/modelFit.js";
import {FirstRunProgress, walkthroughId} from "../../../src/vscode/firstRun/FirstRunProgress.js";
import {describeEntry, describeFit, parseCatalog} from "../../../src/vscode/models/modelCatalog.js";
import {walkthroughKeys} from "../../../src/vscode/manifest/viewIds.js";
import {repoRoot} from "../../helpers/paths.js";

test("the curated catalog (media/models.json) parses whole: labels, downloadable URIs, quantizations, sizes, unique ids", () => {
    const {entries, problems} = parseCatalog(JSON.parse(fs.readFileSync(path.join(repoRoot, "media/models.json"), "utf8")),
        "media/models.json");
    assert.deepEqual(problems, []);
    assert.ok(entries.length >= 4, "a short list, but a choice");
    assert.equal(new Set(entries.map((entry) => entry.id)).size, entries.length);
    for (const entry of entries) {
        assert.match(entry.uri, /^hf:[^/]+\/[^:]+-GGUF:[A-Z0-9_]+$/i, entry.uri);
        assert.ok(entry.uri.endsWith(`:${entry.quantization}`), `${entry.uri} names its quantization`);
        assert.ok(entry.sizeBytes != null && entry.description !== "", entry.id);
    }
    // Sorted small to large: the first one a new user sees is the one most likely to fit.
    const sizes = entries.map((entry) => entry.sizeBytes!);
    assert.deepEqual(sizes, [...sizes].sort((a, b) => a - b));
});

test("settings entries: a bad one is dropped and said, a loopback URL is fine", () => {
    const {entries, problems} = parseCatalog([
        {label: "Team model", uri: "http://127.0.0.1:9000/model.gguf"},
        {label: "", uri: "hf:a/b"},
        {label: "Typo", uri: "hf/a/b"},
        "nonsense"
    ], "localResponses.model.catalog");
    assert.deepEqual(entries.map((entry) => [entry.label, entry.sizeBytes, describeEntry(entry)]), [["Team model", null, ""]]);
    assert.equal(problems.length, 3);
    assert.deepEqual(parseCatalog({nope: 1}, "x").problems, ["x: expected a list of models."]);
});

test("the fit in words: what it needs at this context, of what is available, and what to do when it does not fit", () => {
    const fit: ModelFit = {
        modelBytes: 1, parameters: 1, architecture: "llama", trainContextSize: 8192, contextSize: 8192, sequences: 4,
        modelRamBytes: 1024 ** 3, contextRamBytes: 512 * 1024 ** 2, requiredBytes: 1.5 * 1024 ** 3, availableBytes: 8 * 1024 ** 3,
        totalBytes: 16 * 1024 ** 3, verdict: "fits"
    };
    assert.equal(describeFit(fit),
        "$(pass) Fits: needs 1.50 GiB (weights 1.00 GiB + context 512.0 MiB for 8192 tokens × 4) of 8.00 GiB available");
    assert.match(describeFit({...fit, verdict: "tight"}), /^\$\(warning\) Tight: .*lower the context size$/);
    assert.match(describeFit({...fit, verdict: "no"}), /^\$\(error\) Too large: .*localResponses\.contextSize/);
});

test("walkthrough: each step completes on a context key the face sets on its real event, in order", () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as {
        publisher: string, name: string, contributes: {
            commands: {command: string}[], walkthroughs: {id: string,
                steps: {id: string, description: string, completionEvents: string[], media: {markdown: string}}[]}[]
        }
    };
    const walkthrough = manifest.contributes.walkthroughs[0]!;
    assert.equal(`${manifest.publisher}.${manifest.name}#${walkthrough.id}`, walkthroughId);
    assert.deepEqual(walkthrough.steps.map((step) => step.completionEvents),
        Object.values(walkthroughKeys).map((key) => [`onContext:${key}`]));
    const contributed = new Set(manifest.contributes.commands.map((command) => command.command));
    for (const step of walkthrough.steps) {
        assert.ok(fs.existsSync(path.join(repoRoot, step.media.markdown)), step.media.markdown);
        for (const [, command] of step.description.matchAll(/\(command:([^)]+)\)/g))
            assert.ok(contributed.has(command!), command);
    }

    const progress = new FirstRunProgress();
    const done = () => Object.entries(progress.keys()).filter(([, value]) => value).map(([key]) => key);
    assert.deepEqual(done(), []);
    progress.modelFiles(0);
    assert.deepEqual(done(), [], "no model file yet");
    progress.modelFiles(1);
    progress.modelState(true);
    progress.record("endpointCopied");
    assert.deepEqual(done(), [walkthroughKeys.hasModelFile, walkthroughKeys.modelLoaded], "the endpoint alone does not connect a client");
    progress.record("keyCopied");
    progress.record("responseSeen");
    progress.modelsServed(1);
    assert.ok(!done().includes(walkthroughKeys.servesSeveralModels), "one model is not a second");
    progress.modelsServed(2);
    assert.deepEqual(done(), Object.values(walkthroughKeys));
    progress.modelState(false);
    assert.ok(!done().includes(walkthroughKeys.modelLoaded), "an unloaded model is not loaded");
    const codex = new FirstRunProgress();
    codex.record("codexConfigured");
    assert.deepEqual(Object.entries(codex.keys()).filter(([, value]) => value).map(([key]) => key), [walkthroughKeys.clientConnected]);
    const claude = new FirstRunProgress();
    claude.record("claudeConfigured");
    assert.deepEqual(Object.entries(claude.keys()).filter(([, value]) => value).map(([key]) => key), [walkthroughKeys.clientConnected]);
});
