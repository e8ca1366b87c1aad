import * as vscode from "vscode";
import type {HostController} from "../controller/HostController.js";
import {languageModelApiOf} from "./languageModelApi.js";
import {chatProviderVendor} from "./lmApi.js";
import {LocalChatModelProvider} from "./LocalChatModelProvider.js";
import type {VscodeChatState} from "./vscodeChatState.js";
import {Emitter} from "../../protocol/Emitter.js";

/**
 * Registers the served model with the editor's chat while `localResponses.chatProvider.enabled` is on (and the editor
 * has the API), and withdraws it when the setting goes off: `update` follows the setting.
 */
export class ChatProviderRegistration implements vscode.Disposable {
    private readonly api = languageModelApiOf(vscode);
    private registered: {provider: LocalChatModelProvider, registration: {dispose(): unknown}} | null = null;
    private readonly changes = new Emitter<void>();

    public constructor(private readonly controller: HostController, private readonly log: (line: string) => void) {}

    public get state(): VscodeChatState {
        if (this.api == null)
            return "unsupported";
        return this.registered != null ? "on" : "off";
    }

    /** Registers or withdraws the provider as the setting says. */
    public update(enabled: boolean): void {
        const before = this.state;
        if (enabled && this.api != null && this.registered == null) {
            const provider = new LocalChatModelProvider(this.api, this.controller);
            try {
                this.registered = {provider, registration: this.api.registerLanguageModelChatProvider(chatProviderVendor, provider)};
            } catch (error) {
                provider.dispose();
                this.log(`VS Code chat: the model could not be offered to the editor's chat: ${(error as Error).message}`);
            }
        } else if (!enabled)
            this.withdraw();
        if (this.state !== before) {
            this.log(`VS Code chat: ${this.state === "on" ? "the served model is offered to the editor's chat (vscode.lm)" : "off"}`);
            this.changes.emit();
        }
    }

    public onChange(listener: () => void): () => void {
        return this.changes.on(listener);
    }

    private withdraw(): void {
        this.registered?.registration.dispose();
        this.registered?.provider.dispose();
        this.registered = null;
    }

    public dispose(): void {
        this.withdraw();
        this.changes.clear();
    }
}
