/**
 * A streaming Responses client in a separate, low-priority process: its parsing neither shares the server's
 * JavaScript thread nor takes the core the server needs on a 2-core machine, so the benchmark measures the
 * server's overhead rather than its own.
 */
// Plain JavaScript, run as its own process (see serving.bench.ts for why).

/** @returns {Promise<{tokens: number, input: number, cached: number, ms: number, ttftMs: number, id: string}>} */
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
    const usage = final.usage;
    return {tokens: usage.output_tokens, input: usage.input_tokens, cached: usage.input_tokens_details.cached_tokens, ms: performance.now() - started, ttftMs, id: final.id};
}

// One persistent process answers {bodies} messages, so connection set-up is paid once, before measuring.
const [url, apiKey] = process.argv.slice(2);
process.on("message", ({bodies}) => {
    Promise.all(bodies.map((body) => streamOnce(url, apiKey, body))).then(
        (results) => process.send({results}),
        (error) => process.send({error: String(error)})
    );
});
