import {createRequire} from "node:module";
import path from "node:path";
import {fileURLToPath} from "node:url";
import {Worker, type WorkerOptions} from "node:worker_threads";

/**
 * Starts the worker thread whose entry is `name`, beside the module that starts it (`moduleUrl`: that module's
 * `import.meta.url`). In the CommonJS bundles, where `import.meta.url` is undefined (scripts/build.mjs), that is
 * dist/<name>.js, built beside them. From source (the tests, through tsx) it is the TypeScript file, required after
 * tsx's CommonJS loader is registered in the worker: Node refuses a `.ts` entry before the loader that `--import tsx`
 * gives the worker sees it, and finds no `.js` file there.
 */
export function startWorker(name: string, moduleUrl: string | undefined, options: WorkerOptions = {}): Worker {
    if (moduleUrl == null)
        return new Worker(path.join(__dirname, `${name}.js`), options);
    const entry = path.join(path.dirname(fileURLToPath(moduleUrl)), `${name}.ts`);
    const tsx = createRequire(moduleUrl).resolve("tsx/cjs/api");
    return new Worker(`require(${JSON.stringify(tsx)}).register(); require(${JSON.stringify(entry)});`, {...options, eval: true});
}
