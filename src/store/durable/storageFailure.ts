/** A failed write or open as the log and a client read it: its words, and whether it says the disk is full. */
export type StorageFailure = {cause: string, full: boolean};

/**
 * Reads a failure of LevelDB (classic-level's `LEVEL_IO_ERROR` carries the OS's words: "IO error: …/000005.log: No
 * space left on device") or of Node's fs (`ENOSPC`, `EDQUOT`). LevelDB reports no errno, so a full disk is told by its
 * words; a quota counts as full, since freeing space is the fix for both.
 */
export function storageFailure(error: unknown): StorageFailure {
    const cause = describe(error);
    return {cause, full: /ENOSPC|EDQUOT|no space left|quota exceeded/i.test(cause)};
}

/** The error's words (its code where they lack it), then its cause's: abstract-level wraps LevelDB's error in "Database failed to open". */
function describe(error: unknown): string {
    const {code, message, cause} = (error ?? {}) as {code?: unknown, message?: unknown, cause?: unknown};
    const words = typeof message === "string" && message !== "" ? message : String(error);
    const coded = typeof code === "string" && code.startsWith("E") && !words.includes(code) ? `${code}: ${words}` : words;
    return cause instanceof Error ? `${coded}: ${describe(cause)}` : coded;
}

/**
 * What tells two failures apart in the log: the code and the words with their numbers dropped (LevelDB names the
 * file it was writing, a new number each time), so a flood of one cause is one line.
 */
export function failureKey(error: unknown): string {
    const {code} = (error ?? {}) as {code?: unknown};
    return `${typeof code === "string" ? code : ""}:${storageFailure(error).cause.replace(/\d+/g, "#")}`;
}
