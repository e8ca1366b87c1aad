// Writes the CLI's --help (the one flag table in src/host/cliOptions.ts) into README.md between the flag markers.
// test/host/readmeFlags.test.ts fails when they drift apart. Usage: npm run docs:flags
import {execFileSync} from "node:child_process";
import {readFileSync, writeFileSync} from "node:fs";

const help = execFileSync(process.execPath, ["--import", "tsx", "-e",
    "import('./src/host/cliOptions.ts').then((m) => process.stdout.write((m.cliHelp ?? m.default.cliHelp)()))"], {encoding: "utf8"});
const readme = readFileSync("README.md", "utf8");
const start = "<!-- flags:start -->";
const end = "<!-- flags:end -->";
const updated = readme.replace(new RegExp(`${start}[\\s\\S]*?${end}`), `${start}\n\`\`\`\n${help.trimEnd()}\n\`\`\`\n${end}`);
writeFileSync("README.md", updated);
