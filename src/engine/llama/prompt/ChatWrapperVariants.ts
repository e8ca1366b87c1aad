import type {ChatWrapper, LlamaModel} from "node-llama-cpp";
import {withFamilySyntax} from "../families/familyChatWrapper.js";
import type {ModelFamily} from "../families/familyTable.js";
import {textCallFormats, type TextCallFormat} from "../families/textCallFormats.js";
import {withTextCalls} from "../families/textCallWrapper.js";
import {withThoughtOpenedOnStart} from "../families/thoughtOpenedOnStart.js";
import {forceFunctionCalls} from "./forcedFunctionCalls.js";
import type {NodeLlamaCpp} from "../../models/loadBinding.js";
import type {PromptShape} from "../../types.js";

export type {PromptShape};

/**
 * The chat wrappers one model is rendered with, resolved once at load (resolving costs up to
 * 0.6 s): its own, its "thinking discouraged" variant (reasoning effort `none`), and the
 * forced-call view used for `tool_choice` required/named. A forced call always renders with
 * thinking discouraged: with thinking on, the call would sit inside an unclosed thought.
 * Thinking on opens the thought where the template's prompt would close an empty one (thoughtOpenedOnStart.ts:
 * DeepSeek V3.1, Kimi K2 Thinking, GLM-4.7, Nemotron 3 Nano); thinking off keeps the template's closed thought.
 * For a family whose calls are read from text (`textCalls`), the unforced variants are free-generation views
 * (textCallWrapper.ts) that render the same prompt. gpt-oss (node-llama-cpp's Harmony wrapper) takes the effort as its
 * system prompt's `Reasoning: low|medium|high` line: a variant per level.
 */
export class ChatWrapperVariants {
    public readonly thinks: boolean;
    /** How the model's own calls are read from its text, for the wrappers `textCallsOf` names. */
    public readonly textCalls: TextCallFormat | undefined;
    private readonly thinking: ChatWrapper;
    private readonly thinkingOff: ChatWrapper;
    private readonly forced: ChatWrapper;
    /** The effort levels a wrapper names in its prompt (Harmony's), other than its default (`medium`). */
    private readonly levels = new Map<PromptLevel, ChatWrapper>();

    public constructor(public readonly base: ChatWrapper, binding: NodeLlamaCpp, model: LlamaModel, family?: ModelFamily) {
        this.thinks = base.settings.segments?.thought != null;
        // Thinking off in each wrapper's own way: Qwen's empty thought, Seed-OSS's thinking budget of 0.
        const discouraged = (): ChatWrapper => binding.resolveChatWrapper(model,
            {customWrapperSettings: {qwen: {thoughts: "discourage"}, seed: {thinkingBudget: 0}}});
        const thinkingOff = this.thinks ? withFamilySyntax(binding, discouraged(), family).wrapper : base;
        this.forced = forceFunctionCalls(thinkingOff, binding);
        this.textCalls = family?.textCalls == null ? undefined : textCallFormats[family.textCalls];
        const free = (wrapper: ChatWrapper) => this.textCalls == null ? wrapper : withTextCalls(binding, wrapper);
        const opened = withThoughtOpenedOnStart(binding, base);
        this.thinking = free(opened);
        this.thinkingOff = thinkingOff === opened ? this.thinking : free(thinkingOff);
        if (base.wrapperName === "Harmony")
            for (const level of ["low", "high"] as const) {
                const resolved = binding.resolveChatWrapper(model, {customWrapperSettings: {harmony: {reasoningEffort: level}}});
                this.levels.set(level, free(withThoughtOpenedOnStart(binding, withFamilySyntax(binding, resolved, family).wrapper)));
            }
    }

    public for(shape: PromptShape): ChatWrapper {
        if (shape.toolMode?.type === "required")
            return this.forced;
        // A JSON grammar constrains every token, a thought's too: structured output is generated without thinking.
        if (shape.thoughtBudget === 0 || shape.json != null)
            return this.thinkingOff;
        return this.levels.get(promptLevel(shape.reasoningEffort)) ?? this.thinking;
    }

    /** The text call format a wrapper `for` chose generates with: every variant but the forced call's is free. */
    public textCallsOf(wrapper: ChatWrapper): TextCallFormat | undefined {
        return wrapper === this.forced ? undefined : this.textCalls;
    }
}

type PromptLevel = "low" | "medium" | "high";

/** The three levels a prompt can name: `minimal` asks for the least there is, `xhigh` for the most. */
function promptLevel(effort: PromptShape["reasoningEffort"]): PromptLevel {
    return effort === "minimal" || effort === "low" ? "low" : effort === "high" || effort === "xhigh" ? "high" : "medium";
}
