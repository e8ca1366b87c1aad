import type {LanguageModelApi, LanguageModelChatProvider, LmClass} from "./lmApi.js";

/** The `vscode` module's members the API adds, read at run time (@types/vscode 1.90 does not declare them). */
type LmModule = {
    lm?: {registerLanguageModelChatProvider?: (vendor: string, provider: LanguageModelChatProvider) => {dispose(): unknown}},
    LanguageModelTextPart?: new (value: string) => object,
    LanguageModelToolCallPart?: new (callId: string, name: string, input: object) => object,
    LanguageModelToolResultPart?: LmClass,
    LanguageModelDataPart?: LmClass,
    LanguageModelPromptTsxPart?: LmClass,
    LanguageModelError?: (new (message?: string) => Error) & {NotFound?: (message?: string) => Error}
};

/**
 * The Language Model Chat Provider API of the editor whose `vscode` module this is (VS Code 1.104 and later), or null
 * where it has none: the feature check that keeps the extension activating on older editors.
 */
export function languageModelApiOf(module: unknown): LanguageModelApi | null {
    const lm = module as LmModule;
    const register = lm.lm?.registerLanguageModelChatProvider;
    const {LanguageModelTextPart: TextPart, LanguageModelToolCallPart: ToolCallPart, LanguageModelToolResultPart: ToolResultPart} = lm;
    if (typeof register !== "function" || TextPart == null || ToolCallPart == null || ToolResultPart == null)
        return null;
    const LmError = lm.LanguageModelError;
    return {
        registerLanguageModelChatProvider: (vendor, provider) => register.call(lm.lm, vendor, provider),
        parts: {TextPart, ToolCallPart, ToolResultPart, DataPart: lm.LanguageModelDataPart, PromptTsxPart: lm.LanguageModelPromptTsxPart},
        newTextPart: (value) => new TextPart(value),
        newToolCallPart: (callId, name, input) => new ToolCallPart(callId, name, input),
        newError: (message, notFound) => {
            if (LmError == null)
                return new Error(message);
            return notFound && typeof LmError.NotFound === "function" ? LmError.NotFound(message) : new LmError(message);
        }
    };
}
