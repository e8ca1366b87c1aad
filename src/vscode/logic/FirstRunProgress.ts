import {walkthroughKeys} from "./sidebar/viewIds.js";

/** The first-run walkthrough's steps, each done when its context key turns true (package.json `completionEvents`). */
export const walkthroughId = "local-responses.local-responses#firstRun";

export type FirstRunKeys = Record<typeof walkthroughKeys[keyof typeof walkthroughKeys], boolean>;

/**
 * What a new user has done, from real events: a model file known (downloaded or picked), a model loaded, a client
 * given the endpoint and key (Configure Codex wrote or showed its block, or both were copied), and a response seen
 * in the inspector. vscode-free; the face turns changes into context keys.
 */
export class FirstRunProgress {
    private hasModelFile = false;
    private modelLoaded = false;
    private copiedEndpoint = false;
    private copiedKey = false;
    private codexConfigured = false;
    private sawResponse = false;

    public modelFiles(count: number): void {
        this.hasModelFile ||= count > 0;
    }

    public modelState(loaded: boolean): void {
        this.modelLoaded = loaded;
        this.hasModelFile ||= loaded;
    }

    public endpointCopied(): void {
        this.copiedEndpoint = true;
    }

    public keyCopied(): void {
        this.copiedKey = true;
    }

    public codexConfiguredDone(): void {
        this.codexConfigured = true;
    }

    /** The inspector showed a stored response's detail. */
    public responseSeen(): void {
        this.sawResponse = true;
    }

    public keys(): FirstRunKeys {
        return {
            [walkthroughKeys.hasModelFile]: this.hasModelFile,
            [walkthroughKeys.modelLoaded]: this.modelLoaded,
            [walkthroughKeys.clientConnected]: this.codexConfigured || (this.copiedEndpoint && this.copiedKey),
            [walkthroughKeys.sawResponseInInspector]: this.sawResponse
        };
    }
}
