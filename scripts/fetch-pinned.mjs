// Fetches one pinned npm package into .tools/binaries (see scripts/lib/pinnedPackages.mjs) and prints its folder.
// Usage: node scripts/fetch-pinned.mjs NAME VERSION
import {fetchPinnedPackage} from "./lib/pinnedPackages.mjs";

const [name, version] = process.argv.slice(2);
if (name == null || version == null) {
    console.error("usage: node scripts/fetch-pinned.mjs NAME VERSION");
    process.exit(2);
}
console.log(fetchPinnedPackage(name, version, {log: (line) => console.error(line)}));
