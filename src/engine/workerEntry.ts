import path from "node:path";
import {fileURLToPath} from "node:url";

/**
 * A worker thread's entry file `name`: built beside the CommonJS bundles as dist/<name>.js (scripts/build.mjs); from
 * source (tests run through tsx, whose loader a worker inherits with the process's execArgv) the TypeScript file in the
 * folder of `moduleUrl`, the caller's `import.meta.url` (undefined in the bundles).
 */
export function workerEntry(name: string, moduleUrl: string | undefined): string {
    if (typeof __dirname === "string")
        return path.join(__dirname, `${name}.js`);
    return path.join(path.dirname(fileURLToPath(moduleUrl!)), `${name}.ts`);
}
