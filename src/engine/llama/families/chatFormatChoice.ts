import type {SpecializedChatWrapperTypeName} from "node-llama-cpp";
import {modelFamilies, type ModelFamily} from "./familyTable.js";

/**
 * What a person chose instead of detecting the chat format (`--chat-wrapper`, `--chat-template` and their editor
 * settings). No node-llama-cpp at run time here: the CLI checks the names before the binding loads.
 */
export type ChatFormatChoice = {
    /** `auto` (detection), a node-llama-cpp wrapper name, or a family id (`familyTable.ts`) to force that family's call syntax. */
    wrapper: string,
    /** null: the model's own template; else a builtin name (`builtinChatTemplates`) or the path of a Jinja file. */
    template: string | null
};

export const autoChatWrapper = "auto";

export const defaultChatFormatChoice: ChatFormatChoice = {wrapper: autoChatWrapper, template: null};

/**
 * node-llama-cpp's wrappers that can be named (`resolveChatWrapper`'s `type`): its specialized ones, and `jinjaTemplate`
 * (the model's own template through its Jinja wrapper). Its `template` wrapper needs a template in a format of its own.
 */
export const nodeLlamaCppWrapperNames = [
    "general", "deepSeek", "qwen", "llama3.2-lightweight", "llama3.1", "llama3", "llama2Chat", "mistral", "alpacaChat",
    "functionary", "chatML", "falconChat", "gemma4", "gemma", "harmony", "muse", "seed", "jinjaTemplate"
] as const satisfies readonly (SpecializedChatWrapperTypeName | "jinjaTemplate")[];

export type NodeLlamaCppWrapperName = typeof nodeLlamaCppWrapperNames[number];

/** A node-llama-cpp update that adds a specialized wrapper fails to compile here until the list above names it. */
export const everySpecializedWrapperListed: [Exclude<SpecializedChatWrapperTypeName, NodeLlamaCppWrapperName>] extends [never]
    ? true : never = true;

/** Every name `--chat-wrapper` takes, in the order messages list them. */
export const chatWrapperNames: readonly string[] = [autoChatWrapper, ...nodeLlamaCppWrapperNames, ...modelFamilies.map(({id}) => id)];

/**
 * llama.cpp's built-in `--chat-template` names (src/llama-chat.cpp) whose format a node-llama-cpp wrapper renders, so
 * that a llama-server command line's `--chat-template chatml` means the same here.
 */
export const builtinChatTemplates = {
    "chatml": "chatML",
    "llama2": "llama2Chat",
    "llama3": "llama3",
    "mistral-v7": "mistral",
    "deepseek3": "deepSeek",
    "gemma": "gemma",
    "gpt-oss": "harmony",
    "seed_oss": "seed"
} as const satisfies Record<string, SpecializedChatWrapperTypeName>;

export type WrapperChoice =
    | {kind: "auto"}
    | {kind: "wrapper", type: NodeLlamaCppWrapperName}
    | {kind: "family", family: ModelFamily};

export type TemplateChoice =
    | {kind: "model"}
    | {kind: "builtin", name: string, type: SpecializedChatWrapperTypeName}
    | {kind: "file", path: string};

/** What a `--chat-wrapper` name means; null for a name that is none of `chatWrapperNames`. */
export function wrapperChoice(name: string): WrapperChoice | null {
    if (name === autoChatWrapper)
        return {kind: "auto"};
    const family = modelFamilies.find(({id}) => id === name);
    if (family != null)
        return {kind: "family", family};
    const type = nodeLlamaCppWrapperNames.find((known) => known === name);
    return type == null ? null : {kind: "wrapper", type};
}

/** What a `--chat-template` value means: a builtin name, else a file's path (whether it exists is checked where it is read). */
export function templateChoice(value: string | null): TemplateChoice {
    if (value == null)
        return {kind: "model"};
    return Object.hasOwn(builtinChatTemplates, value)
        ? {kind: "builtin", name: value, type: builtinChatTemplates[value as keyof typeof builtinChatTemplates]}
        : {kind: "file", path: value};
}

/**
 * Both choose the prompt's renderer: a node-llama-cpp wrapper renders its own format and ignores any template. A family
 * id goes with a template (the template renders, the family's syntax parses the calls).
 */
export function wrapperAndTemplateConflict(choice: ChatFormatChoice): boolean {
    return choice.template != null && wrapperChoice(choice.wrapper)?.kind === "wrapper";
}
