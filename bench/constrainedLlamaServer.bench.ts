/**
 * npm run bench:constrained-llama-server — strict JSON-schema output against llama.cpp's own server (issue 31 item 2):
 * both servers answer the same Chat Completions body (`response_format: json_schema`, greedy, up to 96 tokens) and the
 * same body without it, on the same model file, 1 thread each, in alternating pairs. Each body is first sent with
 * `max_tokens: 1` (untimed), so the timed request finds its prompt in the sequence and measures decoding alone; tokens/s
 * = `usage.completion_tokens` / the request's time. Prints each side's constrained and free tokens/s, constrained ÷ free
 * on each side, and ours ÷ llama-server's for each (medians of the pairs, quartiles).
 *
 * Usage: npm run bench:constrained-llama-server [-- --model stories260K|smollm2-135m-qwen2|…] [--pairs N]
 * On the random-weight synthetic models llama-server may refuse an answer its parser cannot read; such a pair is
 * counted and left out.
 */
import {parseArgs} from "node:util";
import {startLlamaServer} from "../test/helpers/llamaServer.js";
import {benchModel} from "./benchModels.js";
import {startCliServer} from "./cliServer.js";
import {alternating, median, quantile} from "./pairs.js";
import {storySchema} from "./storySchema.js";

const {values: args} = parseArgs({options: {
    model: {type: "string", default: "stories260K"},
    pairs: {type: "string", default: "8"}
}});
const pairs = Number(args.pairs);
const maxTokens = 96;
const contextSize = 4096;

type Mode = "constrained" | "free";

function body(mode: Mode, index: number, tokens: number): Record<string, unknown> {
    return {
        model: "m", temperature: 0, max_tokens: tokens, stream: false,
        messages: [{role: "user", content: `${index}. Write a short story about a dog and a ball, as JSON.`}],
        ...mode === "constrained"
            && {response_format: {type: "json_schema", json_schema: {name: "story", schema: storySchema, strict: true}}}
    };
}

/** Decoding tokens/s of one answer (its prompt evaluated first by an untimed 1-token request); NaN if refused. */
async function decodingRate(base: string, mode: Mode, index: number): Promise<number> {
    const send = (tokens: number) => fetch(`${base}/v1/chat/completions`, {
        method: "POST", headers: {"content-type": "application/json"}, body: JSON.stringify(body(mode, index, tokens))
    });
    await (await send(1)).text();
    const started = performance.now();
    const response = await send(maxTokens);
    const answer = await response.json() as {usage?: {completion_tokens: number}};
    const seconds = (performance.now() - started) / 1000;
    const tokens = answer.usage?.completion_tokens ?? 0;
    return response.ok && tokens >= 8 ? tokens / seconds : Number.NaN;
}

const spread = (values: number[]) => {
    const finite = values.filter(Number.isFinite);
    return finite.length === 0 ? "—"
        : `${median(finite).toFixed(2)} (${quantile(finite, 0.25).toFixed(2)}–${quantile(finite, 0.75).toFixed(2)}, n=${finite.length})`;
};

async function main(): Promise<void> {
    const model = await benchModel(args.model);
    const llamaServer = await startLlamaServer({
        model: model.path, slots: 1, contextPerSlot: contextSize, extraArgs: ["-fa", "off"], build: "release"
    });
    const ours = await startCliServer(["--model", model.path, "--no-auth", "--store", "memory", "--parallel", "1",
        "--context-size", String(contextSize), "--threads", "1", "--prompt-threads", "1", "--prompt-cache-max-bytes", "0"]);
    const oursBase = ours.url.replace(/\/v1\/?$/, "");
    try {
        const sides = () => ({constrained: [] as number[], free: [] as number[]});
        const rates = {ours: sides(), theirs: sides()};
        for (let pair = -1; pair < pairs; pair++)
            for (const mode of ["constrained", "free"] as const) {
                const [mine, theirs] = await alternating(pair + 1,
                    () => decodingRate(oursBase, mode, pair), () => decodingRate(llamaServer.url, mode, pair));
                if (pair < 0)
                    continue;
                rates.ours[mode].push(mine);
                rates.theirs[mode].push(theirs);
            }
        const ratio = (a: number[], b: number[]) => a.map((value, index) => value / b[index]!);
        console.log(`constrained vs llama-server: ${model.label}, 1 thread, greedy, up to ${maxTokens} tokens, decoding alone, `
            + `${pairs} alternating pairs, ${new Date().toISOString().slice(0, 16)} UTC`);
        console.log(`  tokens/s  ours: constrained ${spread(rates.ours.constrained)}, free ${spread(rates.ours.free)}`);
        console.log(`  tokens/s  llama-server: constrained ${spread(rates.theirs.constrained)}, free ${spread(rates.theirs.free)}`);
        console.log(`  constrained ÷ free: ours ${spread(ratio(rates.ours.constrained, rates.ours.free))}, `
            + `llama-server ${spread(ratio(rates.theirs.constrained, rates.theirs.free))}`);
        console.log(`  ours ÷ llama-server: constrained ${spread(ratio(rates.ours.constrained, rates.theirs.constrained))}, `
            + `free ${spread(ratio(rates.ours.free, rates.theirs.free))}`);
    } finally {
        ours.stop();
        await llamaServer.stop();
    }
}

main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
});
