/**
 * A streaming Responses client in a separate, low-priority process: its parsing neither shares the server's
 * JavaScript thread nor takes the core the server needs on a 2-core machine, so the benchmark measures the
 * server's overhead rather than its own. It speaks plain node:http over one keep-alive connection per concurrent
 * stream (undici's fetch costs about a millisecond more per request, which would be counted as serving overhead).
 */
// Plain JavaScript, run as its own process (see serving.bench.ts for why).
import http from "node:http";

const [url, apiKey] = process.argv.slice(2);
const agent = new http.Agent({keepAlive: true});

/** Responses held unread until the benchmark says their generation ended (`{resume: true}`). */
const held = new Set();

/**
 * @returns {Promise<{tokens: number, input: number, cached: number, ms: number, ttftMs: number, streamMs: number, id: string}>}
 * `ms` is the whole request; `ttftMs` the time to the first text delta; `streamMs` from the first to the last delta.
 */

function streamOnce(body, hold) {
    return new Promise((resolve, reject) => {
        const started = performance.now();
        let responded = false;
        const request = http.request(`${url}/responses`, {
            method: "POST",
            agent,
            headers: {"content-type": "application/json", authorization: `Bearer ${apiKey}`}
        }, (res) => {
            responded = true;
            res.setEncoding("utf8");
            if (hold) {
                res.pause();
                held.add(res);
            }
            let buffer = "";
            let firstDelta = -1;
            let lastDelta = -1;
            let final;
            res.on("data", (chunk) => {
                buffer += chunk;
                let split;
                while ((split = buffer.indexOf("\n\n")) >= 0) {
                    const block = buffer.slice(0, split);
                    buffer = buffer.slice(split + 2);
                    const type = block.slice(7, block.indexOf("\n"));
                    if (type === "response.output_text.delta") {
                        lastDelta = performance.now();
                        if (firstDelta < 0)
                            firstDelta = lastDelta;
                    } else if (type === "response.completed" || type === "response.incomplete")
                        final = JSON.parse(block.slice(block.indexOf("data: ") + 6)).response;
                }
            });
            res.on("end", () => {
                if (final == null)
                    return reject(new Error(`stream ended without a terminal event (HTTP ${res.statusCode})`));
                const usage = final.usage;
                resolve({
                    tokens: usage.output_tokens,
                    input: usage.input_tokens,
                    cached: usage.input_tokens_details.cached_tokens,
                    ms: performance.now() - started,
                    ttftMs: firstDelta - started,
                    streamMs: lastDelta - firstDelta,
                    id: final.id
                });
            });
            res.on("error", reject);
        });
        request.on("error", (error) => {
            // A kept-alive socket that the server closed as idle (after its 5 s keepAliveTimeout; a model reload between
            // placements takes about that long) can fail the next request at once: Node's documentation advises sending
            // it again on a new socket. Nothing was generated, so the retry measures the same work.
            if (request.reusedSocket && error.code === "ECONNRESET" && !responded)
                streamOnce(body, hold).then(resolve, reject);
            else
                reject(error);
        });
        request.end(JSON.stringify({...body, stream: true}));
    });
}

// One persistent process answers {bodies} messages, so connection set-up is paid once, before measuring.
// With `hold` it reads nothing until told (the server's writes wait in the socket buffers meanwhile).
process.on("message", ({bodies, hold = false, resume = false}) => {
    if (resume) {
        for (const res of held)
            res.resume();
        held.clear();
        return;
    }
    Promise.all(bodies.map((body) => streamOnce(body, hold))).then(
        (results) => process.send({results}),
        (error) => process.send({error: String(error)})
    );
});
process.on("disconnect", () => process.exit(0));
