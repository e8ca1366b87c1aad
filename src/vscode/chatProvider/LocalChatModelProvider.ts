import {modelNotLoaded} from "../../protocol/errors.js";
import {GenerationAbort} from "../../responses/abortReasons.js";
import type {LanguageModelChatService} from "../../protocols/lm/LanguageModelChatService.js";
import type {HostController} from "../controller/HostController.js";
import {chatModelInformation, chatModelKey} from "./chatModelInformation.js";
import type {
    LanguageModelApi, LanguageModelChatInformation, LanguageModelChatProvider, LanguageModelChatRequestMessage, LmCancellationToken,
    LmEvent, LmProgress, ProvideLanguageModelChatResponseOptions
} from "./lmApi.js";
import {lmFailure} from "./lmError.js";
import {toLmMessage, toLmOptions} from "./lmMessages.js";
import {Emitter} from "../../protocol/Emitter.js";

/**
 * The served model in the editor's own chat and every `vscode.lm` caller, answered in process: no HTTP, key or port.
 * Requests run on the current host's Responses service (`LanguageModelChatService`: the same admission, queue and
 * prompt-prefix reuse as HTTP requests, so they count in the status bar and the inspector's timings too); the
 * cancellation token aborts them as a disconnected client does. The model list follows the controller: it changes
 * when a model loads or unloads, or another upstream model is connected.
 */
export class LocalChatModelProvider implements LanguageModelChatProvider {
    private service: LanguageModelChatService | null = null;
    private readonly changes = new Emitter<void>();
    private readonly unsubscribes: (() => void)[] = [];

    public constructor(private readonly api: LanguageModelApi, private readonly controller: HostController) {
        let shown = chatModelKey(controller.state);
        this.unsubscribes.push(
            controller.onHost((host) => this.service = host.languageModelChat),
            controller.onChange(() => {
                const next = chatModelKey(controller.state);
                if (next === shown)
                    return;
                shown = next;
                this.changes.emit();
            })
        );
    }

    public readonly onDidChangeLanguageModelChatInformation: LmEvent = (listener) => {
        const off = this.changes.on(() => listener());
        return {dispose: off};
    };

    public provideLanguageModelChatInformation(): LanguageModelChatInformation[] {
        return chatModelInformation(this.controller.state);
    }

    public async provideLanguageModelChatResponse(
        model: LanguageModelChatInformation, messages: readonly LanguageModelChatRequestMessage[],
        options: ProvideLanguageModelChatResponseOptions, progress: LmProgress, token: LmCancellationToken
    ): Promise<void> {
        if (token.isCancellationRequested)
            return;
        const abort = new AbortController();
        const cancellation = token.onCancellationRequested(
            () => abort.abort(new GenerationAbort("cancelled", "the editor cancelled the request"))
        );
        try {
            const lmMessages = messages.map((message) => toLmMessage(message, this.api.parts));
            await this.requireService().respond(model.id, lmMessages, toLmOptions(options), {
                text: (delta) => progress.report(this.api.newTextPart(delta)),
                toolCall: (call) => progress.report(this.api.newToolCallPart(call.callId, call.name, call.input as object))
            }, abort.signal);
        } catch (error) {
            if (token.isCancellationRequested)
                return;
            throw this.failure(error);
        } finally {
            cancellation.dispose();
        }
    }

    public async provideTokenCount(model: LanguageModelChatInformation, text: string | LanguageModelChatRequestMessage): Promise<number> {
        try {
            return await this.requireService().countTokens(model.id, typeof text === "string" ? text : toLmMessage(text, this.api.parts));
        } catch (error) {
            throw this.failure(error);
        }
    }

    private requireService(): LanguageModelChatService {
        if (this.service == null)
            throw modelNotLoaded();
        return this.service;
    }

    private failure(error: unknown): Error {
        const {message, notFound} = lmFailure(error, this.controller.state.engineKind);
        return this.api.newError(message, notFound);
    }

    public dispose(): void {
        for (const off of this.unsubscribes)
            off();
        this.changes.clear();
    }
}
