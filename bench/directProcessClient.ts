import {fork, type ChildProcess} from "node:child_process";
import path from "node:path";
import {repoRoot} from "../test/helpers/paths.js";

/** How node-llama-cpp alone is set up in its process: one sequence of `contextSize`, `threads` threads, `batch` tokens a batch. */
export type DirectSettings = {contextSize: number, batch: number, threads: number};

/**
 * node-llama-cpp alone in a process of its own (bench/directProcess.ts): what a user of node-llama-cpp would run, with
 * nothing of ours loaded beside it (no server, no store, no heap of ours). The benches ask it over IPC.
 */
export class DirectProcess {
    private constructor(private readonly child: ChildProcess, public readonly settings: DirectSettings) {}

    public static async start(model: string, settings: DirectSettings): Promise<DirectProcess> {
        const child = fork(path.join(repoRoot, "bench/directProcess.ts"),
            [model, String(settings.contextSize), String(settings.batch), String(settings.threads)],
            {execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"]});
        await new Promise((resolve, reject) => {
            child.once("message", resolve);
            child.once("exit", (code) => reject(new Error(`directProcess exited (${code})`)));
        });
        return new DirectProcess(child, settings);
    }

    /**
     * node-llama-cpp's best batch size for prompts on this machine and model, as a user tuning it would find: each
     * candidate in a fresh process evaluates the same cold prompt twice (alternating), and the faster of its two times
     * counts. The candidates' processes are stopped: the figure starts its own per placement.
     */
    public static async bestBatch(model: string, settings: Omit<DirectSettings, "batch">, batches: readonly number[],
        probeTokens: number, log: (line: string) => void): Promise<number> {
        const candidates = await Promise.all(batches.map((batch) => DirectProcess.start(model, {...settings, batch})));
        try {
            const times = candidates.map((): number[] => []);
            for (let round = 0; round < 2; round++)
                for (const index of round % 2 === 0 ? candidates.keys() : [...candidates.keys()].reverse())
                    times[index]!.push(await candidates[index]!.ask("prefill", probeTokens));
            const fastest = times.map((each) => Math.min(...each));
            const best = batches[fastest.indexOf(Math.min(...fastest))]!;
            log(`node-llama-cpp alone, ${probeTokens}-token prompt by batch: `
                + batches.map((batch, index) => `${batch}: ${fastest[index]!.toFixed(0)} ms`).join(", ") + `; best ${best}`);
            return best;
        } finally {
            for (const candidate of candidates)
                candidate.stop();
        }
    }

    /**
     * `prefill`: milliseconds to evaluate `tokens` fresh filler tokens and sample one (the sequence cleared first);
     * `decode`: tokens/s of that many greedy tokens after a short prompt (after the first).
     */
    public ask(kind: "prefill" | "decode", tokens: number): Promise<number> {
        return new Promise((resolve, reject) => {
            this.child.once("message", (answer: {value?: number, error?: string}) => (answer.error != null
                ? reject(new Error(answer.error)) : resolve(answer.value!)));
            this.child.send({kind, tokens});
        });
    }

    public stop(): void {
        this.child.kill();
    }
}
