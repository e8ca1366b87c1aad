import {ClassicLevel} from "classic-level";

/** LevelDB's words for a full disk and an I/O error, as classic-level reports them (it gives no errno). */
export const diskFull = (file = "000005.log") => levelIoError(`IO error: ${file}: No space left on device`);
export const ioError = () => levelIoError("IO error: 000005.log: Input/output error");
export const permissionDenied = () => levelIoError("IO error: LOCK: Permission denied");

function levelIoError(message: string): Error {
    return Object.assign(new Error(message), {code: "LEVEL_IO_ERROR"});
}

type Port = "_batch" | "_open";
type Hooked = Record<Port, (...args: unknown[]) => Promise<unknown>>;

/**
 * Makes the LevelDB port fail: `fail` is asked on each call of classic-level's implementation hook (`_batch`, the
 * write of one atomic batch; `_open`) for the error to raise, or null to let the call through. Patched on the
 * prototype, so a database the store opens later (after a rewrite) fails too; abstract-level wraps what `_open`
 * raises as it wraps LevelDB's own errors. `restore` puts the hook back; `failed` counts the calls that failed.
 */
export function failingPort(port: Port, fail: (location: string) => Error | null): {restore: () => void, readonly failed: number} {
    const prototype = ClassicLevel.prototype as unknown as Hooked;
    const original = prototype[port];
    let failed = 0;
    prototype[port] = function (this: ClassicLevel<string, unknown>, ...args: unknown[]) {
        const error = fail(this.location);
        if (error == null)
            return original.apply(this, args);
        failed++;
        return Promise.reject(error);
    };
    return {
        restore: () => {
            prototype[port] = original;
        },
        get failed() {
            return failed;
        }
    };
}
