/**
 * The server side of `npm run soak`, in a process of its own so that its memory is measured alone: the real host
 * on stories260K (one thread), or a library of two or three shared models, with a small response-store cap, driven
 * over IPC by bench/soak.ts.
 * Messages in: `sample` (memory now, after a full GC when `gc` is set and --expose-gc was given), `snapshot`
 * (writes a V8 heap snapshot to `path`), `stop`. Out: `ready` with the URL, the answers to the above.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import v8 from "node:v8";
import {defaultConfig} from "../src/host/config.js";
import {LocalResponsesHost} from "../src/host/LocalResponsesHost.js";
import {models} from "../test/helpers/paths.js";
import {soakModelFiles} from "./soakModels.js";

export type SoakServerOptions = {
    apiKeys: string[], storeMaxEntries: number, conversationsMaxEntries: number, parallel: number,
    /** With 2 or 3: a model library of that many shared models (a folder of links) within `maxLoaded`; else stories260K alone. */
    models: number, maxLoaded: number,
    /** The operator's keys (`--admin-api-key`): the chaos agent unloads and pins with one. */
    adminApiKeys: string[]
};

export type MemorySample = {rss: number, heapUsed: number, heapTotal: number, external: number, arrayBuffers: number, gc: boolean};

type Request = {id: number, type: "sample", gc: boolean} | {id: number, type: "snapshot", path: string} | {id: number, type: "stop"};

async function main(): Promise<void> {
    const options = JSON.parse(process.argv[2]!) as SoakServerOptions;
    const base = defaultConfig();
    const modelsDir = options.models < 2 ? undefined : libraryFolder(options.models);
    const host = new LocalResponsesHost({
        ...base,
        port: 0,
        threads: 1,
        contextSize: 2048,
        parallel: options.parallel,
        apiKeys: options.apiKeys,
        adminApiKeys: options.adminApiKeys,
        store: {...base.store, maxEntries: options.storeMaxEntries},
        conversations: {...base.conversations, maxEntries: options.conversationsMaxEntries},
        library: modelsDir == null ? base.library : {...base.library, modelsDir, maxLoaded: options.maxLoaded}
    }, {log: (line) => process.stderr.write(`server: ${line}\n`)});
    // A library loads each model when a request names it; one model is loaded up front.
    if (options.models < 2)
        await host.loadModel(models.chatml);
    const url = await host.start();
    const send = (message: object) => process.send!(message);
    const gc = (globalThis as {gc?: () => void}).gc;

    const answer = async (request: Request) => {
        if (request.type === "sample") {
            if (request.gc)
                gc?.();
            const memory = process.memoryUsage();
            const sample: MemorySample = {
                rss: memory.rss, heapUsed: memory.heapUsed, heapTotal: memory.heapTotal, external: memory.external,
                arrayBuffers: memory.arrayBuffers, gc: request.gc && gc != null
            };
            send({id: request.id, sample});
        } else if (request.type === "snapshot")
            send({id: request.id, path: v8.writeHeapSnapshot(request.path)});
        else {
            await host.dispose();
            send({id: request.id, stopped: true});
            process.exit(0);
        }
    };
    process.on("message", (request: Request) => void answer(request));
    // The driver went away without saying stop: do not outlive it.
    process.on("disconnect", () => {
        void host.dispose().finally(() => process.exit(0));
    });
    send({type: "ready", url, modelsDir});
}

/** A folder of links to the first `count` shared models, removed when the process exits. */
function libraryFolder(count: number): string {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), "lr-soak-models-"));
    for (const file of soakModelFiles.slice(0, count))
        fs.symlinkSync(file, path.join(folder, path.basename(file)));
    process.on("exit", () => fs.rmSync(folder, {recursive: true, force: true}));
    return folder;
}

main().catch((error: unknown) => {
    process.stderr.write(`soak server: ${(error as Error)?.stack ?? String(error)}\n`);
    process.exit(1);
});
