import type {ChatWrapper, LlamaText} from "node-llama-cpp";
import type {NodeLlamaCpp} from "../../models/loadBinding.js";
import {jsonEnd, parseJson} from "./jsonText.js";

/** A model's answer read the way LlamaChat reads it with `wrapper`: plain text, thoughts, and calls. */
export type ParsedModelOutput = {
    text: string,
    thoughts: string[],
    calls: {name: string, arguments: unknown}[],
    /**
     * The text after a call opener that the wrapper's syntax does not read any further (a per-argument XML call where
     * the wrapper expects JSON): LlamaChat still engages function calling there, but its grammar then forces the name
     * and JSON arguments, so the model's own arguments are not what it writes.
     */
    unreadCall?: string
};

type Binding = Pick<NodeLlamaCpp, "LlamaText">;
type TextLike = string | LlamaText | undefined;

/**
 * Reads a finished model output with `wrapper`'s settings as LlamaChat does while it generates: a thought segment
 * runs from the thought prefix to its suffix; a call starts where `sectionPrefix + prefix` (or one of their alternate
 * matches) appears outside a thought, then comes one of `functionNames`, `paramsPrefix`, JSON arguments and `suffix`;
 * with parallelism, more calls follow after `betweenCalls` until `sectionSuffix`. LlamaChat stops after the calls, so
 * what follows them is dropped.
 *
 * LlamaChat inserts `paramsPrefix` and `suffix` itself (only the name and the arguments are generated), so a model
 * that writes them with different whitespace still calls: whitespace around them is not compared. No weights are
 * needed: this is how tests check that a family's native call text is understood (llama.cpp's test-chat.cpp style).
 */
export function parseModelOutput(
    binding: Binding, wrapper: ChatWrapper, output: string, functionNames: readonly string[]
): ParsedModelOutput {
    const str = (text: TextLike): string => text == null ? "" : binding.LlamaText(text).toString();
    const {functions, segments} = wrapper.settings;
    const thought = segments?.thought;
    const openedOnStart = typeof thought?.prefix === "object" && "type" in thought.prefix && thought.prefix.type === "openedOnStart";
    const thoughtPrefix = openedOnStart ? "" : str(thought?.prefix as TextLike);
    const thoughtSuffix = str(thought?.suffix);
    const sections = [functions.parallelism?.call.sectionPrefix, ...functions.parallelism?.call.sectionPrefixAlternateMatches ?? []];
    const prefixes = [functions.call.prefix, ...functions.call.prefixAlternateMatches ?? []];
    const callOpeners = [...new Set(sections.flatMap((section) => prefixes.map((prefix) => str(section) + str(prefix))))]
        .filter((opener) => opener !== "");

    const state = wrapper.generateContextState({
        chatHistory: [{type: "user", text: ""}, {type: "model", response: []}],
        availableFunctions: Object.fromEntries(functionNames.map((name) => [name, {params: {type: "object"}}])),
        documentFunctionParams: true
    });
    const result: ParsedModelOutput = {text: "", thoughts: [], calls: []};
    let rest = output;
    if (openedOnStart || (thought != null && thought.openOnResponseStart === true))
        rest = readThought(rest.startsWith(thoughtPrefix) ? rest.slice(thoughtPrefix.length) : rest);
    // Wrappers that choose the answer's kind from how it starts (gpt-oss harmony's channels) say so with prefix triggers.
    const triggers = "prefixTriggers" in state ? state.prefixTriggers ?? [] : [];
    const trigger = triggers.flatMap((option) => option.triggers.map((text) => ({option, text: str(text)})))
        .find(({text}) => rest.startsWith(text));
    if (trigger?.option.type === "functionCall") {
        readCalls(skipTailOf(rest.slice(trigger.text.length), str(functions.call.prefix)));
        return result;
    }
    if (trigger?.option.type === "segment" && trigger.option.segmentType === "thought")
        rest = readThought(rest.slice(trigger.text.length));
    else if (trigger != null)
        rest = rest.slice(trigger.text.length);
    const detectsCalls = !("detectFunctionCalls" in state) || state.detectFunctionCalls !== false;
    for (;;) {
        const thoughtAt = thoughtPrefix === "" ? -1 : rest.indexOf(thoughtPrefix);
        const call = detectsCalls ? earliest(rest, callOpeners) : undefined;
        if (call != null && (thoughtAt < 0 || call.at <= thoughtAt)) {
            result.text += rest.slice(0, call.at);
            readCalls(rest.slice(call.at + call.opener.length));
            return result;
        }
        if (thoughtAt < 0) {
            result.text += rest;
            return result;
        }
        result.text += rest.slice(0, thoughtAt);
        rest = readThought(rest.slice(thoughtAt + thoughtPrefix.length));
    }

    function readThought(from: string): string {
        const end = thoughtSuffix.trim() === "" ? -1 : from.indexOf(thoughtSuffix.trim());
        result.thoughts.push((end < 0 ? from : from.slice(0, end)).trim());
        return end < 0 ? "" : skipPrefixOf(from.slice(end), thoughtSuffix.trim());
    }

    function readCalls(from: string): void {
        const between = str(functions.parallelism?.call.betweenCalls);
        let rest = from;
        for (;;) {
            const call = readCall(rest);
            if (call == null) {
                if (result.calls.length === 0)
                    result.unreadCall = rest;
                return;
            }
            result.calls.push(call.call);
            if (functions.parallelism == null)
                return;
            const next = [between + str(functions.call.prefix), str(functions.call.prefix)]
                .map((opener) => opener.trim())
                .find((opener) => opener !== "" && call.rest.trimStart().startsWith(opener));
            if (next == null)
                return;
            rest = call.rest.trimStart().slice(next.length);
        }
    }

    function readCall(from: string): {call: ParsedModelOutput["calls"][number], rest: string} | undefined {
        let rest = functions.call.optionalPrefixSpace === true && from.startsWith(" ") ? from.slice(1) : from;
        const name = functionNames.filter((candidate) => rest.startsWith(candidate)).sort((a, b) => b.length - a.length)[0];
        if (name == null)
            return undefined;
        rest = rest.slice(name.length);
        const paramsPrefix = paramsPrefixPattern(str(functions.call.paramsPrefix).replaceAll("{{functionName}}", name).trim())
            .exec(rest.trimStart());
        if (paramsPrefix == null)
            return undefined;
        rest = rest.trimStart().slice(paramsPrefix[0].length);
        const json = leadingJson(rest.trimStart());
        if (json == null)
            return undefined;
        rest = skipPrefixOf(rest.trimStart().slice(json.length), str(functions.call.suffix).replaceAll("{{functionName}}", name).trim());
        return {call: {name, arguments: JSON.parse(json)}, rest};
    }
}

