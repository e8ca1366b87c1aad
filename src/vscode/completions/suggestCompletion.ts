import type {CompletionRequest, CompletionResult, ContextChunk, RawEngine, RawRequestRouting} from "../../engine/completionTypes.js";
import {cursorWindow, type CursorWindow, type DocumentLines} from "./cursorWindow.js";
import {lineEnd, shapeSuggestion, wantsMultiline} from "./suggestionShape.js";

/** How much a suggestion reads and may take (the `localResponses.completions.*` settings). */
export type SuggestionLimits = {prefixLines: number, suffixLines: number, maxTokens: number, timeLimitMs: number};

/** Where a suggestion is asked for: the document, the cursor and the other files' chunks. */
export type SuggestionInput = {
    document: DocumentLines,
    cursor: {line: number, character: number},
    extra: readonly ContextChunk[]
};

export type SuggestionOutcome = {
    /** The ghost text to show at the cursor; null when the model's text left nothing to show, or it was cancelled. */
    text: string | null,
    multiline: boolean,
    /** The engine's answer as it came (what `/metrics` counts). */
    result: CompletionResult
};

/** The engine request for a suggestion at the cursor: the window's prefix and suffix, filled in with the model's FIM tokens. */
export function suggestionRequest(input: SuggestionInput, limits: SuggestionLimits, routing: RawRequestRouting): {
    request: CompletionRequest, window: CursorWindow, multiline: boolean
} {
    const window = cursorWindow(input.document, input.cursor, limits);
    const multiline = wantsMultiline({...window, previousLine: previousLine(input.document, input.cursor.line)});
    return {
        window,
        multiline,
        request: {
            ...routing,
            prompt: window.prefix,
            suffix: window.suffix,
            extra: input.extra,
            maxOutputTokens: limits.maxTokens,
            // Greedy: the same place asks for the same suggestion, and the likeliest code is what a person wants shown.
            sampling: {temperature: 0},
            // One line: generation stops at its end, not only the text shown.
            stopSequences: multiline ? undefined : [lineEnd],
            timeLimitMs: limits.timeLimitMs
        }
    };
}

/**
 * Asks the engine for a suggestion at the cursor and shapes its text (one line or a block body, nothing the file
 * already has after the cursor). `routing.signal` aborts generation at once: the editor's next keystroke does.
 */
export async function suggestCompletion(engine: Pick<RawEngine, "complete">, input: SuggestionInput, limits: SuggestionLimits,
    routing: RawRequestRouting): Promise<SuggestionOutcome> {
    const {request, window, multiline} = suggestionRequest(input, limits, routing);
    const result = await engine.complete(request);
    if (result.stopReason === "abort" || routing.signal?.aborted === true)
        return {text: null, multiline, result};
    const text = shapeSuggestion(result.text, {...window, previousLine: previousLine(input.document, input.cursor.line)}, multiline);
    return {text, multiline, result};
}

/** The nearest non-blank line above `line` (empty when none): a blank line after a block header continues the block. */
function previousLine(document: DocumentLines, line: number): string {
    for (let index = line - 1; index >= 0 && index >= line - 8; index--) {
        const text = document.lineAt(index);
        if (text.trim() !== "")
            return text;
    }
    return "";
}
