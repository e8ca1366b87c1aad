import type * as vscode from "vscode";
import {generateApiKey} from "../../host/apiKeyFile.js";

const secretName = "localResponses.apiKey";

/**
 * The server's API key, generated on first use and kept in the editor's SecretStorage (the OS keychain where
 * there is one): never in settings, logs or command lines.
 */
export class ApiKeySecret {
    public constructor(private readonly secrets: vscode.SecretStorage) {}

    public async get(): Promise<string> {
        const stored = await this.secrets.get(secretName);
        if (stored != null && stored !== "")
            return stored;
        const key = generateApiKey();
        await this.secrets.store(secretName, key);
        return key;
    }

    /** Replaces the key; clients holding the old one get 401 from the next request on. */
    public async rotate(): Promise<string> {
        const key = generateApiKey();
        await this.secrets.store(secretName, key);
        return key;
    }
}
