import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type {LlamaContextSequence} from "node-llama-cpp";

/**
 * A prefix shorter than this is evaluated again rather than copied: a copy writes and reads the other sequence's whole
 * state (its conversation past the shared prefix too), which costs more than a short prompt step.
 */
export const minCopiedTokens = 256;

/**
 * Copies what `from` holds into `to` (which loses what it held), so that a session starting beside another one with
 * the same instructions and tools reads that prefix instead of evaluating it. node-llama-cpp 3.21.1 has no sequence
 * copy (llama.cpp's `llama_memory_seq_cp` is not bound), so the state goes through a file in a private temporary
 * folder, removed at once: it holds a prompt. Both sequences' node-llama-cpp locks are taken for each step, so a
 * generation starting on `from` meanwhile is either in the copy or after it; the caller counts the prefix from what
 * `to` then holds. Resolves to false (and `to` is left empty) when the state could not be written or read.
 */
export async function copySequenceState(from: LlamaContextSequence, to: LlamaContextSequence): Promise<boolean> {
    const folder = await fs.mkdtemp(path.join(os.tmpdir(), "local-responses-sequence-"));
    try {
        const file = path.join(folder, "state");
        await from.saveStateToFile(file);
        await to.loadStateFromFile(file, {acceptRisk: true});
        return true;
    } catch {
        await to.clearHistory().catch(() => undefined);
        return false;
    } finally {
        await fs.rm(folder, {recursive: true, force: true});
    }
}
