/**
 * npm run bench:steps — what evaluating a prompt in abortable steps (src/engine/PromptPrefill.ts) costs against one
 * native call of node-llama-cpp on the same tokens, same context (alternating, several rounds; synthetic SmolLM2-135M).
 * Usage: npm run bench:steps [-- --tokens 1600 --rounds 3]
 */
import {parseArgs} from "node:util";
import {loadNodeLlamaCpp} from "../src/engine/loadBinding.js";
import {defaultBatchSize} from "../src/engine/LlamaEngine.js";
import {prefillPrompt} from "../src/engine/PromptPrefill.js";
import {syntheticModel} from "../test/helpers/syntheticModel.js";
import {alternating, median} from "./pairs.js";

const {values: args} = parseArgs({options: {tokens: {type: "string", default: "1600"}, rounds: {type: "string", default: "3"}}});

async function main(): Promise<void> {
    const {getLlama} = await loadNodeLlamaCpp();
    const llama = await getLlama({gpu: false, build: "never", maxThreads: 1});
    const model = await llama.loadModel({modelPath: await syntheticModel()});
    const context = await model.createContext({contextSize: 8192, sequences: 1, threads: 1, batchSize: defaultBatchSize, flashAttention: false});
    const sequence = context.getSequence();
    const count = Number(args.tokens);
    const tokens = model.tokenize("Once upon a time, there was a little girl named Lily. She loved to play outside in the park. ".repeat(Math.ceil(count / 15))).slice(0, count + 1);
    const time = async (evaluate: () => Promise<unknown>) => {
        await sequence.clearHistory();
        const started = performance.now();
        await evaluate();
        return performance.now() - started;
    };
    const ratios: number[] = [];
    for (let round = 0; round < Number(args.rounds); round++) {
        const [oneCall, stepped] = await alternating(round,
            () => time(() => sequence.evaluateWithoutGeneratingNewTokens(tokens.slice(0, -1))),
            () => time(() => prefillPrompt(sequence, tokens, {maxStepTokens: defaultBatchSize})));
        ratios.push(stepped / oneCall);
        console.error(`round ${round + 1}: one call ${oneCall.toFixed(0)} ms, in steps ${stepped.toFixed(0)} ms`);
    }
    console.log(`${count} prompt tokens: time in abortable steps / one native call = ${median(ratios).toFixed(3)} (median of ${ratios.length})`);
    await context.dispose();
    await model.dispose();
}

main().catch((error) => {
    console.error(error);
    process.exit(1);
});
