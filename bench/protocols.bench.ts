/**
 * npm run bench:protocols — the three APIs on one generation path: the same streamed request as Responses
 * (`/v1/responses`), Chat Completions (`/v1/chat/completions`) and Anthropic Messages (`/v1/messages`), one after the
 * other in rotating order against one `dist/cli.js serve` (stories260K, 1 thread, 1 sequence), after a warm-up.
 * Prints, per protocol, the median time to first text delta and streamed tokens/s (from the first delta to the last),
 * and each one's ratio to Responses in the same rotation (median of the per-round ratios, with quartiles).
 * The prompt is a fixed cold one (`filler`) and a new last word each round, so every request evaluates its prompt.
 *
 * Usage: npm run build && npm run bench:protocols [-- --rounds N]
 */
import {startCliServer} from "./cliServer.js";
import {median, quantile} from "./pairs.js";
import {sseData} from "./sseData.js";
import {models} from "../test/helpers/paths.js";

type Timing = {ttftMs: number, tokensPerSecond: number, tokens: number};
type Protocol = "responses" | "chat_completions" | "messages";

const protocols: Protocol[] = ["responses", "chat_completions", "messages"];
const maxTokens = 200;
const rounds = Number(process.argv[process.argv.indexOf("--rounds") + 1] ?? 0) || 12;
const warmUp = 2;

/** One streamed request of `protocol`: its path, body, and how its stream names text deltas and its usage. */
function request(protocol: Protocol, text: string): {path: string, body: Record<string, unknown>} {
    const common = {model: "stories260K", stream: true, temperature: 0};
    if (protocol === "responses")
        return {path: "/responses", body: {...common, input: text, max_output_tokens: maxTokens, store: false}};
    if (protocol === "chat_completions")
        return {
            path: "/chat/completions",
            body: {...common, messages: [{role: "user", content: text}], max_tokens: maxTokens, stream_options: {include_usage: true}}
        };
    return {path: "/messages", body: {...common, messages: [{role: "user", content: text}], max_tokens: maxTokens}};
}

function textDelta(protocol: Protocol, event: any): boolean {
    if (protocol === "responses")
        return event.type === "response.output_text.delta";
    if (protocol === "chat_completions")
        return typeof event.choices?.[0]?.delta?.content === "string" && event.choices[0].delta.content !== "";
    return event.type === "content_block_delta" && event.delta?.type === "text_delta";
}

function outputTokens(protocol: Protocol, event: any): number | undefined {
    if (protocol === "responses")
        return event.response?.usage?.output_tokens;
    if (protocol === "chat_completions")
        return event.usage?.completion_tokens;
    return event.type === "message_delta" ? event.usage?.output_tokens : undefined;
}

async function timeOne(url: string, protocol: Protocol, text: string): Promise<Timing> {
    const {path, body} = request(protocol, text);
    const started = performance.now();
    const response = await fetch(`${url}${path}`,
        {method: "POST", headers: {"content-type": "application/json"}, body: JSON.stringify(body)});
    if (!response.ok || response.body == null)
        throw new Error(`${protocol}: HTTP ${response.status} ${await response.text()}`);
    let first = -1;
    let last = -1;
    let tokens = 0;
    for await (const event of sseData(response.body)) {
        if (textDelta(protocol, event)) {
            last = performance.now();
            if (first < 0)
                first = last;
        }
        tokens = outputTokens(protocol, event) ?? tokens;
    }
    if (first < 0 || tokens < 2)
        throw new Error(`${protocol}: no streamed answer (${tokens} tokens)`);
    return {ttftMs: first - started, tokensPerSecond: (tokens - 1) / ((last - first) / 1000), tokens};
}

async function main(): Promise<void> {
    const server = await startCliServer(["--model", models.chatml, "--no-auth", "--store", "memory", "--parallel", "1",
        "--threads", "1", "--prompt-threads", "1", "--prompt-cache-max-bytes", "0"]);
    try {
        const prompt = "Once upon a time there was a little dog who found a ball in the garden. ".repeat(20);
        const timings = new Map<Protocol, Timing[]>(protocols.map((protocol) => [protocol, []]));
        for (let round = 0; round < warmUp + rounds; round++) {
            // Rotating order: each protocol goes first, second and third equally often.
            const order = protocols.map((_, index) => protocols[(index + round) % protocols.length]!);
            for (const protocol of order) {
                const timing = await timeOne(server.url, protocol, `${prompt} Round ${round}, ${protocol}: tell me the story.`);
                if (round >= warmUp)
                    timings.get(protocol)!.push(timing);
            }
        }
        const base = timings.get("responses")!;
        console.log(
            `protocols: stories260K, 1 thread, ${rounds} rounds of ${maxTokens} tokens (rotating `
                + `order), ${new Date().toISOString().slice(0, 10)}`
        );
        for (const protocol of protocols) {
            const runs = timings.get(protocol)!;
            const ttftRatios = runs.map((run, index) => run.ttftMs / base[index]!.ttftMs);
            const rateRatios = runs.map((run, index) => run.tokensPerSecond / base[index]!.tokensPerSecond);
            const spread = (values: number[]) => `${quantile(values, 0.25).toFixed(2)}–${quantile(values, 0.75).toFixed(2)}`;
            console.log(`  ${protocol.padEnd(17)} ttft ${median(runs.map((run) => run.ttftMs)).toFixed(1)} ms `
                + `(×${median(ttftRatios).toFixed(2)} of responses,`
                + ` quartiles ${spread(ttftRatios)}), ${median(runs.map((run) => run.tokensPerSecond)).toFixed(0)} tok/s`
                + ` (×${median(rateRatios).toFixed(2)}, quartiles ${spread(rateRatios)})`);
        }
    } finally {
        server.stop();
    }
}

main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
});
