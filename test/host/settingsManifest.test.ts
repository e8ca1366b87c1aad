import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import {it} from "node:test";
import {settingsManifest} from "../../src/host/settings/settingsManifest.js";
import {repoRoot} from "../helpers/paths.js";

type Manifest = {
    contributes: {configuration: {properties: Record<string, object>}},
    capabilities: {untrustedWorkspaces: {restrictedConfigurations: string[]}}
};

it("package.json declares the editor's settings exactly as the settings table does (npm run docs:flags)", () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as Manifest;
    const derived = settingsManifest();
    // Compared as text, so the order of the settings and of their fields counts too.
    assert.equal(JSON.stringify(manifest.contributes.configuration.properties, null, 2), JSON.stringify(derived.properties, null, 2));
    assert.deepEqual(manifest.capabilities.untrustedWorkspaces.restrictedConfigurations, derived.restrictedConfigurations);
});
