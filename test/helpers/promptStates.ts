import fs from "node:fs";
import path from "node:path";

/** The prompt states saved on disk in a data folder's prompt cache (`prompt-states/*.state`). */
export function stateFiles(dataDir: string): string[] {
    const folder = path.join(dataDir, "prompt-states");
    return fs.existsSync(folder) ? fs.readdirSync(folder).filter((name) => name.endsWith(".state")) : [];
}

/**
 * Saves run after the answer: waits (up to 10 s) until at least `count` states are on disk and committed (a state is
 * usable once its manifest, written last, is there too: a process killed between the two loses that save).
 */
export async function waitForStates(dataDir: string, count: number): Promise<void> {
    const deadline = Date.now() + 10_000;
    const committed = () => stateFiles(dataDir)
        .filter((name) => fs.existsSync(path.join(dataDir, "prompt-states", name.replace(/\.state$/, ".json")))).length;
    while (committed() < count && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20));
}
