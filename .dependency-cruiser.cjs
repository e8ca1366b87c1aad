/**
 * The layers of docs/architecture.md, checked in `npm test` (test/architecture.test.ts runs dependency-cruiser):
 * each folder imports only the folders below it, node-llama-cpp only in src/engine/llama and src/engine/models, the llama
 * engine only from src/engine and src/host, vscode only in the VS Code face,
 * and no import circles.
 */
const below = {
    protocol: [],
    engine: ["protocol"],
    responses: ["protocol", "engine"],
    // Each foreign protocol (Chat Completions, Messages, vscode.lm) maps onto the Responses domain.
    protocols: ["protocol", "engine", "responses"],
    // Storage implements the ports src/responses declares (structurally), knowing only the wire vocabulary.
    store: ["protocol"],
    server: ["protocol", "engine", "responses", "protocols", "store"],
    host: ["protocol", "engine", "responses", "protocols", "store", "server"]
};
const layerRule = (layer) => ({
    name: `${layer}-imports-only-below`,
    comment: `src/${layer} may import only `
        + (below[layer].length === 0 ? "nothing of ours" : below[layer].map((name) => `src/${name}`).join(", ")),
    severity: "error",
    from: {path: `^src/${layer}/`},
    to: {path: "^src/", pathNot: [`^src/${layer}/`, ...below[layer].map((name) => `^src/${name}/`)]}
});

module.exports = {
    forbidden: [
        ...Object.keys(below).map(layerRule),
        {
            name: "only-llama-engine-and-model-tools-import-node-llama-cpp",
            comment: "node-llama-cpp is the local engine's (src/engine/llama) and the model-file tools' (src/engine/models) alone",
            severity: "error",
            from: {path: "^src/", pathNot: "^src/engine/(llama|models)/"},
            to: {path: "node_modules/(node-llama-cpp|@node-llama-cpp)/"}
        },
        {
            name: "llama-engine-only-behind-the-port",
            comment: "the domain, the server and the faces know engines by the port (src/engine/*.ts); only the host picks LlamaEngine",
            severity: "error",
            from: {path: "^src/", pathNot: "^src/(engine|host)/"},
            to: {path: "^src/engine/llama/"}
        },
        {
            name: "a-foreign-protocol-imports-no-other",
            comment: "each foreign protocol's folder of src/protocols (chat, messages, lm) maps onto the Responses domain "
                + "alone: none imports another's",
            severity: "error",
            from: {path: "^src/protocols/([^/]+)/"},
            to: {path: "^src/protocols/[^/]+/", pathNot: "^src/protocols/$1/"}
        },
        {
            name: "protocol-routes-mount-their-adapter",
            comment: "routes mount a protocol's adapter (its service, a ProtocolAdapter): they import nothing else of "
                + "src/protocols",
            severity: "error",
            from: {path: "^src/server/routes/"},
            to: {
                path: "^src/protocols/",
                pathNot: "^src/protocols/(ProtocolAdapter|chat/ChatCompletionsService|messages/MessagesService|"
                    + "completions/(CompletionsService|EmbeddingsService)|infill/InfillService)\\.ts$"
            }
        },
        {
            name: "only-vscode-face-imports-vscode",
            severity: "error",
            from: {path: "^(src|webview)/", pathNot: ["^src/vscode/", "^src/extension\\.ts$"]},
            to: {path: "^vscode$"}
        },
        {
            name: "faces-are-not-imported",
            comment: "nothing below the faces imports src/vscode, src/extension.ts or src/cli.ts",
            severity: "error",
            from: {path: "^src/(engine|responses|store|server|host)/"},
            to: {path: "^src/(vscode/|extension\\.ts$|cli\\.ts$)"}
        },
        {
            name: "editor-features-import-not-their-composition",
            comment: "an editor feature (a folder of src/vscode) imports no file of src/vscode's root: the root composes the "
                + "features (LocalResponsesExtension, HostSession), so a feature that imported it back would make a folder loop",
            severity: "error",
            from: {path: "^src/vscode/[^/]+/"},
            to: {path: "^src/vscode/[^/]+\\.ts$"}
        },
        {
            name: "webview-imports-only-the-shared-inspector-files",
            comment: "the browser bundle shares with the extension only src/vscode/inspector/shared/ (and the protocol types it names)",
            severity: "error",
            from: {path: "^webview/"},
            to: {path: "^src/", pathNot: ["^src/vscode/inspector/shared/", "^src/protocol/"]}
        },
        {
            name: "shared-inspector-files-are-browser-safe",
            comment: "src/vscode/inspector/shared/ runs in the webview too: no Node built-ins, no vscode, nothing of ours but "
                + "protocol types",
            severity: "error",
            from: {path: "^src/vscode/inspector/shared/"},
            to: {pathNot: ["^src/vscode/inspector/shared/", "^src/protocol/"]}
        },
        {
            name: "no-circular",
            severity: "error",
            from: {path: "^(src|webview)/"},
            to: {circular: true}
        }
    ],
    options: {
        doNotFollow: {path: "node_modules"},
        exclude: {path: "^(test|bench|scripts|dist)/"},
        tsConfig: {fileName: "tsconfig.json"},
        tsPreCompilationDeps: true,
        enhancedResolveOptions: {exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default", "types"]}
    }
};
