/**
 * The store could not be opened for a reason outside it (permissions, the open-file limit, a missing or unreadable
 * folder, a disk error): the server must not start on it, and the store is left where it is. Moving it aside would
 * hide data that is whole, and the next start, with the cause fixed, opens it as it was.
 */
export class StoreOpenError extends Error {
    public constructor(location: string, cause: unknown) {
        super(`The durable store in ${location} cannot be opened (${describe(cause)}); it is left as it is. Check the data folder's owner, `
            + "permissions and free space (or the process's open-file limit), or give this server another --data-dir (or --store memory).",
        {cause});
        this.name = "StoreOpenError";
    }
}

function describe(cause: unknown): string {
    const {code, message} = (cause ?? {}) as {code?: unknown, message?: unknown};
    const words = typeof message === "string" ? message : String(cause);
    return typeof code === "string" && !words.includes(code) ? `${code}: ${words}` : words;
}
