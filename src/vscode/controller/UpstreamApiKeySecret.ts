import type * as vscode from "vscode";

const secretName = "localResponses.upstreamApiKey";

/**
 * The bearer key the upstream Chat Completions servers want (`localResponses.engine`: upstream), kept in the
 * editor's SecretStorage like the server's own key: never in settings, logs or command lines. None by default.
 */
export class UpstreamApiKeySecret {
    public constructor(private readonly secrets: vscode.SecretStorage) {}

    public async get(): Promise<string | null> {
        const stored = await this.secrets.get(secretName);
        return stored != null && stored !== "" ? stored : null;
    }

    /** Stores the key; an empty one removes it (upstreams without authentication). */
    public async set(key: string): Promise<void> {
        if (key === "")
            await this.secrets.delete(secretName);
        else
            await this.secrets.store(secretName, key);
    }
}
