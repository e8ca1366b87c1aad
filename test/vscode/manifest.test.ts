import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import {test} from "node:test";
import {repoRoot} from "../helpers/paths.js";
import {chatProviderVendor} from "../../src/vscode/chatProvider/lmApi.js";
import {commandIds} from "../../src/vscode/manifest/commandIds.js";
import {readSettings, settingsSection} from "../../src/vscode/settings/extensionSettings.js";

type Manifest = {
    contributes: {
        commands: {command: string, title: string, category: string}[],
        configuration: {properties: Record<string, {default?: unknown}>},
        languageModelChatProviders: {vendor: string, displayName: string}[]
    },
    engines: {vscode: string},
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

test("the editor's chat: one language model provider, under the vendor the code registers, on editors from before its API too", () => {
    assert.deepEqual(manifest.contributes.languageModelChatProviders, [{vendor: chatProviderVendor, displayName: "Local Responses"}]);
    assert.ok(Object.hasOwn(manifest.contributes.configuration.properties, `${settingsSection}.chatProvider.enabled`));
    // The API (1.104) is found at run time: an older editor still activates the extension, without the provider.
    assert.equal(manifest.engines.vscode, "^1.90.0");
});

test("untrusted workspaces: supported deliberately, with the machine-level settings restricted", () => {
    const {supported, restrictedConfigurations = []} = manifest.capabilities.untrustedWorkspaces;
    assert.equal(supported, "limited");
    for (const key of ["localResponses.model.path", "localResponses.server.host", "localResponses.server.allowedOrigins"])
        assert.ok(restrictedConfigurations.includes(key), key);
    assert.ok(!manifest.activationEvents.includes("*"), "activation is not eager");
});

/**
 * Settings that choose what runs, what is loaded or offered for download, where the server listens, where data goes
 * or how much of the machine is used: an untrusted workspace must not set them (VS Code then reads them from user
 * settings only).
 */
const mustBeRestricted = [
    "model.path", "model.downloadDirectory", "model.catalog", "autoStart", "chatProvider.enabled",
    "server.host", "server.port", "server.allowedOrigins",
    "threads", "promptThreads", "contextSize", "parallel", "queueLimit", "gpu", "cacheTypeK",
    "store.maxEntries", "store.maxBytes", "jobs.maxActive", "jobs.workers",
    "engine", "upstream.urls", "upstream.model", "upstream.timeoutSeconds",
    "completions.enabled", "completions.model", "completions.debounceMs", "completions.maxTokens", "completions.timeLimitMs",
    "completions.prefixLines", "completions.suffixLines", "completions.maxFileKiB"
].map((key) => `${settingsSection}.${key}`);
/** Settings a workspace may set even untrusted: they change how requests are answered, not what runs or where. */
const workspaceSafe = ["model.alias", "strictModel", "strictTools", "store.ttlSeconds", "jobs.deadlineSeconds", "completions.exclude"]
    .map((key) => `${settingsSection}.${key}`);

test("untrusted workspaces: every setting that changes what runs, listens, loads or writes is restricted", () => {
    const restricted = manifest.capabilities.untrustedWorkspaces.restrictedConfigurations ?? [];
    const properties = Object.keys(manifest.contributes.configuration.properties);
    assert.deepEqual(mustBeRestricted.filter((key) => !restricted.includes(key)), [],
        "add these to capabilities.untrustedWorkspaces.restrictedConfigurations");
    assert.deepEqual(restricted.filter((key) => !properties.includes(key)), [], "restricted names that are no setting");
    const unclassified = properties.filter((key) => !restricted.includes(key) && !workspaceSafe.includes(key));
    assert.deepEqual(unclassified, [],
        "a new setting: restrict it (package.json and mustBeRestricted here) or list it in workspaceSafe, saying why");
});

/** The modules a .ts file imports, by specifier (static imports and dynamic import()). */
function specifiersOf(file: string): string[] {
    return [...fs.readFileSync(file, "utf8").matchAll(/from\s+["']([^"']+)["']|import\(["']([^"']+)["']\)/g)].map(
        (match) => match[1] ?? match[2] ?? ""
    );
}

/** The .ts files under a folder (a test folder: its test files only). */
function tsFiles(dir: string, suffix = ".ts"): string[] {
    return fs.readdirSync(dir, {withFileTypes: true, recursive: true})
        .filter((entry) => entry.isFile() && entry.name.endsWith(suffix))
        .map((entry) => path.join(entry.parentPath, entry.name));
}

/** Imports of a module, by specifier, in every .ts file under a folder. */
function importers(dir: string, specifier: RegExp): string[] {
    return tsFiles(dir).filter((file) => specifiersOf(file).some((name) => specifier.test(name)))
        .map((file) => path.relative(repoRoot, file)).sort();
}

/** Every file of src/ that the given files reach through relative imports. */
function sourcesReached(from: string[]): string[] {
    const seen = new Set<string>();
    const queue = [...from];
    for (let file = queue.pop(); file != null; file = queue.pop()) {
        if (seen.has(file) || !fs.existsSync(file))
            continue;
        seen.add(file);
        for (const name of specifiersOf(file).filter((specifier) => specifier.startsWith(".")))
            queue.push(path.resolve(path.dirname(file), name).replace(/\.js$/, ".ts"));
    }
    return [...seen].map((file) => path.relative(repoRoot, file)).filter((file) => file.startsWith("src/")).sort();
}

test("layering: only src/vscode and src/extension.ts import vscode; only src/engine imports node-llama-cpp", () => {
    const vscodeImporters = importers(path.join(repoRoot, "src"), /^vscode$/);
    assert.ok(vscodeImporters.length > 0);
    for (const file of vscodeImporters)
        assert.ok(file === "src/extension.ts" || file.startsWith("src/vscode/"), file);
    for (const file of importers(path.join(repoRoot, "src"), /^node-llama-cpp$/))
        assert.ok(file.startsWith("src/engine/"), file);
    assert.deepEqual(importers(path.join(repoRoot, "webview"), /^vscode$/), []);
});

test("layering: each VS Code feature's vscode-free side (what the webview bundle and the unit tests import) reaches no vscode", () => {
    const shared = sourcesReached([...tsFiles(path.join(repoRoot, "webview")), ...tsFiles(path.join(repoRoot, "test/vscode"), ".test.ts")]);
    assert.ok(shared.some((file) => file.startsWith("src/vscode/inspector/")), "the webview shares the inspector's protocol");
    assert.deepEqual(shared.filter((file) => specifiersOf(path.join(repoRoot, file)).includes("vscode")), []);
});
