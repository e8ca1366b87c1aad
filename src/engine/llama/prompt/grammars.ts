import type {Llama, LlamaGrammar} from "node-llama-cpp";
import {EngineError} from "../../EngineError.js";
import {toGrammarSchema} from "./grammarSchema.js";
import type {GenerationRequest, ToolSpec} from "../../types.js";

type JsonConstraint = NonNullable<GenerationRequest["json"]>;

const cacheLimit = 64;
/** Tool parameter schemas known to compile: agents send the same few dozen tools every turn. */
const checkedToolLimit = 512;

/**
 * Grammars that constrain generation to JSON, built with llama.cpp's GBNF through node-llama-cpp.
 * Building one costs a few milliseconds; a client sends the same schema every turn, so the last
 * grammars are kept (by schema text, bounded).
 */
export class JsonGrammars {
    private readonly cache = new Map<string, Promise<LlamaGrammar>>();
    private readonly checkedTools = new Set<string>();

    public constructor(private readonly llama: Llama) {}

    public get(constraint: JsonConstraint): Promise<LlamaGrammar> {
        const key = constraint.type === "object" ? "object" : JSON.stringify(constraint.schema);
        let grammar = this.cache.get(key);
        if (grammar != null) {
            // Refresh recency.
            this.cache.delete(key);
            this.cache.set(key, grammar);
            return grammar;
        }
        grammar = constraint.type === "object"
            ? this.llama.createGrammarForJsonSchema({type: "object", additionalProperties: true} as never)
            : this.llama.createGrammarForJsonSchema(toGrammarSchema(constraint.schema) as never);
        grammar.catch(() => this.cache.delete(key));
        this.cache.set(key, grammar);
        while (this.cache.size > cacheLimit)
            this.cache.delete(this.cache.keys().next().value!);
        return grammar;
    }

    /**
     * Refuses, before any evaluation, an output schema or a tool's parameters that llama.cpp's grammar parser would
     * refuse once the model starts the answer or the call (`minLength: 3000` is a repetition past its limit): the
     * error is the client's (400, naming the tool), never a 500 after the prompt was paid for. node-llama-cpp builds a
     * call's grammar from the parameters with the same JSON-schema generator; it is compiled here once and remembered.
     * The schema text stays out of the message: llama.cpp's own error prints the whole grammar.
     */
    public async check(json: JsonConstraint | undefined, tools: readonly ToolSpec[]): Promise<void> {
        const oversized = json?.type === "schema" ? oversizedRepetition(json.schema) : undefined;
        if (oversized != null)
            throw new EngineError("invalid_schema", `The output's JSON schema ${oversized}.`);
        if (json != null)
            await this.get(json).catch((error: unknown) => {
                throw new EngineError("invalid_schema",
                    `The output's JSON schema cannot be compiled to a grammar for constrained generation (${reason(error)}).`);
            });
        for (const tool of tools) {
            if (tool.parameters == null)
                continue;
            const key = JSON.stringify(tool.parameters);
            if (this.checkedTools.has(key))
                continue;
            const tooMany = oversizedRepetition(tool.parameters);
            if (tooMany != null)
                throw new EngineError("invalid_schema", `The parameters of tool '${tool.name}' ${tooMany}.`, {tool: tool.name});
            try {
                await this.llama.createGrammarForJsonSchema(toGrammarSchema(tool.parameters) as never);
            } catch (error) {
                throw new EngineError("invalid_schema",
                    `The parameters of tool '${tool.name}' cannot be compiled to a grammar for its calls (${reason(error)}).`,
                    {tool: tool.name});
            }
            this.checkedTools.add(key);
            if (this.checkedTools.size > checkedToolLimit)
                this.checkedTools.delete(this.checkedTools.values().next().value!);
        }
    }
}

/** llama.cpp's grammar parser refuses a repetition with a higher minimum (`MAX_REPETITION_THRESHOLD`). */
export const maxGrammarRepetitions = 2000;

/**
 * Where a schema asks for more repetitions than llama.cpp's grammar allows (`minLength`/`minItems` above 2000), said
 * in a phrase; undefined when it does not. Found here rather than by the parser, which prints the whole grammar (the
 * client's schema) to stderr when it refuses one.
 */
function oversizedRepetition(schema: unknown, path = ""): string | undefined {
    if (schema == null || typeof schema !== "object")
        return undefined;
    for (const [key, value] of Object.entries(schema)) {
        if ((key === "minLength" || key === "minItems") && typeof value === "number" && value > maxGrammarRepetitions)
            return `asks for ${key} ${value}${path === "" ? "" : ` at '${path}'`}: the grammar for constrained generation allows `
                + `at most ${maxGrammarRepetitions} repetitions`;
        const inner = oversizedRepetition(value, path === "" ? key : `${path}.${key}`);
        if (inner != null)
            return inner;
    }
    return undefined;
}

/** What went wrong, in a line: llama.cpp says "Failed to parse grammar" (it logs the details natively). */
function reason(error: unknown): string {
    const message = error instanceof Error ? error.message : String(error);
    return message.split("\n")[0]!.slice(0, 200);
}
