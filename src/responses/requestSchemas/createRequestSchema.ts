import type {ContextManagementBody, KeepAliveBody, MetadataBody, ReasoningBody, TextBody} from "./defs.js";
import {always, note} from "./errorNotes.js";
import {inputField, inputType} from "./fields.js";
import type {InputBody} from "./itemDefs.js";
import type {ToolBody, ToolChoiceBody} from "./toolDefs.js";

/** `include` values OpenAI defines; the hosted-tool ones are accepted and have nothing to add here. */
export const knownIncludes = [
    "reasoning.encrypted_content", "message.output_text.logprobs", "file_search_call.results", "web_search_call.results",
    "web_search_call.action.sources", "message.input_image.image_url", "computer_call_output.output.image_url",
    "code_interpreter_call.outputs"
];

/**
 * Integers get a maximum as well as a minimum: JSON's `1e309` parses to Infinity and `1e29` to a float, both of
 * which pass a bare "integer" check. Token counts stop at 100 million (far above any context), tool calls at a million.
 */
const tokenCount = {type: ["integer", "null"], minimum: 1, maximum: 100_000_000};

/**
 * The most tools one request may declare. Each is rendered into the prompt and a strict one is compiled, so the count
 * needs a bound besides the body limit; 512 is four times OpenAI's 128 functions for chat and far above what Codex
 * (about twenty) or a client with many MCP servers sends.
 */
export const maxTools = 512;

/**
 * JSON Schema (draft 2020-12) of the `POST /v1/responses` body, which `POST /v1/responses/input_tokens` takes too.
 * Top-level names outside this list are refused, as OpenAI refuses unknown parameters; inside items they are ignored.
 */
export const createRequestSchema = {
    $id: "createRequest",
    type: "object",
    additionalProperties: false,
    properties: {
        model: {type: "string", maxLength: 256},
        input: inputField({errors: {default: inputType}}),
        instructions: {type: ["string", "null"]},
        temperature: {type: ["number", "null"], minimum: 0, maximum: 2},
        top_p: {type: ["number", "null"], minimum: 0, maximum: 1},
        max_output_tokens: tokenCount,
        metadata: {$ref: "defs#/$defs/metadata"},
        store: {type: ["boolean", "null"]},
        previous_response_id: {type: ["string", "null"], minLength: 1, maxLength: 256},
        stream: {type: ["boolean", "null"]},
        stream_options: {type: ["object", "null"], properties: {include_obfuscation: {type: "boolean"}}, additionalProperties: false},
        prompt_cache_key: {type: ["string", "null"], maxLength: 256},
        prompt_cache_retention: {enum: ["in-memory", "in_memory", "24h", null]},
        keep_alive: {$ref: "defs#/$defs/keepAlive"},
        client_metadata: {type: ["object", "null"], additionalProperties: {type: "string"}},
        truncation: {
            enum: ["disabled", null],
            ...always("truncation '{value}' is not supported: only 'disabled' (the input must fit the context).", "unsupported_parameter")
        },
        include: {
            type: ["array", "null"],
            items: {
                enum: knownIncludes,
                errors: {
                    default: note(`Unknown include value '{value}'. Supported: ${knownIncludes.join(", ")}.`, "invalid_value",
                        {atParent: true})
                }
            }
        },
        tools: {
            type: ["array", "null"],
            maxItems: maxTools,
            items: {$ref: "defs#/$defs/tool"},
            errors: {maxItems: note(`Invalid 'tools': array too long. Expected an array with maximum length ${maxTools}.`)}
        },
        tool_choice: {$ref: "defs#/$defs/toolChoice"},
        parallel_tool_calls: {type: ["boolean", "null"]},
        max_tool_calls: {type: ["integer", "null"], minimum: 1, maximum: 1_000_000},
        text: {$ref: "defs#/$defs/text"},
        reasoning: {$ref: "defs#/$defs/reasoning"},
        background: {type: ["boolean", "null"]},
        conversation: {
            type: ["string", "object", "null"], minLength: 1, required: ["id"],
            properties: {id: {type: "string", minLength: 1}}
        },
        context_management: {$ref: "defs#/$defs/contextManagement"},
        user: {type: ["string", "null"], maxLength: 512},
        safety_identifier: {type: ["string", "null"], maxLength: 512},
        service_tier: {
            enum: ["auto", "default", null],
            ...always("service_tier '{value}' is not supported: use 'auto' or 'default'.", "unsupported_parameter")
        },
        top_logprobs: {type: ["integer", "null"], minimum: 0, maximum: 20},
        presence_penalty: {type: ["number", "null"], minimum: -2, maximum: 2},
        frequency_penalty: {type: ["number", "null"], minimum: -2, maximum: 2},
        // OpenAI's seed is a 64-bit integer; the sampler uses its low 32 bits.
        seed: {type: ["integer", "null"], minimum: -(2 ** 63), maximum: 2 ** 63},
        prompt: {
            type: "null", ...always("Reusable prompts ('prompt') are not supported by this server: send 'input' and 'instructions'.",
                "unsupported_parameter")
        }
    }
};

/** What `createRequestSchema` admits. */
export type CreateRequestBody = {
    model?: string,
    input?: InputBody,
    instructions?: string | null,
    temperature?: number | null,
    top_p?: number | null,
    max_output_tokens?: number | null,
    metadata?: MetadataBody,
    store?: boolean | null,
    previous_response_id?: string | null,
    stream?: boolean | null,
    stream_options?: {include_obfuscation?: boolean} | null,
    prompt_cache_key?: string | null,
    prompt_cache_retention?: "in-memory" | "in_memory" | "24h" | null,
    /** Ollama's, for the model library (`parseKeepAlive`). */
    keep_alive?: KeepAliveBody,
    client_metadata?: Record<string, string> | null,
    truncation?: "disabled" | null,
    include?: string[] | null,
    tools?: ToolBody[] | null,
    tool_choice?: ToolChoiceBody,
    parallel_tool_calls?: boolean | null,
    max_tool_calls?: number | null,
    text?: TextBody,
    reasoning?: ReasoningBody,
    background?: boolean | null,
    conversation?: string | {id: string} | null,
    context_management?: ContextManagementBody,
    user?: string | null,
    safety_identifier?: string | null,
    service_tier?: "auto" | "default" | null,
    top_logprobs?: number | null,
    presence_penalty?: number | null,
    frequency_penalty?: number | null,
    seed?: number | null,
    prompt?: null
};
