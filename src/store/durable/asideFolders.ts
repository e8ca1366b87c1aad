import fs from "node:fs";
import path from "node:path";

/**
 * Unusable stores kept beside the data folder's `store`, the newest first: each is moved aside rather than deleted, so
 * its data can still be read out by hand, but a store that keeps turning out unusable must not fill the disk.
 */
export const keptAsideFolders = 2;

/** Renames an unusable store to `store.unusable-<timestamp>` and removes the aside folders beyond the newest few; returns the new name. */
export function moveAside(location: string, log: (line: string) => void): string {
    const aside = `${location}.unusable-${new Date().toISOString().replace(/[:.]/g, "-")}`;
    fs.renameSync(location, aside);
    pruneAside(location, log);
    return aside;
}

/** The timestamps are ISO 8601, so the names sort oldest first. */
function pruneAside(location: string, log: (line: string) => void): void {
    const folder = path.dirname(location);
    const prefix = `${path.basename(location)}.unusable-`;
    const names = fs.readdirSync(folder).filter((name) => name.startsWith(prefix)).sort();
    for (const name of names.slice(0, Math.max(0, names.length - keptAsideFolders))) {
        fs.rmSync(path.join(folder, name), {recursive: true, force: true});
        log(`store: removed ${path.join(folder, name)}, an older unusable store (only the newest ${keptAsideFolders} are kept)`);
    }
}
