import {randomUUID} from "node:crypto";
import type {CompletionResult} from "../../engine/completionTypes.js";

/** OpenAI's `text_completion` object, and the chunks of its stream (the same object with a piece of text each). */

export type CompletionUsageBody = {
    prompt_tokens: number, completion_tokens: number, total_tokens: number,
    prompt_tokens_details: {cached_tokens: number}
};

type ChoiceBody = {text: string, index: 0, logprobs: null, finish_reason: "stop" | "length" | null};

export type TextCompletionBody = {
    id: string, object: "text_completion", created: number, model: string, choices: ChoiceBody[], usage?: CompletionUsageBody | null
};

export function completionUsage(usage: CompletionResult["usage"]): CompletionUsageBody {
    return {
        prompt_tokens: usage.inputTokens, completion_tokens: usage.outputTokens, total_tokens: usage.inputTokens + usage.outputTokens,
        prompt_tokens_details: {cached_tokens: usage.cachedTokens}
    };
}

/** A cancelled completion ends as OpenAI reports a cut one: `length` is a cap, `stop` anything the model ended itself. */
function finishReason(result: CompletionResult): "stop" | "length" {
    return result.stopReason === "length" ? "length" : "stop";
}

/** Writes one completion's objects: the same id, creation time and model in each. */
export class TextCompletionWriter {
    private readonly id = `cmpl-${randomUUID().replaceAll("-", "")}`;
    private readonly created = Math.floor(Date.now() / 1000);

    public constructor(private readonly model: string) {}

    /** The whole answer; with `echo`, its text starts with the prompt. */
    public completion(result: CompletionResult, echoed: string): TextCompletionBody {
        return {...this.head([{text: echoed + result.text, index: 0, logprobs: null, finish_reason: finishReason(result)}]),
            usage: completionUsage(result.usage)};
    }

    /** A piece of text as it is generated (the echoed prompt is the first). */
    public textChunk(text: string): TextCompletionBody {
        return this.head([{text, index: 0, logprobs: null, finish_reason: null}]);
    }

    /** The last chunk with a choice: no text, the finish reason. */
    public finishChunk(result: CompletionResult): TextCompletionBody {
        return this.head([{text: "", index: 0, logprobs: null, finish_reason: finishReason(result)}]);
    }

    /** With `stream_options.include_usage`: after the finish, no choices and the usage. */
    public usageChunk(result: CompletionResult): TextCompletionBody {
        return {...this.head([]), usage: completionUsage(result.usage)};
    }

    private head(choices: ChoiceBody[]): TextCompletionBody {
        return {id: this.id, object: "text_completion", created: this.created, model: this.model, choices};
    }
}