/**
 * LlamaChat writes the params prefix itself after the name, so the model's own call index there (Kimi K2's
 * `functions.NAME:1`, where the syntax has `:0`) does not stop the call: digits match any digits.
 */
function paramsPrefixPattern(paramsPrefix: string): RegExp {
    return new RegExp(`^${paramsPrefix.split(/\d+/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("\\d+")}`);
}

/** The opener found first in `text` (the longest where two start at the same place). */
function earliest(text: string, openers: readonly string[]): {at: number, opener: string} | undefined {
    let found: {at: number, opener: string} | undefined;
    for (const opener of openers) {
        const at = text.indexOf(opener);
        if (at >= 0 && (found == null || at < found.at || (at === found.at && opener.length > found.opener.length)))
            found = {at, opener};
    }
    return found;
}

/** `text` after the longest end of `prefix` it starts with (a trigger that stands for the start of the prefix). */
function skipTailOf(text: string, prefix: string): string {
    for (let start = 0; start < prefix.length; start++)
        if (text.startsWith(prefix.slice(start)))
            return text.slice(prefix.length - start);
    return text;
}

/** `text` after as much of `expected` as it starts with (whitespace-insensitively at the seam). */
function skipPrefixOf(text: string, expected: string): string {
    const trimmed = text.trimStart();
    let length = 0;
    while (length < expected.length && length < trimmed.length && trimmed[length] === expected[length])
        length++;
    return length === 0 ? text : trimmed.slice(length);
}

/** The JSON object or array `text` starts with, or undefined where none is complete (arguments are always one). */
function leadingJson(text: string): string | undefined {
    const end = jsonEnd(text, 0);
    return end != null && parseJson(text.slice(0, end)) != null ? text.slice(0, end) : undefined;
}
