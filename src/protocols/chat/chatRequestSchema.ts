import {always, note} from "../../responses/requestSchemas/errorNotes.js";
import {clientSchema, namePattern, objectRequired, strictFlag} from "../../responses/requestSchemas/fields.js";
import {maxTools} from "../../responses/requestSchemas/createRequestSchema.js";
import type {KeepAliveBody} from "../../responses/requestSchemas/defs.js";

/**
 * JSON Schema (draft 2020-12) of the `POST /v1/chat/completions` body. Top-level names outside this list are refused,
 * as OpenAI refuses unknown parameters; fields that would change the answer and that this server cannot honour
 * (`n` > 1, `logit_bias`, audio, predictions, the deprecated `functions`) are refused by name, never dropped.
 */

const anyString = {type: "string", ...always("'{param}' must be a string.", "invalid_type")};

const mediaRefused = note(
    "'{type}' content is not supported: the local engine (node-llama-cpp) has no vision, audio or file input. Send text only.",
    "unsupported_content_type",
    {at: "type"}
);
/** A text part; media parts are refused by name, with the reason. */
const textPart = {
    type: "object",
    discriminator: {propertyName: "type"},
    oneOf: [
        {properties: {type: {const: "text"}, text: anyString}, required: ["type", "text"]},
        {properties: {type: {enum: ["image_url", "input_audio", "file"]}}, required: ["type"], not: {}, errors: {not: mediaRefused}}
    ],
    errors: {
        type: objectRequired,
        discriminator: note("Unsupported content part type '{value}' in '{item}': send 'text' parts.", "unsupported_value")
    }
};
/** Content a model reads as text: a string, or text parts. */
const textContent = {
    type: ["string", "array"], items: textPart,
    errors: {type: note("'{param}' must be a string or an array of text parts.", "invalid_type")}
};
const assistantPart = {
    type: "object",
    discriminator: {propertyName: "type"},
    oneOf: [
        {properties: {type: {const: "text"}, text: anyString}, required: ["type", "text"]},
        {properties: {type: {const: "refusal"}, refusal: anyString}, required: ["type", "refusal"]}
    ],
    errors: {type: objectRequired, discriminator: note("Unsupported content part type '{value}' in '{item}'.", "unsupported_value")}
};

const toolCall = {
    type: "object",
    required: ["id", "type", "function"],
    properties: {
        id: {type: "string", minLength: 1, maxLength: 256, ...always("'{param}' must be a non-empty string.")},
        type: {const: "function", ...always("'{param}' must be 'function'.")},
        function: {
            type: "object",
            required: ["name", "arguments"],
            properties: {name: anyString, arguments: anyString},
            errors: {type: objectRequired}
        }
    },
    errors: {type: objectRequired}
};

const refusedField = (message: string) => ({not: {}, errors: {not: note(message, "unsupported_parameter")}});
/** A field accepted only as null (or absent): any value is refused with `message`. */
const nullOnly = (message: string) => ({type: "null", ...refused(message)});
/** Refused whatever the value: a field this server cannot honour. */
function refused(message: string) {
    return always(message, "unsupported_parameter");
}

const message = {
    type: "object",
    discriminator: {propertyName: "role"},
    oneOf: [
        {properties: {role: {enum: ["system", "developer"]}, content: textContent, name: anyString}, required: ["role", "content"]},
        {
            properties: {
                role: {const: "user"},
                content: textContent,
                name: anyString
            },
            required: ["role", "content"]
        },
        {
            properties: {
                role: {const: "assistant"},
                content: {
                    type: ["string", "array", "null"], items: assistantPart,
                    errors: {type: note("'{param}' must be a string, an array of parts or null.", "invalid_type")}
                },
                refusal: {type: ["string", "null"]},
                reasoning_content: {type: ["string", "null"]},
                tool_calls: {type: ["array", "null"], items: toolCall},
                name: anyString,
                audio: nullOnly("Assistant 'audio' is not supported: this server has no audio output."),
                function_call: nullOnly("'function_call' is deprecated and not supported: send 'tool_calls'.")
            },
            required: ["role"]
        },
        {
            properties: {
                role: {const: "tool"},
                tool_call_id: {type: "string", minLength: 1, maxLength: 256, ...always("'{param}' must be a non-empty string.")},
                content: textContent
            },
            required: ["role", "tool_call_id", "content"]
        },
        {
            properties: {role: {const: "function"}}, required: ["role"],
            ...refusedField("The 'function' role is deprecated and not supported: send 'tool' messages.")
        }
    ],
    errors: {
        type: objectRequired,
        discriminator: note("Invalid role '{value}' in '{item}': use system, developer, user, assistant or tool.", "invalid_value")
    }
};

