import assert from "node:assert/strict";
import {after, before, describe, it} from "node:test";
import type {Llama, LlamaModel} from "node-llama-cpp";
import {buildInfillPrompt} from "../../../../../src/engine/llama/completion/infillPrompt.js";
import {fimTokensOf} from "../../../../../src/engine/llama/completion/fimTokens.js";
import {loadNodeLlamaCpp} from "../../../../../src/engine/models/loadBinding.js";
import {models} from "../../../../helpers/paths.js";
import {templateModel} from "../../../../helpers/templateModel.js";

/**
 * The fill-in-the-middle prompt is the family's documented format, token for token: Qwen2.5-Coder's
 * (`<|fim_prefix|>{prefix}<|fim_suffix|>{suffix}<|fim_middle|>`, and its repository-level form with `<|repo_name|>` and
 * `<|file_sep|>`), compared with the documented text tokenized with its special tokens by the family's own tokenizer.
 */
describe("buildInfillPrompt", () => {
    let llama: Llama;
    let qwen: LlamaModel;
    let granite: LlamaModel;
    let stories: LlamaModel;

    before(async () => {
        llama = await (await loadNodeLlamaCpp()).getLlama({gpu: false});
        qwen = await llama.loadModel({modelPath: await templateModel("qwen2.5"), vocabOnly: true});
        granite = await llama.loadModel({modelPath: await templateModel("granite-4.0"), vocabOnly: true});
        stories = await llama.loadModel({modelPath: models.chatml, vocabOnly: true});
    });
    after(() => llama?.dispose());

    const plain = (model: LlamaModel) => (text: string) => model.tokenize(text, false) as number[];
    const documented = (model: LlamaModel, text: string) => model.tokenize(text, true) as number[];

    it("is Qwen2.5-Coder's plain FIM format without context files", () => {
        const fim = fimTokensOf(qwen);
        assert.ok(fim != null);
        const built = buildInfillPrompt({prefix: "def add(a, b):\n    ", suffix: "\n\nprint(add(1, 2))\n"}, fim, plain(qwen));
        assert.deepEqual(built,
            documented(qwen, "<|fim_prefix|>def add(a, b):\n    <|fim_suffix|>\n\nprint(add(1, 2))\n<|fim_middle|>"));
    });

    it("is Qwen2.5-Coder's repository-level format with context files (llama.cpp's project and file names)", () => {
        const fim = fimTokensOf(qwen)!;
        assert.ok(fim.repoName != null && fim.fileSeparator != null);
        const built = buildInfillPrompt({
            prefix: "import {x} from \"./a\";\n", suffix: "\nexport {y};\n",
            extra: [{filename: "src/a.ts", text: "export const x = 1;\n"}, {filename: "src/b.ts", text: "export const z = 2;\n"}]
        }, fim, plain(qwen));
        assert.deepEqual(built, documented(qwen,
            "<|repo_name|>myproject\n<|file_sep|>src/a.ts\nexport const x = 1;\n<|file_sep|>src/b.ts\nexport const z = 2;\n" +
            "<|file_sep|>filename\n<|fim_prefix|>import {x} from \"./a\";\n<|fim_suffix|>\nexport {y};\n<|fim_middle|>"));
    });

    it("uses StarCoder's spelling of the repository tokens where the family has it (Granite)", () => {
        const fim = fimTokensOf(granite);
        assert.ok(fim != null);
        assert.deepEqual([fim.repoName, fim.fileSeparator].map((token) => granite.detokenize([token as never], true)),
            ["<repo_name>", "<file_sep>"]);
        const built = buildInfillPrompt({prefix: "a = ", suffix: "\n", extra: [{filename: "b.py", text: "b = 2\n"}]}, fim, plain(granite));
        assert.deepEqual(built, [
            fim.repoName, ...plain(granite)("myproject\n"), fim.fileSeparator, ...plain(granite)("b.py\n"), ...plain(granite)("b = 2\n"),
            fim.fileSeparator, ...plain(granite)("filename\n"), ...documented(granite, "<fim_prefix>a = <fim_suffix>\n<fim_middle>")
        ]);
    });

    it("puts context files as plain text before the prefix for a model without repository tokens", () => {
        const fim = {...fimTokensOf(qwen)!, repoName: null, fileSeparator: null};
        const built = buildInfillPrompt({prefix: "a = ", suffix: "\n", extra: [{filename: "b.py", text: "b = 2\n"}]}, fim, plain(qwen));
        assert.deepEqual(built, [
            ...plain(qwen)("\n\n--- snippet ---\n\n"), ...plain(qwen)("b = 2\n"),
            ...documented(qwen, "<|fim_prefix|>a = <|fim_suffix|>\n<|fim_middle|>")
        ]);
    });

    it("finds no FIM tokens in a vocabulary without them", () => {
        assert.equal(fimTokensOf(stories), null);
    });
});
