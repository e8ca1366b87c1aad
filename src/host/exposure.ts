import {isLoopbackHost} from "../server/middleware/hostCheck.js";

/** What a start's settings expose: where it listens, whether a key is required, which browser origins may call. */
export type ExposureSettings = {
    host: string,
    /** Whether requests must carry a configured API key. */
    authRequired: boolean,
    allowedOrigins: readonly string[]
};

/** A start that would expose the model and the store without a barrier: refused, with the flags that change it. */
export class ExposureRefusal extends Error {}

/**
 * The rules that keep `--no-auth` loopback-only and a wildcard origin behind a key. The Host check refuses non-loopback
 * names, but a client on the network can send `Host: localhost`: off loopback the key is the only barrier, so it is
 * required there; and `*` lets any web page the user opens call the server, so only a key may stand behind it.
 * Returns the warnings a permitted but exposed start should print; throws `ExposureRefusal` otherwise.
 */
export function checkExposure(settings: ExposureSettings): string[] {
    const loopback = isLoopbackBindAddress(settings.host);
    if (!loopback && !settings.authRequired)
        throw new ExposureRefusal(`--host ${settings.host} is not a loopback address, and --no-auth would serve the model and every stored `
            + "response to the network without a key. Drop --no-auth (a key is then generated or read from "
            + "--api-key-file), or bind 127.0.0.1.");
    if (settings.allowedOrigins.includes("*") && !settings.authRequired)
        throw new ExposureRefusal(
            "--allowed-origins '*' lets any web page call the server: it needs an API key. Drop --no-auth, or list the origins."
        );
    return loopback ? [] : [
        `listening on ${settings.host}, which is reachable from other machines: the API key is now the only barrier `
        + "(the Host check can be passed by any client that sends 'Host: localhost'). Keep the key secret, or bind 127.0.0.1."
    ];
}

/** Whether an address to listen on is this machine's loopback: `127.x.y.z`, `::1`, `[::1]`, `localhost`. */
export function isLoopbackBindAddress(host: string): boolean {
    const bracketed = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
    return isLoopbackHost(bracketed);
}

/** The start's auth line, true to what runs: a configured key wins over `--no-auth`. */
export function describeAuth(keysConfigured: number, noAuthFlag: boolean): string | null {
    if (keysConfigured > 0 && noAuthFlag)
        return `auth: on (${keysConfigured} key${keysConfigured === 1 ? "" : "s"} given with --api-key or `
            + `LOCAL_RESPONSES_API_KEY; --no-auth ignored)`;
    if (keysConfigured === 0 && noAuthFlag)
        return "auth: disabled (--no-auth); anything on this machine can use the server";
    return null;
}
