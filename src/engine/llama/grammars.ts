import type {Llama, LlamaGrammar} from "node-llama-cpp";
import {toGrammarSchema} from "./grammarSchema.js";
import type {GenerationRequest} from "../types.js";

type JsonConstraint = NonNullable<GenerationRequest["json"]>;

const cacheLimit = 64;

/**
 * Grammars that constrain generation to JSON, built with llama.cpp's GBNF through node-llama-cpp.
 * Building one costs a few milliseconds; a client sends the same schema every turn, so the last
 * grammars are kept (by schema text, bounded).
 */
export class JsonGrammars {
    private readonly cache = new Map<string, Promise<LlamaGrammar>>();

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
}
