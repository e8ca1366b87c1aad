/**
 * Worker-thread entry (bundled as dist/modelFitWorkerMain.js): reads a model file's GGUF header (`readModelHeader`, plain
 * JavaScript) for `ModelFitWorker`, one request at a time, off the server's event loop and within the heap the worker
 * was started with. The fit itself is computed on the server's thread from what this sends back.
 */
import {parentPort} from "node:worker_threads";
import {readModelHeader} from "./modelFit.js";
import type {ModelFitReply, ModelFitRequest} from "./ModelFitWorker.js";

const port = parentPort!;
port.on("message", ({id, uri}: ModelFitRequest) => {
    readModelHeader(uri).then(
        (header) => port.postMessage({id, header} satisfies ModelFitReply),
        (error: unknown) => port.postMessage({id, error: error instanceof Error ? error.message : String(error)} satisfies ModelFitReply)
    );
});
