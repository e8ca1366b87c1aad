import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type {BenchModel} from "./benchModels.js";
import {countInputTokens, startCliServer, type CliServer} from "./cliServer.js";
import {DirectProcess, type DirectSettings} from "./directProcessClient.js";
import {words} from "./filler.js";
import {alternating, median, quantile} from "./pairs.js";
import {SseClientProcess, type StreamResult} from "./sseClientProcess.js";

/** Settings of figure 1: the served server and node-llama-cpp alone, each in a process of its own. */
export type DepthSettings = {
    /** Prompt lengths in tokens (issue 39: ~800, ~3,300 and ~6,000). */
    depths: readonly number[],
    pairs: number,
    /** Loads of the model on each side the pairs are spread over. */
    placements: number,
    contextSize: number,
    /** Batch sizes node-llama-cpp alone is tried with; the fastest is its side (a user of it would tune that). */
    directBatches: readonly number[],
    log: (line: string) => void
};

/** A figure's rows: what, the median ratio, its quartiles and the medians behind it. */
export type FigureRow = [string, string, string];

/**
 * Figure 1: the cold time to first token of prompts at each depth, served against node-llama-cpp alone. The server is
 * `dist/cli.js serve` as a user starts it (its own process, its default store and prompt cache in a fresh data folder,
 * 1 thread for generation and prompts, `--context-size` as given, its default sequences); node-llama-cpp alone is
 * bench/directProcess.ts (its own process, one sequence of the same size, 1 thread, its best batch of those tried).
 * Each pair sends one new prompt (its opening differs) answered with one token, against node-llama-cpp evaluating as
 * many fresh tokens and sampling one; served and direct alternate in pairs, spread over `placements` loads of the model on
 * each side. The served time is the whole request as the client (its own low-priority process) sees it.
 */
export async function coldPromptAtDepth(model: BenchModel, settings: DepthSettings): Promise<FigureRow[]> {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), "lr-bench-depth-"));
    const alone = {contextSize: settings.contextSize, threads: 1};
    const batch = await DirectProcess.bestBatch(model.path, alone, settings.directBatches, settings.depths[0]!, settings.log);
    let sides: Placement | undefined;
    try {
        const rows: FigureRow[] = [];
        let seed = 11;
        let placement = 0;
        for (const depth of settings.depths) {
            const ratios: number[] = [];
            const servedMs: number[] = [];
            const directMs: number[] = [];
            for (let pair = 0; pair < settings.pairs; pair++) {
                // Each placement loads the model anew on both sides: one load's memory placement alone moves a ratio
                // by a few percent (docs/performance.md, "Reading the figures").
                if (sides == null || pair % Math.ceil(settings.pairs / settings.placements) === 0) {
                    await sides?.stop();
                    sides = await Placement.start(model, path.join(folder, String(placement++)), settings.contextSize,
                        {...alone, batch});
                }
                const input = `${seed} ${words(Math.round(depth * sides.wordsPerToken), seed++)}`;
                // The same number of tokens on both sides (attention makes each token dearer than the last).
                const tokens = await countInputTokens(sides.server, input);
                const [answer, ms] = await alternating(pair, () => sides!.served(input), () => sides!.direct.ask("prefill", tokens));
                ratios.push(ms / answer.ms);
                servedMs.push(answer.ms);
                directMs.push(ms);
                settings.log(`cold ${tokens} tokens (${answer.cached} cached): served ${answer.ms.toFixed(0)} ms, node-llama-cpp `
                    + `alone ${ms.toFixed(0)} ms`);
            }
            rows.push([`1. cold prompt, ~${depth} tokens: node-llama-cpp alone / served time to first token`,
                median(ratios).toFixed(3), `${quantile(ratios, 0.25).toFixed(3)}–${quantile(ratios, 0.75).toFixed(3)}; `
                    + `${median(servedMs).toFixed(0)} / ${median(directMs).toFixed(0)} ms; target ≥ 0.95`]);
        }
        rows.push(["   node-llama-cpp alone: one sequence, 1 thread, batch", String(batch),
            `the best of ${settings.directBatches.join(", ")}; its own process`]);
        return rows;
    } finally {
        await sides?.stop();
        fs.rmSync(folder, {recursive: true, force: true});
    }
}

/** One load of the model on each side: the served process (and its client) and node-llama-cpp's, both warmed up. */
class Placement {
    private constructor(
        public readonly server: CliServer,
        public readonly direct: DirectProcess,
        private readonly client: SseClientProcess,
        private readonly dataDir: string,
        public readonly wordsPerToken: number
    ) {}

    public static async start(model: BenchModel, dataDir: string, contextSize: number, direct: DirectSettings): Promise<Placement> {
        const server = await startCliServer(["--model", model.path, "--no-auth", "--data-dir", dataDir,
            "--threads", "1", "--prompt-threads", "1", "--context-size", String(contextSize)]);
        const placement = new Placement(server, await DirectProcess.start(model.path, direct), SseClientProcess.start(server.url, "none"),
            dataDir, 1000 / await countInputTokens(server, words(1000, 0)));
        await placement.served(words(50, 0));
        await placement.direct.ask("prefill", 50);
        return placement;
    }

    /** A one-token answer to `input`, as the client saw it, once the server's saves after it are done. */
    public async served(input: string): Promise<StreamResult> {
        const answer = await this.client.streamOnce({model: "m", input, max_output_tokens: 1, temperature: 0, store: false});
        // The prompt's state is saved after the answer: let that finish before the other side is timed.
        await quiet(this.dataDir);
        return answer;
    }

    public async stop(): Promise<void> {
        this.client.stop();
        this.direct.stop();
        this.server.stop();
        // Its last writes, before the folder goes.
        await new Promise((resolve) => setTimeout(resolve, 500));
    }
}

/** Waits until nothing in `folder` has changed for 300 ms (at most 15 s): the server's saves after an answer are done. */
async function quiet(folder: string): Promise<void> {
    const footprint = () => {
        let total = 0;
        for (const entry of fs.readdirSync(folder, {recursive: true, withFileTypes: true}))
            if (entry.isFile())
                try {
                    const stat = fs.statSync(path.join(entry.parentPath, entry.name));
                    total += stat.size + stat.mtimeMs;
                } catch {
                    // Removed meanwhile: the next look sees the change.
                }
        return total;
    };
    const deadline = performance.now() + 15_000;
    let last = footprint();
    let stableSince = performance.now();
    while (performance.now() - stableSince < 300 && performance.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        const now = footprint();
        if (now !== last) {
            last = now;
            stableSince = performance.now();
        }
    }
}