const tool = {
    type: "object",
    discriminator: {propertyName: "type"},
    oneOf: [{
        properties: {
            type: {const: "function"},
            function: {
                type: "object",
                required: ["name"],
                properties: {
                    name: {type: "string", pattern: namePattern, ...always(`'{param}' must match ${namePattern}.`)},
                    description: anyString,
                    parameters: clientSchema(true),
                    strict: strictFlag
                },
                errors: {type: objectRequired}
            }
        },
        required: ["type", "function"]
    }],
    errors: {type: objectRequired, discriminator: note("Unsupported tool type '{value}': only 'function' tools.", "unsupported_tool_type")}
};

const toolChoice = {
    type: ["string", "object", "null"],
    if: {type: "string"},
    then: {enum: ["auto", "none", "required"], ...always("Invalid tool_choice '{value}': use auto, none, required or a named function.")},
    else: {
        if: {type: "object"},
        then: {
            required: ["type", "function"],
            properties: {
                type: {const: "function", ...always("Unsupported tool_choice type '{value}': only 'function'.")},
                function: {type: "object", required: ["name"], properties: {name: anyString}, errors: {type: objectRequired}}
            }
        }
    },
    errors: {type: note("'{param}' must be a string or an object.", "invalid_type")}
};

const responseFormat = {
    type: ["object", "null"],
    discriminator: {propertyName: "type"},
    oneOf: [
        {properties: {type: {const: "text"}}, required: ["type"]},
        {properties: {type: {const: "json_object"}}, required: ["type"]},
        {
            properties: {
                type: {const: "json_schema"},
                json_schema: {
                    type: "object",
                    required: ["name"],
                    properties: {
                        name: {type: "string", pattern: namePattern, ...always("'{param}' must be 1-64 letters, digits, '_' or '-'.")},
                        description: anyString,
                        schema: clientSchema(false),
                        strict: strictFlag
                    },
                    errors: {type: objectRequired}
                }
            },
            required: ["type", "json_schema"]
        }
    ],
    errors: {discriminator: note("Unsupported response_format type '{value}': use text, json_object or json_schema.")}
};

const tokenCount = {type: ["integer", "null"], minimum: 1, maximum: 100_000_000};

export const chatCompletionRequestSchema = {
    $id: "chatCompletionRequest",
    type: "object",
    additionalProperties: false,
    required: ["messages"],
    properties: {
        model: {type: "string", maxLength: 256},
        messages: {type: "array", minItems: 1, items: message, errors: {minItems: note("'messages' must hold at least one message.")}},
        stream: {type: ["boolean", "null"]},
        stream_options: {
            type: ["object", "null"], additionalProperties: false,
            properties: {include_usage: {type: "boolean"}, include_obfuscation: {type: "boolean"}}
        },
        max_tokens: tokenCount,
        max_completion_tokens: tokenCount,
        temperature: {type: ["number", "null"], minimum: 0, maximum: 2},
        top_p: {type: ["number", "null"], minimum: 0, maximum: 1},
        presence_penalty: {type: ["number", "null"], minimum: -2, maximum: 2},
        frequency_penalty: {type: ["number", "null"], minimum: -2, maximum: 2},
        seed: {type: ["integer", "null"], minimum: -(2 ** 63), maximum: 2 ** 63},
        n: {
            type: ["integer", "null"], minimum: 1, maximum: 1,
            ...always("'n' must be 1: this server generates one choice per request.", "unsupported_value")
        },
        // OpenAI's limit: up to 4 sequences. They end the answer text (not thoughts or tool calls), as `--stop` does.
        stop: {
            type: ["string", "array", "null"], minLength: 1, maxItems: 4, items: {type: "string", minLength: 1},
            ...always("'stop' must be a non-empty string or an array of up to 4 non-empty strings.", "invalid_value")
        },
        tools: {
            type: ["array", "null"], maxItems: maxTools, items: tool,
            errors: {maxItems: note(`Invalid 'tools': array too long. Expected an array with maximum length ${maxTools}.`)}
        },
        tool_choice: toolChoice,
        parallel_tool_calls: {type: ["boolean", "null"]},
        response_format: responseFormat,
        logprobs: {type: ["boolean", "null"]},
        top_logprobs: {type: ["integer", "null"], minimum: 0, maximum: 20},
        reasoning_effort: {enum: ["none", "minimal", "low", "medium", "high", "xhigh", null]},
        verbosity: {enum: ["low", "medium", "high", null]},
        store: {type: ["boolean", "null"]},
        metadata: {$ref: "defs#/$defs/metadata"},
        user: {type: ["string", "null"], maxLength: 512},
        safety_identifier: {type: ["string", "null"], maxLength: 512},
        prompt_cache_key: {type: ["string", "null"], maxLength: 256},
        prompt_cache_retention: {enum: ["in-memory", "in_memory", "24h", null]},
        keep_alive: {$ref: "defs#/$defs/keepAlive"},
        service_tier: {enum: ["auto", "default", null], ...refused("service_tier '{value}' is not supported: use 'auto' or 'default'.")},
        modalities: {
            type: ["array", "null"], items: {const: "text"},
            ...always("Only the 'text' modality is supported.", "unsupported_value")
        },
        logit_bias: {type: ["object", "null"], maxProperties: 0, ...refused("'logit_bias' is not supported by this server.")},
        audio: nullOnly("Audio output is not supported by this server."),
        prediction: nullOnly("Predicted outputs ('prediction') are not supported by this server."),
        web_search_options: nullOnly("'web_search_options' is not supported: this server runs no hosted tools."),
        functions: nullOnly("'functions' is deprecated and not supported: send 'tools'."),
        function_call: nullOnly("'function_call' is deprecated and not supported: send 'tool_choice'.")
    }
};

