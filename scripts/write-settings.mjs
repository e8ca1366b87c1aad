// Writes what the settings table (src/host/settings/) declares into the files that repeat it: the CLI's --help into
// README.md between the flag markers, the editor's settings and the untrusted-workspace restrictions into package.json.
// test/host/readmeFlags.test.ts and test/host/settingsManifest.test.ts fail when they drift apart. Usage: npm run docs:flags
import {execFileSync} from "node:child_process";
import {readFileSync, writeFileSync} from "node:fs";
import {withModelsTable} from "./lib/modelsTable.mjs";

/** A TypeScript module's export, called and printed as JSON by a child node with tsx. */
function exported(module, name) {
    const script = `import('${module}').then((m) => process.stdout.write(JSON.stringify((m.${name} ?? m.default.${name})())))`;
    return JSON.parse(execFileSync(process.execPath, ["--import", "tsx", "-e", script], {encoding: "utf8"}));
}

const help = exported("./src/host/cliOptions.ts", "cliHelp");
const readme = readFileSync("README.md", "utf8");
const start = "<!-- flags:start -->";
const end = "<!-- flags:end -->";
writeFileSync("README.md", readme.replace(new RegExp(`${start}[\\s\\S]*?${end}`), `${start}\n\`\`\`\n${help.trimEnd()}\n\`\`\`\n${end}`));

const {properties, restrictedConfigurations} = exported("./src/host/settings/settingsManifest.ts", "settingsManifest");
const manifest = JSON.parse(readFileSync("package.json", "utf8"));
manifest.contributes.configuration.properties = properties;
manifest.capabilities.untrustedWorkspaces.restrictedConfigurations = restrictedConfigurations;
writeFileSync("package.json", `${JSON.stringify(manifest, null, 2)}\n`);

// docs/models.md's families table, from the family table test's last recorded results.
const results = JSON.parse(readFileSync("docs/models-results.json", "utf8"));
writeFileSync("docs/models.md", withModelsTable(readFileSync("docs/models.md", "utf8"), results));
