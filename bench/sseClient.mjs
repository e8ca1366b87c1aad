/**
 * A streaming Responses client that runs in a worker thread, so its parsing does not share the
 * server's JavaScript thread: the benchmark then measures the server's overhead, not its own.
 */
// Plain JavaScript: worker threads do not inherit tsx's loader.
import {parentPort, workerData} from "node:worker_threads";

/** @returns {Promise<{tokens: number, ms: number, ttftMs: number, id: string}>} */
async function streamOnce(url, apiKey, body) {
    const started = performance.now();
    const res = await fetch(`${url}/responses`, {
        method: "POST",
        headers: {"content-type": "application/json", authorization: `Bearer ${apiKey}`},
        body: JSON.stringify({...body, stream: true})
    });
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    let ttftMs = -1;
    let final;
    for (;;) {
        const {value, done} = await reader.read();
        if (done)
            break;
        buffer += decoder.decode(value, {stream: true});
        let split;
        while ((split = buffer.indexOf("\n\n")) >= 0) {
            const block = buffer.slice(0, split);
            buffer = buffer.slice(split + 2);
            const type = /^event: (.*)$/m.exec(block)?.[1];
            if (type === "response.output_text.delta" && ttftMs < 0)
                ttftMs = performance.now() - started;
            if (type === "response.completed" || type === "response.incomplete")
                final = JSON.parse(block.slice(block.indexOf("data: ") + 6)).response;
        }
    }
    if (final == null)
        throw new Error(`stream ended without a terminal event (HTTP ${res.status})`);
    return {tokens: final.usage.output_tokens, ms: performance.now() - started, ttftMs, id: final.id};
}

// One persistent worker answers {bodies} messages, so connection set-up is paid once, before measuring.
const {url, apiKey} = workerData;
parentPort.on("message", ({bodies}) => {
    Promise.all(bodies.map((body) => streamOnce(url, apiKey, body))).then(
        (results) => parentPort.postMessage({results}),
        (error) => parentPort.postMessage({error: String(error)})
    );
});
