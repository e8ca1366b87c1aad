import {statSync} from "node:fs";
import {
    builtinChatTemplates, chatWrapperNames, defaultChatFormatChoice, templateChoice
} from "../../engine/llama/families/chatFormatChoice.js";
import {editorSetting} from "./setting.js";
import {checkedText, choice} from "./settingKinds.js";

const builtinNames = Object.keys(builtinChatTemplates).join(", ");

/** How the local model's prompts are rendered and its tool calls parsed, where detection (docs/models.md) gets it wrong. */
export const chatFormatSettings = {
    chatWrapper: editorSetting({
        kind: choice(chatWrapperNames),
        cli: {
            flag: "chat-wrapper", env: "LOCAL_RESPONSES_CHAT_WRAPPER",
            help: "chat format instead of the detected one: a node-llama-cpp wrapper (chatML, llama3.1, qwen, harmony, mistral, "
                + "deepSeek, jinjaTemplate, …) or a model family id to force its tool-call syntax (docs/models.md; default auto)"
        },
        editor: {
            key: "model.chatWrapper", default: defaultChatFormatChoice.wrapper, reaction: "rebuild", restricted: true,
            scope: "machine-overridable", order: 4, markdown: true,
            description: "The chat format instead of the detected one: `auto` (detection), a node-llama-cpp wrapper (`chatML`, "
                + "`llama3.1`, `qwen`, `harmony`, `mistral`, `deepSeek`, `jinjaTemplate`: the model's own template, …), or a model "
                + "family id to force that family's tool-call syntax. See docs/models.md. The CLI's `--chat-wrapper`."
        },
        apply(config, value) {
            config.chatFormat = {...config.chatFormat, wrapper: value};
        }
    }),
    chatTemplate: editorSetting({
        kind: checkedText(`a Jinja template file or a builtin name (${builtinNames})`, isTemplate),
        cli: {
            flag: "chat-template", env: "LOCAL_RESPONSES_CHAT_TEMPLATE",
            help: `Jinja chat template file rendering the prompts instead of the model's own, or a builtin name (${builtinNames})`
        },
        editor: {
            key: "model.chatTemplate", default: defaultChatFormatChoice.template, reaction: "rebuild", restricted: true,
            scope: "machine-overridable", order: 5, markdown: true,
            description: "A Jinja chat template file (absolute path) that renders the prompts instead of the model's own, "
                + `or a builtin name (${builtinNames.replace(/[^, ]+/g, "`$&`")}). See docs/models.md. The CLI's \`--chat-template\`.`
        },
        apply(config, value) {
            config.chatFormat = {...config.chatFormat, template: value};
        }
    })
};

/** A builtin name, or a file there is (read when the model loads). */
function isTemplate(value: string): boolean {
    if (templateChoice(value).kind === "builtin")
        return true;
    try {
        return statSync(value).isFile();
    } catch {
        return false;
    }
}
