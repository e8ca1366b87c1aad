import {parseKeepAlive} from "../responses/keepAlive.js";
import {isObject} from "../protocol/isObject.js";
import {notAnOperatorKey} from "../protocol/errors.js";
import {ownerOfKey} from "./middleware/auth.js";

/**
 * What a caller may see of the server's traffic and do to its models, by its API key's owner id. The operator's keys
 * (`--admin-api-key`) see everything and may unload and pin models; the others see their own use and the occupancy
 * (which model is loaded, how many requests it holds), never when another key used what, and may load models as any
 * request does. Without admin keys, a server of one key (or none) is one person's: that key may do everything.
 */
export type ModelAccess = {
    /** Whether the caller is shown every key's traffic and timing. */
    seesAll(owner: string): boolean,
    /** Whether the caller may unload a model or pin one loaded (`keep_alive` negative). */
    mayManage(owner: string): boolean
};

export type ModelAccessOptions = {
    apiKeys: () => readonly string[],
    adminApiKeys: () => readonly string[],
    /** `--status-all-keys`: every key sees the server-wide traffic (keys that trust each other). */
    statusAllKeys?: boolean
};

export function modelAccess(options: ModelAccessOptions): ModelAccess {
    // The owner ids of the operator's keys, hashed once per list (the host hands the same array until it changes).
    const ownersOfList = new WeakMap<readonly string[], ReadonlySet<string>>();
    const admins = () => {
        const keys = options.adminApiKeys();
        let owners = ownersOfList.get(keys);
        if (owners == null)
            ownersOfList.set(keys, owners = new Set(keys.map(ownerOfKey)));
        return owners;
    };
    const onePerson = () => options.apiKeys().length <= 1;
    const mayManage = (owner: string) => {
        const adminOwners = admins();
        return adminOwners.size > 0 ? adminOwners.has(owner) : onePerson();
    };
    return {
        seesAll: (owner) => options.statusAllKeys === true || onePerson() || admins().has(owner),
        mayManage
    };
}

/** Whether a request body's `keep_alive` pins its model (negative: never unloaded for idleness). Invalid: the route says so. */
export function pinsModel(body: unknown): boolean {
    if (!isObject(body) || body.keep_alive == null)
        return false;
    try {
        return parseKeepAlive(body.keep_alive as number | string) === Infinity;
    } catch {
        return false;
    }
}

/** Refuses a pin (`keep_alive` negative) from a key that may not pin, before any generation. */
export function checkPin(access: ModelAccess, owner: string, body: unknown): void {
    if (pinsModel(body) && !access.mayManage(owner))
        throw notAnOperatorKey("Keeping a model loaded indefinitely (keep_alive < 0)");
}
