import {models} from "../test/helpers/paths.js";
import {syntheticModel, type SyntheticShape} from "../test/helpers/syntheticModel.js";

/** A model a bench can be asked for by name (`--models` / `--model`), and what its figures should be read as. */
export type BenchModel = {
    name: string,
    path: string,
    /** A full-size body (seconds a prompt, tens of tokens a second), as opposed to the tiny trained stories260K. */
    fullSize: boolean,
    /** What the model is, for the bench's report. */
    label: string
};

const shapeNames: readonly SyntheticShape[] = ["smollm2-135m", "qwen2.5-0.5b", "tiny-64"];

/**
 * Short names of real vocabularies in a model name, for make-synthetic-model.mjs's `--vocab` names that hold a dash
 * (`smollm2-135m-gemma4` is the SmolLM2-135M body with `gemma-4`'s vocabulary). Any other suffix is passed as is
 * (`smollm2-135m-llama-bpe`).
 */
const vocabAliases: Readonly<Record<string, string>> = {gemma4: "gemma-4"};

/**
 * The names benches document: stories260K, the synthetic bodies with its 514-token vocabulary, and the real-vocabulary
 * shapes of issue 31, where the output layer, logits, sampling, grammars and the tokenizer cost what a real model's do;
 * `tiny-64-qwen2`, two layers of width 64 with Qwen2's vocabulary: a real tokenizer's token counts (what is cached) at a
 * fraction of a real body's cost, for a machine too busy for one.
 */
export const knownBenchModels = [
    "stories260K", "smollm2-135m", "qwen2.5-0.5b", "smollm2-135m-qwen2", "qwen2.5-0.5b-qwen2", "smollm2-135m-gemma4", "tiny-64-qwen2"
] as const;

/**
 * The model file a bench names: `stories260K` (the shared trained model), a synthetic shape (`smollm2-135m`,
 * `qwen2.5-0.5b`), or a shape with a real vocabulary (`<shape>-<vocab>`: `smollm2-135m-qwen2`, `qwen2.5-0.5b-qwen2`,
 * `smollm2-135m-gemma4`, …). Synthetic files are generated on first use into ~/.cache/local-responses/models (see
 * test/helpers/syntheticModel.ts): the real-vocabulary ones take a few seconds and 0.3–0.7 GB each.
 */
export async function benchModel(name: string): Promise<BenchModel> {
    if (name === "stories260K")
        return {name, path: models.chatml, fullSize: false, label: "stories260K, trained, 514-token vocabulary"};
    const shape = shapeNames.find((candidate) => name === candidate || name.startsWith(`${candidate}-`));
    if (shape == null)
        throw new Error(`unknown model '${name}': one of ${knownBenchModels.join(", ")}, or <shape>-<vocab> with a shape of `
            + `${shapeNames.join(", ")} and a vocabulary of make-synthetic-model.mjs --vocab`);
    const suffix = name.slice(shape.length + 1);
    const vocab = suffix === "" ? undefined : vocabAliases[suffix] ?? suffix;
    return {
        name, path: await syntheticModel(shape, vocab), fullSize: shape !== "tiny-64",
        label: `synthetic ${shape} body, ${vocab == null ? "stories260K's 514-token vocabulary" : `the ${vocab} vocabulary`}`
    };
}
