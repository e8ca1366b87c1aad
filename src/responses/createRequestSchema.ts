/**
 * JSON Schema (draft 2020-12) of the `POST /v1/responses` body, checked with ajv at the boundary.
 * It fixes field types and ranges; rules that need context (items, tools, schemas) live in their own modules.
 * Top-level names outside this list are refused, as OpenAI refuses unknown parameters.
 */
const stringMap = {
    type: "object",
    maxProperties: 16,
    propertyNames: {maxLength: 64},
    additionalProperties: {type: "string", maxLength: 512}
} as const;

/**
 * Integers get a maximum as well as a minimum: JSON's `1e309` parses to Infinity and `1e29` to a float, both of
 * which pass a bare "integer" check. Token counts stop at 100 million (far above any context), tool calls at a million.
 */
export const maxTokenCount = 100_000_000;
export const maxToolCalls = 1_000_000;
const tokenCount = {type: ["integer", "null"], minimum: 1, maximum: maxTokenCount} as const;

export const createRequestSchema = {
    type: "object",
    additionalProperties: false,
    properties: {
        model: {type: "string", maxLength: 256},
        input: {anyOf: [{type: "string"}, {type: "array"}]},
        instructions: {type: ["string", "null"]},
        temperature: {type: ["number", "null"], minimum: 0, maximum: 2},
        top_p: {type: ["number", "null"], minimum: 0, maximum: 1},
        max_output_tokens: tokenCount,
        metadata: {anyOf: [stringMap, {type: "null"}]},
        store: {type: ["boolean", "null"]},
        previous_response_id: {type: ["string", "null"], minLength: 1, maxLength: 256},
        stream: {type: ["boolean", "null"]},
        stream_options: {anyOf: [{type: "object", properties: {include_obfuscation: {type: "boolean"}}, additionalProperties: false}, {type: "null"}]},
        prompt_cache_key: {type: ["string", "null"], maxLength: 256},
        prompt_cache_retention: {type: ["string", "null"], enum: ["in-memory", "in_memory", "24h", null]},
        client_metadata: {anyOf: [{type: "object", additionalProperties: {type: "string"}}, {type: "null"}]},
        truncation: {type: ["string", "null"]},
        include: {anyOf: [{type: "array", items: {type: "string"}}, {type: "null"}]},
        tools: {anyOf: [{type: "array", items: {type: "object", required: ["type"], properties: {type: {type: "string"}}}}, {type: "null"}]},
        tool_choice: {anyOf: [{type: "string"}, {type: "object", required: ["type"], properties: {type: {type: "string"}}}, {type: "null"}]},
        parallel_tool_calls: {type: ["boolean", "null"]},
        max_tool_calls: {type: ["integer", "null"], minimum: 1, maximum: maxToolCalls},
        text: {
            anyOf: [{
                type: "object",
                additionalProperties: false,
                properties: {
                    format: {type: "object", required: ["type"], properties: {type: {type: "string"}}},
                    verbosity: {type: ["string", "null"], enum: ["low", "medium", "high", null]}
                }
            }, {type: "null"}]
        },
        reasoning: {
            anyOf: [{
                type: "object",
                additionalProperties: false,
                properties: {
                    effort: {type: ["string", "null"], enum: ["none", "minimal", "low", "medium", "high", "xhigh", null]},
                    summary: {type: ["string", "null"], enum: ["auto", "concise", "detailed", null]},
                    generate_summary: {type: ["string", "null"], enum: ["auto", "concise", "detailed", null]}
                }
            }, {type: "null"}]
        },
        background: {type: ["boolean", "null"]},
        conversation: {anyOf: [{type: "string", minLength: 1}, {type: "object", required: ["id"], properties: {id: {type: "string", minLength: 1}}}, {type: "null"}]},
        context_management: {anyOf: [{type: "array", items: {type: "object", required: ["type"], properties: {type: {type: "string"}}}}, {type: "null"}]},
        user: {type: ["string", "null"], maxLength: 512},
        safety_identifier: {type: ["string", "null"], maxLength: 512},
        service_tier: {type: ["string", "null"]},
        top_logprobs: {type: ["integer", "null"], minimum: 0, maximum: 20},
        presence_penalty: {type: ["number", "null"], minimum: -2, maximum: 2},
        frequency_penalty: {type: ["number", "null"], minimum: -2, maximum: 2},
        // OpenAI's seed is a 64-bit integer; the sampler uses its low 32 bits.
        seed: {type: ["integer", "null"], minimum: -(2 ** 63), maximum: 2 ** 63},
        prompt: {}
    }
} as const;
