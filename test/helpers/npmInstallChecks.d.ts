// npm-install-checks (npm's own install-time checks, used by @npmcli/arborist) ships no types: the one function the
// platform test calls.
declare module "npm-install-checks" {
    /** Throws an error with code EBADPLATFORM where `target`'s os / cpu / libc exclude `environment` (default: this machine). */
    export function checkPlatform(target: {_id?: string, os?: string[], cpu?: string[], libc?: string[]}, force?: boolean,
        environment?: {os?: string, cpu?: string, libc?: string}): void;
}
