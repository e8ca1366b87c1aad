/**
 * Worker-thread entry (bundled as dist/modelFitWorkerMain.js): reads a model file's GGUF header and estimates its fit
 * (`estimateModelFit`) for `ModelFitWorker`, one request at a time, off the server's event loop and within the heap
 * the worker was started with.
 */
import {parentPort} from "node:worker_threads";
import {estimateModelFit} from "./modelFit.js";
import type {ModelFitReply, ModelFitRequest} from "./ModelFitWorker.js";

const port = parentPort!;
port.on("message", ({id, options}: ModelFitRequest) => {
    estimateModelFit(options).then(
        (fit) => port.postMessage({id, fit} satisfies ModelFitReply),
        (error: unknown) => port.postMessage({id, error: error instanceof Error ? error.message : String(error)} satisfies ModelFitReply)
    );
});
