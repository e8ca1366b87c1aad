/**
 * npm run bench:processes — served against direct with each side in a process of its own (issue 31: the held-out
 * method, which read lower ratios than `npm run bench`, where the server and node-llama-cpp share the bench's process).
 * The server is `dist/cli.js serve --threads 1 --prompt-threads 1` with 1 or 4 sequences of 4,096; node-llama-cpp runs
 * alone in bench/directProcess.ts with one sequence of 4,096, 1 thread and the batch given (2048 as the held-out
 * harness had it, 128 as the server's). Alternating pairs:
 *  - prefill: a cold ~3,200-token prompt (the same token count on both sides) answered with one token, the whole
 *    request (client side) against direct evaluate + one sample;
 *  - decode: 128 greedy tokens, served delta spacing (client side, first to last) against the raw evaluate loop.
 * The client is bench/sseClient.mjs in its own low-priority process, as in `npm run bench` (`--client normal`: at the
 * server's priority, as a client on the same machine usually is).
 *
 * Usage: npm run build && npm run bench:processes [-- --model smollm2-135m] [--pairs N] [--prompt-tokens N]
 */
import {parseArgs} from "node:util";
import {benchModel} from "./benchModels.js";
import {countInputTokens, startCliServer} from "./cliServer.js";
import {DirectProcess} from "./directProcessClient.js";
import {words} from "./filler.js";
import {alternating, median, quantile} from "./pairs.js";
import {SseClientProcess} from "./sseClientProcess.js";

const {values: args} = parseArgs({options: {
    "model": {type: "string", default: "smollm2-135m"},
    "pairs": {type: "string", default: "3"},
    "prompt-tokens": {type: "string", default: "3200"},
    "sequences": {type: "string", default: "1,4"},
    "batches": {type: "string", default: "2048,128"},
    /** `normal`: the reading client at the server's priority, competing with it for the 2 cores. */
    "client": {type: "string", default: "low"}
}});
const pairs = Number(args.pairs);
const promptTokens = Number(args["prompt-tokens"]);
const contextSize = 4096;
const decodeTokens = 128;

type Served = {input: number, tokens: number, ms: number, rate: number};

/**
 * A served streamed answer, read by the low-priority client process: its prompt tokens, the whole request's time (with
 * one output token: the prompt and its first token, as the direct side times it) and its delta rate (first to last).
 */
async function served(client: SseClientProcess, input: string, maxTokens: number): Promise<Served> {
    const answer = await client.streamOnce({model: "m", input, max_output_tokens: maxTokens, temperature: 0, store: false});
    return {input: answer.input, tokens: answer.tokens, ms: answer.ms, rate: (answer.tokens - 1) / (answer.streamMs / 1000)};
}

const summary = (ratios: number[]) =>
    `${median(ratios).toFixed(3)} (${quantile(ratios, 0.25).toFixed(3)}–${quantile(ratios, 0.75).toFixed(3)})`;

async function main(): Promise<void> {
    const model = await benchModel(args.model);
    console.log(`processes: ${model.label}, 1 thread each side, ${pairs} alternating pairs, ${args.client}-priority client, `
        + `${new Date().toISOString().slice(0, 16)} UTC`);
    for (const sequences of args.sequences.split(",").map(Number))
        for (const batch of args.batches.split(",").map(Number)) {
            const server = await startCliServer(["--model", model.path, "--no-auth", "--store", "memory",
                "--threads", "1", "--prompt-threads", "1", "--context-size", String(contextSize), "--parallel", String(sequences),
                "--prompt-cache-max-bytes", "0"]);
            const direct = await DirectProcess.start(model.path, {contextSize, batch, threads: 1});
            const client = SseClientProcess.start(server.url, "none", {lowPriority: args.client !== "normal"});
            try {
                const wordsPerToken = promptTokens / await countInputTokens(server, words(promptTokens, 0));
                await served(client, words(50, 0), 8);
                await direct.ask("prefill", 50);
                // Greedy: every served run of this prompt writes the same answer, which may end before the limit (the random
                // model samples its end token); the direct loop generates as many tokens, so both time the same work.
                const decodePrompt = words(20, 5);
                const answerTokens = (await served(client, decodePrompt, decodeTokens)).tokens;
                if (answerTokens < 16)
                    throw new Error(`the decode prompt's greedy answer has ${answerTokens} tokens: too few to time`);
                const prefill: number[] = [];
                const decode: number[] = [];
                for (let pair = 0; pair < pairs; pair++) {
                    const input = `${pair} ${words(Math.round(promptTokens * wordsPerToken), pair + 7)}`;
                    // The same number of tokens on both sides (attention makes each token dearer than the last).
                    const tokens = await countInputTokens(server, input);
                    const [answer, directMs] = await alternating(pair, () => served(client, input, 1),
                        () => direct.ask("prefill", tokens));
                    prefill.push(directMs / answer.ms);
                    const [stream, directRate] = await alternating(pair, () => served(client, decodePrompt, decodeTokens),
                        () => direct.ask("decode", answerTokens));
                    decode.push(stream.rate / directRate);
                    console.error(`  [${sequences} seq, direct batch ${batch}] pair ${pair}: prefill served `
                        + `${answer.ms.toFixed(0)} ms `
                        + `(${answer.input} tokens), direct ${directMs.toFixed(0)} ms (${tokens}); decode served `
                        + `${stream.rate.toFixed(1)}, direct ${directRate.toFixed(1)} tok/s`);
                }
                console.log(`  served ${sequences} × ${contextSize}, direct batch ${batch}: prefill served/direct ${summary(prefill)}, `
                    + `decode ${summary(decode)}`);
            } finally {
                client.stop();
                server.stop();
                direct.stop();
            }
        }
}

main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
});
