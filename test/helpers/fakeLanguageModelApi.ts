import type {LanguageModelChatProvider} from "../../src/vscode/chatProvider/lmApi.js";

/** Stand-ins for the editor's part classes: the provider tells parts apart by class, as it does in the editor. */
export class TextPart {
    public constructor(public readonly value: string) {}
}

export class ToolCallPart {
    public constructor(public readonly callId: string, public readonly name: string, public readonly input: object) {}
}

export class ToolResultPart {
    public constructor(public readonly callId: string, public readonly content: unknown[]) {}
}

export class DataPart {
    public constructor(public readonly data: Uint8Array, public readonly mimeType: string) {}
}

/** A part class this server does not read (the editor's thinking part has a `value` too). */
export class ThinkingPart {
    public constructor(public readonly value: string) {}
}

export class LanguageModelError extends Error {
    public constructor(message?: string, public readonly code = "Unknown") {
        super(message);
    }

    public static NotFound(message?: string): LanguageModelError {
        return new LanguageModelError(message, "NotFound");
    }
}

/**
 * The members of a `vscode` module of VS Code 1.104+ that `languageModelApiOf` reads; `registered` holds what was
 * registered under which vendor (and whether it was disposed).
 */
export function fakeVscodeModule() {
    const registered: {vendor: string, provider: LanguageModelChatProvider, disposed: boolean}[] = [];
    const module = {
        lm: {
            registerLanguageModelChatProvider(vendor: string, provider: LanguageModelChatProvider) {
                const entry = {vendor, provider, disposed: false};
                registered.push(entry);
                return {dispose: () => (entry.disposed = true)};
            }
        },
        LanguageModelTextPart: TextPart,
        LanguageModelToolCallPart: ToolCallPart,
        LanguageModelToolResultPart: ToolResultPart,
        LanguageModelDataPart: DataPart,
        LanguageModelError
    };
    return {module, registered};
}

/** A cancellation token and its source, as `vscode.CancellationTokenSource` makes them. */
export function cancellationSource() {
    const listeners = new Set<() => unknown>();
    const token = {
        isCancellationRequested: false,
        onCancellationRequested(listener: () => unknown) {
            listeners.add(listener);
            return {dispose: () => listeners.delete(listener)};
        }
    };
    return {
        token,
        cancel() {
            if (token.isCancellationRequested)
                return;
            token.isCancellationRequested = true;
            for (const listener of listeners)
                listener();
        }
    };
}
