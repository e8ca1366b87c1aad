/**
 * npm run bench:agents — an agent day (issue 54) through the headless server (`dist/cli.js serve`): a Claude Code main
 * session with two subagents (the second started while the main turn generates), a second Claude Code session, a Codex
 * session with a sub-agent, each request built from the captured requests (bench/agentDay.ts). Per request: the cached
 * share of its prompt, how much of the prefix it shares with its agent's other requests it read, and its time to first
 * token against the same request sent cold right after it (to a second server, with another key: nothing of the day's
 * cache is its). For the day: the sum of its
 * first-token times (its prefill) against the cold sum (target ≤ 0.2). The day runs with flash attention off, then on,
 * each on a fresh server: the two totals say which the CPU default should be.
 *
 * Usage: npm run bench:agents [-- --model smollm2-135m-qwen2] [--size medium|full] [--flash both|off|on] [--threads 1]
 *        [--prompt-threads <cores>] [--parallel 2] [--context-size 16384]
 * A real vocabulary (qwen2) makes the captures' prompts as long as a real model's tokenizer makes them (~10k tokens
 * with `--size full`); `medium` (bench/agentDay.ts) leaves out the largest tools so that a day takes minutes.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {parseArgs} from "node:util";
import {serveCli, type CliServer} from "../test/helpers/cliServer.js";
import {runAgentDay, streamRequest, type DayRequest, type DaySize} from "./agentDay.js";
import {benchModel} from "./benchModels.js";

const {values: args} = parseArgs({
    options: {
        model: {type: "string", default: "smollm2-135m-qwen2"}, flash: {type: "string", default: "both"},
        threads: {type: "string", default: "1"}, "prompt-threads": {type: "string", default: String(os.availableParallelism())},
        parallel: {type: "string", default: "2"}, "context-size": {type: "string", default: "16384"},
        size: {type: "string", default: "medium"}
    }
});
const flashSettings = {both: [false, true], off: [false], on: [true]}[args.flash as "both" | "off" | "on"];
if (flashSettings == null)
    throw new Error(`--flash: both, off or on, not '${args.flash}'`);
if (args.size !== "full" && args.size !== "medium")
    throw new Error(`--size: full or medium, not '${args.size}'`);
const size: DaySize = args.size;

const dayKey = "sk-bench-agents-day-0123456789";
/** One key per cold request: a key reads only its own prefixes, so each of these starts with nothing cached. */
const coldKey = (index: number) => `sk-bench-agents-cold-${index}-0123456789`;
const coldKeys = 16;

/** A request of the day beside the same request cold. */
type Paired = DayRequest & {cold: {ttftMs: number, prompt: number, cached: number}};

/** The first request of each agent: nothing it shares with the agent's other requests was evaluated before it. */
function firstOfItsAgent(day: readonly DayRequest[], index: number): boolean {
    return day.findIndex((request) => request.route === day[index]!.route) === index;
}

async function stopServer(server: CliServer): Promise<void> {
    if (server.child.exitCode != null)
        return;
    const exited = new Promise((resolve) => server.child.once("exit", resolve));
    server.child.kill("SIGTERM");
    await exited;
}

/**
 * The day on a fresh server, each of its requests sent again at once to a second fresh server with a key of its own:
 * cold, and next to its warm twin in time (this machine's pace drifts by factors within minutes). Each server has its
 * own data folder; flash attention is set through its environment variable, which takes `false` where the flag only
 * turns it on.
 */
