// `npm start` builds only when a source file is newer than the bundle.
import {execFileSync} from "node:child_process";
import {readdirSync, statSync, existsSync} from "node:fs";
import path from "node:path";

function newest(dir) {
    let latest = 0;
    for (const entry of readdirSync(dir, {withFileTypes: true})) {
        const full = path.join(dir, entry.name);
        latest = Math.max(latest, entry.isDirectory() ? newest(full) : statSync(full).mtimeMs);
    }
    return latest;
}

if (!existsSync("dist/cli.js") || newest("src") > statSync("dist/cli.js").mtimeMs)
    execFileSync(process.execPath, ["scripts/build.mjs"], {stdio: "inherit"});
