import type {GenerationResult} from "../../engine/types.js";
import {invalidRequest} from "../../protocol/errors.js";
import {checkJsonSchema, type SchemaRuleOptions} from "./jsonSchemaRules.js";
import type {UnvalidatedCut} from "../pipeline/ResponseAssembler.js";
import {schemaValidators} from "./SchemaValidators.js";
import type {TextFormat} from "../../protocol/wire.js";

export type OutputRejection = {code: "invalid_output" | "invalid_tool_arguments", message: string};

/**
 * Checks a schema at create (400 before generation): the grammar rules, then that ajv compiles it,
 * so the validator needed after generation is ready (and cached) before any token is spent.
 */
export function checkClientSchema(schema: Record<string, unknown>, options: SchemaRuleOptions): void {
    checkJsonSchema(schema, options);
    try {
        schemaValidators.get(schema);
    } catch (error) {
        throw invalidRequest(`Invalid JSON schema: ${error instanceof Error ? error.message : String(error)}`, options.param,
            "invalid_schema");
    }
}

/**
 * Validate-before-publish for structured output and strict function tools. Generation is already
 * constrained by a grammar, so a rejection means the grammar let through something the schema
 * forbids; either way nothing invalid is published: the assembler holds content events until this
 * check passes, and a rejection fails the response.
 */
export class OutputValidator {
    public constructor(
        private readonly format: TextFormat,
        private readonly strictTools: ReadonlyMap<string, Record<string, unknown>>
    ) {}

    /** Content must be held back until `check` (lifecycle events still stream at once). */
    public get holds(): boolean {
        return this.format.type !== "text" || this.strictTools.size > 0;
    }

    /** What `check` would have validated in a result cut by the token limit (which is never checked). */
    public get unvalidatedCut(): UnvalidatedCut {
        return {text: this.format.type !== "text", callArguments: (name) => this.strictTools.has(name)};
    }

    public check(result: GenerationResult): OutputRejection | null {
        for (const call of result.calls) {
            const schema = this.strictTools.get(call.name);
            if (schema == null)
                continue;
            const parsed = parseJson(call.arguments);
            const problem = parsed.ok ? schemaValidators.problem(schema, parsed.value) : `not JSON (${parsed.error})`;
            if (problem != null)
                return {
                    code: "invalid_tool_arguments",
                    message: `The arguments generated for strict tool '${call.name}' do not match its schema: ${problem}.`
                };
        }
        // A length stop cuts the JSON: it is reported as incomplete, with nothing published, not as invalid.
        if (this.format.type === "text" || result.calls.length > 0 || result.stopReason === "length")
            return null;
        const parsed = parseJson(result.text);
        if (!parsed.ok)
            return {code: "invalid_output", message: `The generated output is not valid JSON: ${parsed.error}.`};
        if (this.format.type === "json_object")
            return parsed.value != null && typeof parsed.value === "object" && !Array.isArray(parsed.value)
                ? null
                : {code: "invalid_output", message: "The generated output is not a JSON object."};
        const problem = schemaValidators.problem(this.format.schema, parsed.value);
        return problem == null ? null
            : {code: "invalid_output", message: `The generated output does not match the schema '${this.format.name}': ${problem}.`};
    }
}

function parseJson(text: string): {ok: true, value: unknown} | {ok: false, error: string} {
    try {
        return {ok: true, value: JSON.parse(text)};
    } catch (error) {
        return {ok: false, error: error instanceof Error ? error.message : String(error)};
    }
}