type TextPartBody = {type: "text", text: string};

export type ChatMessageBody =
    | {role: "system" | "developer", content: string | TextPartBody[], name?: string}
    | {role: "user", content: string | TextPartBody[], name?: string}
    | {
        role: "assistant", content?: string | Array<TextPartBody | {type: "refusal", refusal: string}> | null, refusal?: string | null,
        reasoning_content?: string | null, tool_calls?: ChatToolCallBody[] | null, name?: string, audio?: null, function_call?: null
    }
    | {role: "tool", tool_call_id: string, content: string | TextPartBody[]};

export type ChatToolCallBody = {id: string, type: "function", function: {name: string, arguments: string}};

export type ChatToolBody = {
    type: "function",
    function: {name: string, description?: string, parameters?: Record<string, unknown> | null, strict?: boolean | null}
};

export type ChatResponseFormatBody =
    | {type: "text"} | {type: "json_object"}
    | {type: "json_schema", json_schema: {name: string, description?: string, schema?: Record<string, unknown>, strict?: boolean | null}}
    | null;

/** What `chatCompletionRequestSchema` admits. */
export type ChatCompletionRequestBody = {
    model?: string,
    messages: ChatMessageBody[],
    stream?: boolean | null,
    stream_options?: {include_usage?: boolean, include_obfuscation?: boolean} | null,
    max_tokens?: number | null,
    max_completion_tokens?: number | null,
    temperature?: number | null,
    top_p?: number | null,
    presence_penalty?: number | null,
    frequency_penalty?: number | null,
    seed?: number | null,
    n?: number | null,
    stop?: string | string[] | null,
    tools?: ChatToolBody[] | null,
    tool_choice?: "auto" | "none" | "required" | {type: "function", function: {name: string}} | null,
    parallel_tool_calls?: boolean | null,
    response_format?: ChatResponseFormatBody,
    logprobs?: boolean | null,
    top_logprobs?: number | null,
    reasoning_effort?: "none" | "minimal" | "low" | "medium" | "high" | "xhigh" | null,
    verbosity?: "low" | "medium" | "high" | null,
    store?: boolean | null,
    metadata?: Record<string, string> | null,
    user?: string | null,
    safety_identifier?: string | null,
    prompt_cache_key?: string | null,
    prompt_cache_retention?: "in-memory" | "in_memory" | "24h" | null,
    keep_alive?: KeepAliveBody,
    service_tier?: "auto" | "default" | null,
    modalities?: "text"[] | null,
    logit_bias?: Record<string, number> | null,
    audio?: null,
    prediction?: null,
    web_search_options?: null,
    functions?: null,
    function_call?: null
};
