/**
 * The part of VS Code's Language Model Chat Provider API this extension uses (`vscode.lm.registerLanguageModelChatProvider`,
 * `contributes.languageModelChatProviders`), finalized in VS Code 1.104. The project builds against @types/vscode 1.90
 * and keeps `engines.vscode` at ^1.90.0, so the API is declared here, structurally (no `vscode` import: the vscode-free
 * logic beside it is unit-tested without an editor), and looked up at run time (`languageModelApiOf`): an older
 * editor gets no provider and the rest of the extension works as before.
 */

/** The vendor `package.json` contributes under `languageModelChatProviders`: how `selectChatModels` finds the model. */
export const chatProviderVendor = "local-responses";

/** `vscode.LanguageModelChatMessageRole` (System is still a proposal in 1.104; other providers send it). */
export const lmRoles = {user: 1, assistant: 2, system: 3} as const;

/** `vscode.LanguageModelChatToolMode`. */
export const lmToolModes = {auto: 1, required: 2} as const;

export type LanguageModelChatInformation = {
    readonly id: string,
    readonly name: string,
    readonly family: string,
    readonly version: string,
    readonly tooltip?: string,
    readonly detail?: string,
    readonly maxInputTokens: number,
    readonly maxOutputTokens: number,
    readonly capabilities: {readonly imageInput?: boolean, readonly toolCalling?: boolean | number}
};

/** A message as the editor hands it to a provider: its parts are instances of the editor's part classes. */
export type LanguageModelChatRequestMessage = {
    readonly role: number,
    readonly content: readonly unknown[],
    readonly name: string | undefined
};

export type LanguageModelChatTool = {readonly name: string, readonly description: string, readonly inputSchema?: object | undefined};

export type ProvideLanguageModelChatResponseOptions = {
    readonly modelOptions?: {readonly [name: string]: unknown},
    readonly tools?: readonly LanguageModelChatTool[],
    readonly toolMode: number
};

/** `vscode.CancellationToken`, `vscode.Event`, `vscode.Progress`, as the provider uses them. */
export type LmCancellationToken = {
    readonly isCancellationRequested: boolean,
    onCancellationRequested(listener: () => unknown): {dispose(): unknown}
};
export type LmEvent = (listener: () => unknown) => {dispose(): unknown};
export type LmProgress = {report(value: unknown): void};

export interface LanguageModelChatProvider {
    readonly onDidChangeLanguageModelChatInformation?: LmEvent;
    provideLanguageModelChatInformation(options: {readonly silent: boolean}, token: LmCancellationToken): LanguageModelChatInformation[];
    provideLanguageModelChatResponse(
        model: LanguageModelChatInformation, messages: readonly LanguageModelChatRequestMessage[],
        options: ProvideLanguageModelChatResponseOptions, progress: LmProgress, token: LmCancellationToken
    ): Promise<void>;
    provideTokenCount(
        model: LanguageModelChatInformation, text: string | LanguageModelChatRequestMessage, token: LmCancellationToken
    ): Promise<number>;
}

/** A class of the `vscode` module, as `instanceof` uses it. */
export type LmClass = abstract new (...args: never[]) => object;

/** The editor's part classes a request's messages are made of (a class the editor lacks is absent). */
export type LmPartClasses = {
    TextPart: LmClass,
    ToolCallPart: LmClass,
    ToolResultPart: LmClass,
    DataPart?: LmClass,
    PromptTsxPart?: LmClass
};

/** What the provider takes from the `vscode` module at run time: found only in an editor that has the API. */
export type LanguageModelApi = {
    registerLanguageModelChatProvider(vendor: string, provider: LanguageModelChatProvider): {dispose(): unknown},
    parts: LmPartClasses,
    newTextPart(value: string): object,
    newToolCallPart(callId: string, name: string, input: object): object,
    /** `vscode.LanguageModelError` for a message (`notFound`: its `NotFound` kind), or a plain Error where it is missing. */
    newError(message: string, notFound: boolean): Error
};
