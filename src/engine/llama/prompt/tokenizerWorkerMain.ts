/**
 * Worker-thread entry (bundled as dist/tokenizerWorkerMain.js): the model's vocabulary, loaded on its own, tokenizing the
 * long text segments of prompts off the main thread. Tokenizing is a synchronous native call of about 1 µs per
 * character: a 15 MB input held every other request for 8–17 s when it ran on the event loop.
 */
import {parentPort, workerData} from "node:worker_threads";
import {loadEngineBackend} from "../../models/loadBinding.js";
import type {TokenizeReply, TokenizeRequest, TokenizerWorkerData} from "./TokenizerWorker.js";

async function main(): Promise<void> {
    const {modelPath, gpu} = workerData as TokenizerWorkerData;
    const port = parentPort!;
    const llama = await loadEngineBackend(gpu, 1);
    const model = await llama.loadModel({modelPath, vocabOnly: true});
    port.on("message", ({id, text, specialTokens, options}: TokenizeRequest) => {
        let reply: TokenizeReply;
        try {
            // The tokenizer is an overload pair; the request carries the arguments of one of its calls unchanged.
            // eslint-disable-next-line @typescript-eslint/unbound-method -- called with `model` as `this` below
            const tokenize = model.tokenize as (text: string, specialTokens?: boolean | "builtin",
                options?: "trimLeadingSpace") => number[];
            const tokens = Uint32Array.from(tokenize.call(model, text, specialTokens, options));
            reply = {id, tokens};
            port.postMessage(reply, [tokens.buffer]);
        } catch (error) {
            reply = {id, error: error instanceof Error ? error.message : String(error)};
            port.postMessage(reply);
        }
    });
    port.postMessage({ready: true});
}

main().catch((error: unknown) => {
    parentPort?.postMessage({failed: error instanceof Error ? error.message : String(error)});
});
