import fs from "node:fs";

/**
 * Calls `changed` a moment after files in `folder` (or its subfolders) change, once per burst (a download writes a file
 * in many steps). Returns the function that stops watching. A folder that cannot be watched is simply not followed.
 */
export function watchFolder(folder: string, changed: () => void, settleMs = 500): () => void {
    let timer: NodeJS.Timeout | undefined;
    let watcher: fs.FSWatcher;
    try {
        watcher = fs.watch(folder, {recursive: true, persistent: false}, () => {
            clearTimeout(timer);
            timer = setTimeout(changed, settleMs);
        });
    } catch {
        return () => undefined;
    }
    watcher.on("error", () => watcher.close());
    return () => {
        clearTimeout(timer);
        watcher.close();
    };
}
