import {readFile} from "node:fs/promises";
import type {ChatWrapper, LlamaModel} from "node-llama-cpp";
import type {NodeLlamaCpp} from "../../models/loadBinding.js";
import {
    defaultChatFormatChoice, templateChoice, wrapperChoice, type ChatFormatChoice, type NodeLlamaCppWrapperName
} from "./chatFormatChoice.js";
import {modelFamily, withFamilySyntax, type FamilyWrapper} from "./familyChatWrapper.js";
import {detectFamily, type ModelFamily} from "./familyTable.js";

/**
 * The wrapper a model is served with: detection (`resolveFamilyChatWrapper`'s) unless a person chose otherwise.
 * - a node-llama-cpp wrapper name, or a builtin template: exactly that wrapper, no family syntax;
 * - a Jinja file: node-llama-cpp's Jinja wrapper on it, and the family its text belongs to (its own fingerprint);
 * - a family id: the family's call syntax on whatever renders (the model's wrapper, or the file), replaced in any case.
 */
export async function resolveChosenChatWrapper(binding: NodeLlamaCpp, model: LlamaModel,
    choice: ChatFormatChoice = defaultChatFormatChoice): Promise<FamilyWrapper & {family: ModelFamily | undefined}> {
    const wrapper = wrapperChoice(choice.wrapper);
    if (wrapper == null)
        throw new Error(`unknown chat wrapper '${choice.wrapper}'`);
    const rendering = await renderingWrapper(binding, model, wrapper.kind === "wrapper" ? wrapper.type : null, choice.template);
    const forced = wrapper.kind === "family";
    const family = forced ? wrapper.family : rendering.family;
    return {...withFamilySyntax(binding, rendering.wrapper, family, forced), family};
}

/** The wrapper that renders the prompt, and the family detected in the template it renders (none for a named wrapper). */
async function renderingWrapper(binding: NodeLlamaCpp, model: LlamaModel, type: NodeLlamaCppWrapperName | null,
    templateValue: string | null): Promise<{wrapper: ChatWrapper, family: ModelFamily | undefined}> {
    const template = templateChoice(templateValue);
    if (type != null)
        return {wrapper: binding.resolveChatWrapper(model, {type}), family: undefined};
    if (template.kind === "builtin")
        return {wrapper: binding.resolveChatWrapper(model, {type: template.type}), family: undefined};
    if (template.kind === "model")
        return {wrapper: binding.resolveChatWrapper(model), family: modelFamily(model)};
    const text = await readFile(template.path, "utf8").catch((error: NodeJS.ErrnoException) => {
        throw new Error(`cannot read the chat template file ${template.path}: ${error.code ?? error.message}`);
    });
    // No fallback to another wrapper: a template that does not parse is the file's problem, said at load.
    const wrapper = binding.resolveChatWrapper(model, {
        type: "jinjaTemplate", customWrapperSettings: {jinjaTemplate: {template: text}}, fallbackToOtherWrappersOnJinjaError: false
    });
    return {wrapper, family: detectFamily(text)};
}
