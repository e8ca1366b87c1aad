/**
 * npm run bench:constrained — constrained decoding at speed (issue 31 item 2): streamed tokens/s of the same served
 * model answering freely, under a strict `json_schema` (`text.format`), and in a forced function call (its arguments
 * are generated under the call's JSON-schema grammar), one after the other in rotating order on one `dist/cli.js
 * serve` (1 thread, 1 sequence), after a warm-up. Each request is timed twice over: cold (the whole request: its prompt,
 * which for the forced call holds the tool's declaration, and its answer) and decoding alone (the same body sent again
 * right after a 1-token request put its prompt in the sequence, so only the answer is evaluated). Prints each mode's
 * median tokens/s both ways and its ratio to free decoding in the same round (median, quartiles).
 *
 * Usage: npm run build && npm run bench:constrained [-- --rounds N] [--vocab qwen2]
 *   --vocab NAME: the synthetic SmolLM2-135M body with that real vocabulary (generated once into
 *   ~/.cache/local-responses/models by ../shared/models/make-synthetic-model.mjs): a grammar is checked against every
 *   token of the vocabulary, so its cost shows at 151,936 tokens (qwen2) and hardly at stories260K's 512.
 */
import path from "node:path";
import {startCliServer} from "./cliServer.js";
import {median, quantile} from "./pairs.js";
import {sseData} from "./sseData.js";
import {storySchema} from "./storySchema.js";
import {models} from "../test/helpers/paths.js";
import {syntheticModel} from "../test/helpers/syntheticModel.js";

type Mode = "free" | "json_schema" | "forced_call";
const modes: Mode[] = ["free", "json_schema", "forced_call"];
const argument = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const rounds = Number(argument("--rounds") ?? 0) || 8;
const vocab = argument("--vocab");
const warmUp = 1;
const maxTokens = 96;

function body(mode: Mode, round: number): Record<string, unknown> {
    const common = {
        model: "bench", stream: true, store: false, temperature: 0.8, seed: round, max_output_tokens: maxTokens,
        input: `Round ${round}. Write a short story about a dog and a ball.`
    };
    if (mode === "json_schema")
        return {...common, text: {format: {type: "json_schema", name: "story", schema: storySchema, strict: true}}};
    if (mode === "forced_call")
        return {...common, tools: [{type: "function", name: "tell_story", parameters: storySchema, strict: true}], tool_choice: "required"};
    return common;
}

/**
 * Output tokens per second of the whole request. Not from the streamed deltas: strict output is held until it
 * validates (docs/api.md, Structured output), so its deltas all arrive at the end. `maxOutputTokens` 1 only evaluates
 * the prompt (and is not timed).
 */
async function timeOne(url: string, mode: Mode, round: number, maxOutputTokens = maxTokens): Promise<number> {
    const started = performance.now();
    const response = await fetch(`${url}/responses`, {
        method: "POST", headers: {"content-type": "application/json"},
        body: JSON.stringify({...body(mode, round), max_output_tokens: maxOutputTokens})
    });
    if (!response.ok || response.body == null)
        throw new Error(`${mode}: HTTP ${response.status} ${await response.text()}`);
    let tokens = 0;
    type Terminal = {response?: {usage?: {output_tokens: number}}};
    for await (const event of sseData(response.body) as AsyncGenerator<Terminal>)
        tokens = event.response?.usage?.output_tokens ?? tokens;
    return tokens < 3 ? Number.NaN : tokens / ((performance.now() - started) / 1000);
}

/** The model to serve: stories260K, or the synthetic SmolLM2-135M body with a real vocabulary. */
const modelFile = () => (vocab == null ? Promise.resolve(models.chatml) : syntheticModel("smollm2-135m", vocab));

async function main(): Promise<void> {
    const model = await modelFile();
    const server = await startCliServer(["--model", model, "--model-alias", "bench", "--no-auth", "--store", "memory",
        "--parallel", "1", "--context-size", "2048", "--threads", "1", "--prompt-threads", "1", "--prompt-cache-max-bytes", "0"]);
    try {
        const cold = new Map<Mode, number[]>(modes.map((mode) => [mode, []]));
        const decoding = new Map<Mode, number[]>(modes.map((mode) => [mode, []]));
        for (let round = 0; round < warmUp + rounds; round++) {
            const order = modes.map((_, index) => modes[(index + round) % modes.length]!);
            for (const mode of order) {
                const coldRate = await timeOne(server.url, mode, round);
                await timeOne(server.url, mode, round + 1000, 1);
                const decodingRate = await timeOne(server.url, mode, round + 1000);
                if (round < warmUp)
                    continue;
                cold.get(mode)!.push(coldRate);
                decoding.get(mode)!.push(decodingRate);
            }
        }
        console.log(`constrained: ${path.basename(model)}, 1 thread, ${rounds} rounds of up to ${maxTokens} tokens (rotating order), `
            + new Date().toISOString().slice(0, 16));
        report("whole request, cold prompt", cold);
        report("decoding alone, prompt already evaluated", decoding);
    } finally {
        server.stop();
    }
}

/** Each mode's median tokens/s and its ratio to free decoding in the same round. */
function report(title: string, rates: Map<Mode, number[]>): void {
    const free = rates.get("free")!;
    console.log(`  ${title}:`);
    for (const mode of modes) {
        const runs = rates.get(mode)!;
        const ratios = runs.map((rate, index) => rate / free[index]!)
            .filter((ratio) => Number.isFinite(ratio));
        const timed = runs.filter((rate) => Number.isFinite(rate));
        const spread = ratios.length === 0 ? "—" : `${quantile(ratios, 0.25).toFixed(2)}–${quantile(ratios, 0.75).toFixed(2)}`;
        const ratio = ratios.length === 0 ? "—" : median(ratios).toFixed(2);
        console.log(`    ${mode.padEnd(12)} ${timed.length === 0 ? "—" : median(timed).toFixed(1)} tok/s`
            + ` (×${ratio} of free, quartiles ${spread}; ${timed.length}/${runs.length} timed)`);
    }
}

main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
});
