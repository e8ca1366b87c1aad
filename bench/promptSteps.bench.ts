/**
 * npm run bench:steps — what evaluating a prompt in abortable steps (src/engine/llama/runtime/PromptPrefill.ts) costs against one
 * native call of node-llama-cpp on the same tokens, same context (alternating, several rounds; synthetic SmolLM2-135M).
 * `--step-ms` takes a list of step targets to compare (each against the one call in the same rounds); `--threads` the
 * threads that evaluate the prompt (the server's default is every core).
 * Usage: npm run bench:steps [-- --tokens 1600 --rounds 3 --threads 1 --step-ms 500,1000]
 */
import {parseArgs} from "node:util";
import {loadNodeLlamaCpp} from "../src/engine/models/loadBinding.js";
import {defaultBatchSize} from "../src/engine/engineDefaults.js";
import {defaultPromptStepMs, prefillPrompt} from "../src/engine/llama/runtime/PromptPrefill.js";
import {syntheticModel} from "../test/helpers/syntheticModel.js";
import {median} from "./pairs.js";

const {values: args} = parseArgs({options: {
    tokens: {type: "string", default: "1600"},
    rounds: {type: "string", default: "3"},
    threads: {type: "string", default: "1"},
    "step-ms": {type: "string", default: String(defaultPromptStepMs)}
}});

async function main(): Promise<void> {
    const threads = Number(args.threads);
    const count = Number(args.tokens);
    const targets = args["step-ms"].split(",").map(Number);
    const {getLlama} = await loadNodeLlamaCpp();
    const llama = await getLlama({gpu: false, build: "never", maxThreads: threads});
    const model = await llama.loadModel({modelPath: await syntheticModel()});
    const context = await model.createContext({
        contextSize: Math.max(8192, count + 256), sequences: 1, threads, batchSize: defaultBatchSize(false), flashAttention: false
    });
    const sequence = context.getSequence();
    const sentence = "Once upon a time, there was a little girl named Lily. She loved to play outside in the park. ";
    const tokens = model.tokenize(sentence.repeat(Math.ceil(count / 15))).slice(0, count + 1);
    const time = async (evaluate: () => Promise<unknown>) => {
        await sequence.clearHistory();
        const started = performance.now();
        await evaluate();
        return performance.now() - started;
    };
    const paths = [
        {name: "one call", evaluate: () => sequence.evaluateWithoutGeneratingNewTokens(tokens.slice(0, -1))},
        ...targets.map((targetStepMs) => ({
            name: `steps of ~${targetStepMs} ms`,
            evaluate: () => prefillPrompt(sequence, tokens, {maxStepTokens: defaultBatchSize(false), targetStepMs})
        }))
    ];
    const ratios = targets.map((): number[] => []);
    for (let round = 0; round < Number(args.rounds); round++) {
        // Reversed on odd rounds, so that neither end of the order keeps its own effect.
        const order = round % 2 === 0 ? paths.map((_, index) => index) : paths.map((_, index) => paths.length - 1 - index);
        const ms: number[] = [];
        for (const index of order)
            ms[index] = await time(paths[index]!.evaluate);
        targets.forEach((_, index) => ratios[index]!.push(ms[index + 1]! / ms[0]!));
        console.error(`round ${round + 1}: ${paths.map((path, index) => `${path.name} ${ms[index]!.toFixed(0)} ms`).join(", ")}`);
    }
    for (const [index, target] of targets.entries())
        console.log(
            `${count} prompt tokens, ${threads} thread(s): time in steps of ~${target} ms / one native call `
                + `= ${median(ratios[index]!).toFixed(3)} (median of ${ratios[index]!.length})`
        );
    await context.dispose();
    await model.dispose();
}

main().catch((error) => {
    console.error(error);
    process.exit(1);
});
