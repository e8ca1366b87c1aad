/**
 * npm run bench:speculative — speculative decoding (issue 31 item 3): greedy streamed tokens/s of one model served three
 * ways side by side, `--speculative off`, `lookup` (n-grams of the prompt) and `draft` (a draft model; here the model
 * itself, which bounds the mechanism's best case: every prediction right, at a second model's cost), on two workloads:
 * - copy: the model's own greedy answer placed in the prompt and asked for again (what an edit or a rewrite does);
 * - no-copy: a question whose answer the prompt does not hold (what prediction costs when little is accepted).
 * Requests rotate over the three servers each round (1 thread, 1 sequence each), after a warm-up. Prints each mode's
 * median tokens/s (from the first output delta to the end), its ratio to `off` in the same round (median, quartiles)
 * and its acceptance rate (accepted / drafted, from `GET /v1/status`).
 *
 * Usage: npm run build && npm run bench:speculative [-- --model stories260K|smollm2-135m-qwen2|…] [--rounds N] [--max-tokens N]
 */
import {parseArgs} from "node:util";
import {benchModel} from "./benchModels.js";
import {startCliServer, type CliServer} from "./cliServer.js";
import {median, quantile} from "./pairs.js";
import {sseData} from "./sseData.js";

const {values: args} = parseArgs({options: {
    "model": {type: "string", default: "stories260K"},
    "rounds": {type: "string", default: "6"},
    "max-tokens": {type: "string", default: "160"}
}});
const rounds = Number(args.rounds);
const maxTokens = Number(args["max-tokens"]);
const warmUp = 1;

type Mode = "off" | "lookup" | "draft";
const modes: Mode[] = ["off", "lookup", "draft"];
type Workload = "copy" | "no-copy";
type Item = {role: "user" | "assistant", content: string};

const ask = "Tell me a story about a cat who finds a box.";

/** A greedy streamed answer: its text, its output tokens and the seconds from its first delta to its end. */
async function answer(server: CliServer, input: Item[]): Promise<{text: string, tokens: number, seconds: number}> {
    const response = await fetch(`${server.url}/responses`, {
        method: "POST", headers: {"content-type": "application/json"},
        body: JSON.stringify({model: "bench", input, stream: true, store: false, temperature: 0, max_output_tokens: maxTokens})
    });
    if (!response.ok || response.body == null)
        throw new Error(`HTTP ${response.status} ${await response.text()}`);
    let first = 0;
    let text = "";
    let tokens = 0;
    type Event = {type: string, delta?: string, response?: {usage?: {output_tokens: number}}};
    for await (const event of sseData(response.body) as AsyncGenerator<Event>) {
        if (event.type === "response.output_text.delta") {
            first ||= performance.now();
            text += event.delta ?? "";
        }
        tokens = event.response?.usage?.output_tokens ?? tokens;
    }
    return {text, tokens, seconds: (performance.now() - first) / 1000};
}

/** The engine's drafted and accepted totals (`GET /v1/status`), zero with speculative decoding off. */
async function predictions(server: CliServer): Promise<{drafted: number, accepted: number}> {
    const status = await (await fetch(`${server.url}/status`)).json() as {
        engine: {speculative?: {drafted_tokens: number, accepted_tokens: number}}
    };
    return {drafted: status.engine.speculative?.drafted_tokens ?? 0, accepted: status.engine.speculative?.accepted_tokens ?? 0};
}

async function main(): Promise<void> {
    const model = await benchModel(args.model);
    const common = ["--model", model.path, "--model-alias", "bench", "--no-auth", "--store", "memory", "--parallel", "1",
        "--context-size", "4096", "--threads", "1", "--prompt-threads", "1", "--prompt-cache-max-bytes", "0"];
    const servers = new Map<Mode, CliServer>();
    try {
        servers.set("off", await startCliServer([...common, "--speculative", "off"]));
        servers.set("lookup", await startCliServer([...common, "--speculative", "lookup"]));
        servers.set("draft", await startCliServer([...common, "--speculative", "draft", "--draft-model", model.path]));
        const story = (await answer(servers.get("off")!, [{role: "user", content: ask}])).text;
        const inputs: Record<Workload, Item[]> = {
            "copy": [{role: "user", content: ask}, {role: "assistant", content: story}, {role: "user", content: ask}],
            "no-copy": [{role: "user", content: "Write a poem about the sea, the wind and a lighthouse keeper."}]
        };
        console.log(`speculative: ${model.label}, 1 thread, greedy, up to ${maxTokens} tokens, ${rounds} rounds (rotating), `
            + `draft model = the model itself, ${new Date().toISOString().slice(0, 16)} UTC`);
        for (const workload of ["copy", "no-copy"] as const) {
            const rates = new Map<Mode, number[]>(modes.map((mode) => [mode, []]));
            const totals = new Map<Mode, {drafted: number, accepted: number}>(modes.map((mode) => [mode, {drafted: 0, accepted: 0}]));
            for (let round = 0; round < warmUp + rounds; round++)
                for (const mode of modes.map((_, index) => modes[(index + round) % modes.length]!)) {
                    const server = servers.get(mode)!;
                    const before = await predictions(server);
                    const {tokens, seconds} = await answer(server, inputs[workload]);
                    const after = await predictions(server);
                    if (round < warmUp)
                        continue;
                    rates.get(mode)!.push(tokens / seconds);
                    const total = totals.get(mode)!;
                    total.drafted += after.drafted - before.drafted;
                    total.accepted += after.accepted - before.accepted;
                }
            console.log(`  ${workload}:`);
            for (const mode of modes) {
                const ratios = rates.get(mode)!.map((rate, index) => rate / rates.get("off")![index]!);
                const {drafted, accepted} = totals.get(mode)!;
                console.log(`    ${mode.padEnd(7)} ${median(rates.get(mode)!).toFixed(1)} tok/s, ×${median(ratios).toFixed(2)} of off `
                    + `(quartiles ${quantile(ratios, 0.25).toFixed(2)}–${quantile(ratios, 0.75).toFixed(2)})`
                    + (mode === "off" ? "" : `, accepted ${accepted}/${drafted} drafted (${drafted === 0 ? "—"
                        : `${(100 * accepted / drafted).toFixed(0)} %`})`));
            }
        }
    } finally {
        for (const server of servers.values())
            server.stop();
    }
}

main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
});
