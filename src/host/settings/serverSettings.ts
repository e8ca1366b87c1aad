import {cliSetting, editorSetting} from "./setting.js";
import {boolean, integer, list, text} from "./settingKinds.js";

/** Where the server listens and who may call it; and whether the editor starts it and offers its model to its chat. */
export const serverSettings = {
    host: editorSetting({
        kind: text(),
        cli: {flag: "host", env: "LOCAL_RESPONSES_HOST", help: "address to bind (default 127.0.0.1)"},
        editor: {
            key: "server.host", default: "127.0.0.1", reaction: "restartServer", restricted: true, scope: "machine", order: 10,
            markdown: true,
            description: "Address the server binds. Keep a loopback address: requests must name a loopback host anyway (DNS "
                + "rebinding protection)."
        },
        apply(config, value) {
            config.host = value;
        }
    }),
    port: editorSetting({
        kind: integer({min: 0, max: 65535}),
        cli: {flag: "port", env: "LOCAL_RESPONSES_PORT", help: "port (default 8080; 0 picks a free one)"},
        editor: {
            key: "server.port", default: 8080, reaction: "restartServer", restricted: true, scope: "machine", order: 11,
            description: "Port (0 picks a free one). Changing it restarts the server."
        },
        apply(config, value) {
            config.port = value;
        }
    }),
    apiKey: cliSetting({
        kind: list({many: "API keys"}),
        cli: {flag: "api-key", env: "LOCAL_RESPONSES_API_KEY", help: "accepted API key (repeatable; env: comma-separated)"},
        apply(config, value) {
            config.apiKeys = value;
        }
    }),
    adminApiKey: cliSetting({
        kind: list({many: "API keys"}),
        cli: {
            flag: "admin-api-key", env: "LOCAL_RESPONSES_ADMIN_API_KEY",
            help: "the operator's API key, accepted besides the others: sees every key's traffic, may unload models and pin them "
                + "(keep_alive < 0); without one, only a server of a single key lets it (repeatable; env: comma-separated)"
        },
        apply(config, value) {
            config.adminApiKeys = value;
        }
    }),
    apiKeyFile: cliSetting({
        kind: text(),
        cli: {
            flag: "api-key-file", env: "LOCAL_RESPONSES_API_KEY_FILE",
            help: "0600 file holding the key (or several, one per line), created with a new key if missing (default "
                + "~/.config/local-responses/api-key)"
        }
    }),
    noAuth: cliSetting({
        kind: boolean(),
        cli: {
            flag: "no-auth", env: "LOCAL_RESPONSES_NO_AUTH",
            help: "serve without an API key (refused off loopback and with --allowed-origins '*'; not recommended)"
        }
    }),
    autoStart: editorSetting({
        kind: boolean(),
        editor: {
            key: "autoStart", default: true, reaction: "none", restricted: true, order: 4,
            description: "Load the configured model and start the server when the editor starts. Without a model configured, "
                + "nothing is loaded."
        }
    }),
    /** Offer the served model to the editor's chat (`vscode.lm`, VS Code 1.104+): applied without touching the host. */
    chatProviderEnabled: editorSetting({
        kind: boolean(),
        editor: {
            key: "chatProvider.enabled", default: true, reaction: "none", restricted: true, order: 5, markdown: true,
            description: "Offer the served model to VS Code's own chat and to every extension that uses `vscode.lm` (the chat "
                + "view's model picker lists it under **Local Responses**), answered in process: no server, key or port "
                + "needed. Needs VS Code 1.104 or later."
        }
    })
};
