/**
 * node --import tsx bench/upstream.bench.ts — the upstream engine's overhead: the same streamed generation sent
 * straight to llama-server's Chat Completions, and through this server (`dist/cli.js serve --engine upstream`, its
 * own process) as a Responses stream. llama-server: stories260K, 1 slot, 1 thread, --ignore-eos so every answer is
 * `maxTokens` long. Pairs alternate their order; the figures are medians of the per-pair ratios (this VM drifts).
 * `MODEL=smollm2-135m` runs it on the synthetic full-size model with a ~1,600-token prompt per request, where the time
 * to first token is a prompt's evaluation rather than two loopback hops.
 * Needs `npm run build` (dist/cli.js) and llama-server (scripts/build-llama-server.sh, through the test helper).
 */
import {startLlamaServer} from "../test/helpers/llamaServer.js";
import {models} from "../test/helpers/paths.js";
import {syntheticModel} from "../test/helpers/syntheticModel.js";
import {startCliServer} from "./cliServer.js";
import {median} from "./pairs.js";
import {sseData} from "./sseData.js";

/** `smollm2-135m`: the synthetic full-size model, where a prompt's evaluation is a real time to first token. */
const modelName = process.env.MODEL ?? "stories260K";
const fullSize = modelName !== "stories260K";
const maxTokens = Number(process.env.MAX_TOKENS ?? (fullSize ? 100 : 400));
const pairs = Number(process.env.PAIRS ?? (fullSize ? 6 : 12));
const story = "Tell me a long story about a little dog who found a ball.";
/** On the full-size model a ~1,600-token prompt, different for every request (no cached prefix on either path). */
const words = ["the", "little", "dog", "ran", "to", "park", "and", "found", "a", "red", "ball"];
const promptFor = (index: number) => fullSize
    ? `${index} ${Array.from({length: 1300}, (_, word) => words[(word * 7 + index) % 11]).join(" ")}` : story;

type Run = {ttftMs: number, tokensPerSecond: number, deltas: number};

/** Streams one request, reading SSE `data:` lines; the first delta's time and the delta rate after it. */
async function measure(url: string, body: unknown, headers: Record<string, string>, isDelta: (data: any) => boolean): Promise<Run> {
    const started = performance.now();
    const response = await fetch(url,
        {method: "POST", headers: {"content-type": "application/json", ...headers}, body: JSON.stringify(body)});
    let first = -1;
    let last = -1;
    let deltas = 0;
    for await (const event of sseData(response.body!)) {
        if (isDelta(event)) {
            deltas++;
            last = performance.now();
            if (first < 0)
                first = last;
        }
    }
    return {ttftMs: first - started, tokensPerSecond: (deltas - 1) / ((last - first) / 1000), deltas};
}


async function main(): Promise<void> {
    const upstream = await startLlamaServer({
        model: fullSize ? await syntheticModel(modelName as "smollm2-135m") : models.chatml, slots: 1, ignoreEos: true, contextPerSlot: 4096
    });
    const server = await startCliServer([
        "--engine", "upstream", "--upstream", upstream.url, "--no-auth", "--store", "memory"
    ])
        .catch(async (error: unknown) => {
            await upstream.stop();
            throw error;
        });
    const base = server.url;

    try {
        let requests = 0;
        const direct = () => measure(`${upstream.url}/v1/chat/completions`, {
            model: "m", messages: [{role: "user", content: promptFor(requests++)}], max_tokens: maxTokens, stream: true, temperature: 0
        }, {}, (data) => typeof data.choices?.[0]?.delta?.content === "string" && data.choices[0].delta.content !== "");
        const served = () => measure(`${base}/responses`, {
            model: "m", input: promptFor(requests++), max_output_tokens: maxTokens, stream: true, temperature: 0, store: false
        }, {}, (data) => data.type === "response.output_text.delta");
        await direct();
        await served();
        const rate: number[] = [];
        const ttft: number[] = [];
        const rows: string[] = [];
        for (let pair = 0; pair < pairs; pair++) {
            const [a, b] = pair % 2 === 0 ? [await direct(), await served()] : (([s, d]) => [d, s])([await served(), await direct()]);
            rate.push(b.tokensPerSecond / a.tokensPerSecond);
            ttft.push(a.ttftMs / b.ttftMs);
            rows.push(
                `direct ${a.tokensPerSecond.toFixed(0)} tok/s ttft ${a.ttftMs.toFixed(1)} ms (${a.deltas}) | `
                    + `served ${b.tokensPerSecond.toFixed(0)} tok/s ttft ${b.ttftMs.toFixed(1)} ms (${b.deltas})`
            );
        }
        console.log(rows.join("\n"));
        console.log(
            `streamed tokens/s through this server / straight to llama-server: median ${median(rate).toFixed(3)} over ${pairs} pairs`
        );
        console.log(`time to first token, straight / through this server: median ${median(ttft).toFixed(3)} (1.0 = no added latency)`);
    } finally {
        server.stop();
        await upstream.stop();
    }
}

main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
});
