/**
 * Type-only checks, run by `npm run typecheck` (part of `npm test`): what this server puts on the wire is assignable to
 * the `openai` package's own types, so an SDK user reads our objects and events as OpenAI's.
 *
 * One rule is relaxed on both sides: `null` and absent count as the same. The Open Responses schema (which
 * test/helpers/conformance.ts validates every emitted object against) writes an unset field as `null` where the SDK
 * types some of them optional (`user`, a JSON schema's `description`); SDK users read both the same.
 */
import type OpenAI from "openai";
import type {ResponseObject, StreamEvent} from "../../src/protocol/wire.js";

type Assignable<T extends U, U> = T;
type NullAsAbsent<T> = T extends null ? undefined
    : T extends readonly (infer Element)[] ? NullAsAbsent<Element>[]
        : T extends object ? {[Key in keyof T]: NullAsAbsent<T[Key]>}
            : T;

/**
 * `output_text` is computed by the SDK itself from `output`; `access_programs` (service tiers' access programs) and
 * `usage.input_tokens_details.cache_write_tokens` (prompt-cache writes, billed apart) are OpenAI platform fields newer
 * than the Open Responses schema, with no meaning for a local server. `error.code` is a string here: this server's
 * failures extend OpenAI's list of model failure codes (`context_length_exceeded`, structured output that failed its
 * schema, ...), which the SDK types as a closed union.
 */
type OpenAIResponse = Omit<OpenAI.Responses.Response, "output_text" | "access_programs" | "usage" | "error"> & {
    usage?: OpenAIUsage | null,
    error: (Omit<OpenAI.Responses.ResponseError, "code"> & {code: string}) | null
};
type OpenAIUsage = Omit<OpenAI.Responses.ResponseUsage, "input_tokens_details"> & {
    input_tokens_details: Omit<OpenAI.Responses.ResponseUsage["input_tokens_details"], "cache_write_tokens" | "cache_write_tokens_details">
};
export type ResponseIsOpenAIs = Assignable<NullAsAbsent<ResponseObject>, NullAsAbsent<OpenAIResponse>>;

/**
 * Every event but this server's compaction progress events (an extension; OpenAI's clients skip unknown types) and
 * `keepalive` (OpenAI's own, which this SDK version parses but does not list in `ResponseStreamEvent`).
 */
type OurEvents = Exclude<StreamEvent, {type: "response.compaction.started" | "response.compaction.completed" | "keepalive"}>;
/** Lifecycle events carry the response object, checked above: here, the rest of each event. */
type WithoutResponse<Event> = Event extends {response: unknown} ? Omit<Event, "response"> : Event;
export type EventsAreOpenAIs =
    Assignable<NullAsAbsent<WithoutResponse<OurEvents>>, NullAsAbsent<WithoutResponse<OpenAI.Responses.ResponseStreamEvent>>>;
