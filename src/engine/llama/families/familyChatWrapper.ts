import type {ChatWrapper, LlamaModel} from "node-llama-cpp";
import type {NodeLlamaCpp} from "../../models/loadBinding.js";
import {detectFamily, type ModelFamily} from "./familyTable.js";
import {withoutThoughtStopTriggers} from "./thoughtStopTriggers.js";
import {withGemma4Calls} from "./gemma4Calls.js";
import {withSeedUserTurns} from "./seedUserTurns.js";
import {withToolListInSystem} from "./toolListInSystem.js";
import {withToolResultsAsText} from "./toolResultsAsText.js";
import {nativeCallSyntax, type CallSyntax} from "./nativeCallSyntax.js";

/** What the engine says about a model's chat format: which wrapper renders it, and whether its own calls are understood. */
export type ChatFormat = {
    /** node-llama-cpp's wrapper name, with the family whose call syntax replaced its own (`JinjaTemplate+kimi-k2`). */
    wrapper: string,
    family: string | null,
    /**
     * false where the calls are parsed in node-llama-cpp's generic `||call: NAME(…)` syntax, which no model is trained
     * to write: tool calls work only when forced (tool_choice required or named).
     */
    toolCallsUnderstood: boolean
};

/** The wrapper a model is served with: node-llama-cpp's, with the family's own call syntax where node-llama-cpp's is wrong. */
export type FamilyWrapper = {wrapper: ChatWrapper, format: ChatFormat};

export function resolveFamilyChatWrapper(binding: NodeLlamaCpp, model: LlamaModel): FamilyWrapper & {family: ModelFamily | undefined} {
    const family = modelFamily(model);
    return {...withFamilySyntax(binding, binding.resolveChatWrapper(model), family), family};
}

/** The family the model's chat template (GGUF `tokenizer.chat_template`) belongs to, if it is one the table knows. */
export function modelFamily(model: LlamaModel): ModelFamily | undefined {
    const template = model.fileInfo.metadata.tokenizer?.chat_template;
    return detectFamily(typeof template === "string" ? template : undefined);
}

/** With `forced` (a person named the family) its syntax replaces the wrapper's whatever the table's `replace` says. */
export function withFamilySyntax(binding: NodeLlamaCpp, resolved: ChatWrapper, family: ModelFamily | undefined,
    forced = false): FamilyWrapper {
    const roles = withGemma4Calls(binding, withSeedUserTurns(binding, resolved));
    const shown = family?.toolList == null ? roles : withToolListInSystem(roles, family.toolList);
    const base = withoutThoughtStopTriggers(binding, withToolResultsAsText(binding, shown));
    const generic = usesGenericCallSyntax(binding, base);
    // A text-call family's own calls are read from the answer's text (textCallWrapper.ts), whatever the wrapper's syntax.
    if (family?.textCalls != null)
        return {wrapper: base, format: {wrapper: `${base.wrapperName}+${family.id}`, family: family.id, toolCallsUnderstood: true}};
    if (family == null || (!forced && family.replace === "ifGeneric" && !generic))
        return {wrapper: base, format: {wrapper: base.wrapperName, family: family?.id ?? null, toolCallsUnderstood: !generic}};
    const wrapper = withCallSyntax(base, nativeCallSyntax(family.callSyntax, binding), `${base.wrapperName}+${family.id}`);
    return {wrapper, format: {wrapper: wrapper.wrapperName, family: family.id, toolCallsUnderstood: true}};
}

/**
 * A view of `base` whose function-call settings are `syntax`: LlamaChat detects and parses calls with them, and the
 * wrapper renders the tools' documentation, earlier calls and their results with them (node-llama-cpp's wrappers
 * render from `this.settings` wherever their template does not render tool calls itself). Everything else (the
 * template, thoughts, stop triggers) stays `base`'s.
 */
function withCallSyntax(base: ChatWrapper, syntax: CallSyntax, wrapperName: string): ChatWrapper {
    const view = Object.create(base) as ChatWrapper;
    Object.defineProperty(view, "settings", {value: {...base.settings, functions: syntax}});
    Object.defineProperty(view, "wrapperName", {value: wrapperName});
    return view;
}

/** node-llama-cpp's default syntax (`||call: NAME(`), which its Jinja wrapper falls back to when extraction fails. */
function usesGenericCallSyntax(binding: NodeLlamaCpp, wrapper: ChatWrapper): boolean {
    const prefix = wrapper.settings.functions.call.prefix;
    return binding.LlamaText(prefix).toString() === binding.LlamaText(binding.ChatWrapper.defaultSettings.functions.call.prefix).toString();
}
