import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import {test} from "node:test";
import {repoRoot} from "../helpers/paths.js";
import {commandIds} from "../../src/vscode/logic/commandIds.js";
import {readSettings, settingsSection} from "../../src/vscode/logic/settings.js";

type Manifest = {
    contributes: {commands: {command: string, title: string, category: string}[], configuration: {properties: Record<string, {default?: unknown}>}},
    capabilities: {untrustedWorkspaces: {supported: boolean | string, restrictedConfigurations?: string[]}},
    activationEvents: string[]
};
const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as Manifest;

test("every command the code registers is contributed, in one category, and nothing else is", () => {
    const contributed = manifest.contributes.commands.map((command) => command.command).sort();
    assert.deepEqual(contributed, Object.values(commandIds).sort());
    assert.deepEqual([...new Set(manifest.contributes.commands.map((command) => command.category))], ["Local Responses"]);
});

test("every setting is under one prefix, and its declared default is what the code uses when unset", () => {
    const properties = manifest.contributes.configuration.properties;
    const prefix = `${settingsSection}.`;
    assert.ok(Object.keys(properties).every((key) => key.startsWith(prefix)));
    const fromDefaults = readSettings((key) => properties[prefix + key]?.default);
    const unset = readSettings(() => undefined);
    assert.deepEqual(fromDefaults.problems, []);
    assert.deepEqual(fromDefaults.settings, unset.settings);
});

test("untrusted workspaces: supported deliberately, with the machine-level settings restricted", () => {
    const {supported, restrictedConfigurations = []} = manifest.capabilities.untrustedWorkspaces;
    assert.equal(supported, "limited");
    for (const key of ["localResponses.model.path", "localResponses.server.host", "localResponses.server.allowedOrigins"])
        assert.ok(restrictedConfigurations.includes(key), key);
    assert.ok(!manifest.activationEvents.includes("*"), "activation is not eager");
});

/** Imports of a module, by specifier, in every .ts file under a folder. */
function importers(dir: string, specifier: RegExp): string[] {
    const found: string[] = [];
    for (const entry of fs.readdirSync(dir, {withFileTypes: true, recursive: true})) {
        if (!entry.isFile() || !entry.name.endsWith(".ts"))
            continue;
        const file = path.join(entry.parentPath, entry.name);
        const specifiers = [...fs.readFileSync(file, "utf8").matchAll(/from\s+["']([^"']+)["']|import\(["']([^"']+)["']\)/g)].map((match) => match[1] ?? match[2] ?? "");
        if (specifiers.some((name) => specifier.test(name)))
            found.push(path.relative(repoRoot, file));
    }
    return found.sort();
}

test("layering: only src/vscode (not its logic/) and src/extension.ts import vscode; only src/engine imports node-llama-cpp", () => {
    const vscodeImporters = importers(path.join(repoRoot, "src"), /^vscode$/);
    assert.ok(vscodeImporters.length > 0);
    for (const file of vscodeImporters)
        assert.ok(file === "src/extension.ts" || (file.startsWith("src/vscode/") && !file.startsWith("src/vscode/logic/")), file);
    for (const file of importers(path.join(repoRoot, "src"), /^node-llama-cpp$/))
        assert.ok(file.startsWith("src/engine/"), file);
    assert.deepEqual(importers(path.join(repoRoot, "webview"), /^vscode$/), []);
});