async function dayAgainstCold(modelPath: string, flashAttention: boolean, folder: string): Promise<Paired[]> {
    const keyFile = path.join(folder, "keys");
    fs.writeFileSync(keyFile, [dayKey, ...Array.from({length: coldKeys}, (_, index) => coldKey(index))].join("\n") + "\n", {mode: 0o600});
    const serve = (name: string) => serveCli(["--model", modelPath, "--api-key-file", keyFile,
        "--data-dir", path.join(folder, `${name}-flash-${flashAttention}`), "--threads", args.threads, "--prompt-threads",
        args["prompt-threads"], "--parallel", args.parallel, "--context-size", args["context-size"]],
    {env: {...process.env, LOCAL_RESPONSES_FLASH_ATTENTION: String(flashAttention)}});
    const [server, coldServer] = [await serve("day"), await serve("cold")];
    const log = (line: string) => console.error(`  [flash ${flashAttention ? "on" : "off"}] ${line}`);
    const colds = new Map<number, Paired["cold"]>();
    const replayCold = async (request: DayRequest, index: number) => {
        if (index >= coldKeys)
            throw new Error(`more than ${coldKeys} requests`);
        const cold = await streamRequest(coldServer, coldKey(index), request.route, request.body);
        log(`${request.name}, cold: ${cold.cached} of ${cold.prompt} cached, first token ${cold.ttftMs.toFixed(0)} ms`);
        if (cold.cached !== 0 || cold.prompt !== request.answer.prompt)
            throw new Error(`${request.name}: the cold request read ${cold.cached} of ${cold.prompt} tokens (the day's had `
                + `${request.answer.prompt}); a cold request reads nothing`);
        colds.set(index, cold);
    };
    try {
        const day = await runAgentDay(server, dayKey, size, log, replayCold);
        return day.map((request, index) => ({...request, cold: colds.get(index)!}));
    } catch (error) {
        console.error(server.stderr().slice(-4000), coldServer.stderr().slice(-4000));
        throw error;
    } finally {
        await Promise.all([stopServer(server), stopServer(coldServer)]);
    }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const percent = (part: number, whole: number) => `${(100 * part / whole).toFixed(1)} %`;

type DayTotals = {warmMs: number, coldMs: number, warmableWarmMs: number, warmableColdMs: number};

function report(flashAttention: boolean, paired: readonly Paired[]): {lines: string[], totals: DayTotals} {
    const lines = [`flash attention ${flashAttention ? "on" : "off"}:`,
        "| request | prompt | cached (share) | of the shared prefix | first token, day | cold | day / cold |",
        "|---|---|---|---|---|---|---|"];
    const totals: DayTotals = {warmMs: 0, coldMs: 0, warmableWarmMs: 0, warmableColdMs: 0};
    for (const [index, request] of paired.entries()) {
        const {answer, cold, shared} = request;
        const first = firstOfItsAgent(paired, index);
        const sharedRead = first ? "— (its agent's first)" : percent(Math.min(answer.cached, shared), shared);
        lines.push(`| ${request.name} | ${answer.prompt} | ${answer.cached} (${percent(answer.cached, answer.prompt)}) | ${sharedRead} | `
            + `${seconds(answer.ttftMs)} | ${seconds(cold.ttftMs)} | ${(answer.ttftMs / cold.ttftMs).toFixed(3)} |`);
        totals.warmMs += answer.ttftMs;
        totals.coldMs += cold.ttftMs;
        if (!first) {
            totals.warmableWarmMs += answer.ttftMs;
            totals.warmableColdMs += cold.ttftMs;
        }
    }
    const beside = paired.find((request) => request.name.includes("while main generates"));
    const main = paired.find((request) => request.name === "Claude Code main, turn 2");
    if (beside != null && main != null) {
        const overlapMs = main.answer.endedAt - (beside.answer.sentAt + beside.answer.ttftMs);
        lines.push(overlapMs > 0
            ? `The main turn was still generating ${seconds(overlapMs)} after the second subagent's first token.`
            : `The main turn had ended ${seconds(-overlapMs)} before the second subagent's first token (it stopped early).`);
    }
    lines.push(`Day's prefill (the sum of first-token times): ${seconds(totals.warmMs)} against ${seconds(totals.coldMs)} cold: `
        + `${(totals.warmMs / totals.coldMs).toFixed(3)} (target ≤ 0.2); without each agent's first request (cold in any day): `
        + `${seconds(totals.warmableWarmMs)} against ${seconds(totals.warmableColdMs)}, `
        + `${(totals.warmableWarmMs / totals.warmableColdMs).toFixed(3)}`);
    return {lines, totals};
}

async function main(): Promise<void> {
    const model = await benchModel(args.model);
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), "lr-bench-agents-"));
    const output: string[] = [];
    const totals = new Map<boolean, DayTotals>();
    try {
        for (const flashAttention of flashSettings) {
            const day = report(flashAttention, await dayAgainstCold(model.path, flashAttention, folder));
            output.push(...day.lines, "");
            totals.set(flashAttention, day.totals);
        }
    } finally {
        fs.rmSync(folder, {recursive: true, force: true});
    }
    const off = totals.get(false);
    const on = totals.get(true);
    if (off != null && on != null)
        output.push(`Flash attention on / off: the day ${(on.warmMs / off.warmMs).toFixed(3)} `
            + `(${seconds(on.warmMs)} / ${seconds(off.warmMs)}), `
            + `every prompt cold ${(on.coldMs / off.coldMs).toFixed(3)} (${seconds(on.coldMs)} / ${seconds(off.coldMs)})`);
    console.log(`\nLocal Responses agent day (${model.label}; threads ${args.threads}, prompt threads ${args["prompt-threads"]}, `
        + `parallel ${args.parallel}, context ${args["context-size"]}, ${size} captures)\n${output.join("\n")}`);
}

main().catch((error) => {
    console.error(error);
    process.exit(1);
});
