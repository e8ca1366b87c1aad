import fs from "node:fs";
import path from "node:path";

/**
 * The prompt states saved on disk in a data folder's prompt cache (`prompt-states/**.state`, a library's models' folders
 * included), as paths relative to `prompt-states/`.
 */
export function stateFiles(dataDir: string): string[] {
    return promptStateFiles(dataDir).filter((name) => name.endsWith(".state"));
}

/** Every file below `prompt-states/` (states, manifests, leftovers), relative to it. */
export function promptStateFiles(dataDir: string): string[] {
    const folder = path.join(dataDir, "prompt-states");
    return fs.existsSync(folder) ? (fs.readdirSync(folder, {recursive: true}) as string[])
        .filter((name) => fs.statSync(path.join(folder, name), {throwIfNoEntry: false})?.isFile() === true) : [];
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
