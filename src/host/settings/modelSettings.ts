import {defaultUpstreamTimeoutSeconds} from "../../engine/upstream/UpstreamEngine.js";
import {isUpstreamUrl, type HostConfig} from "../config.js";
import {cliSetting, editorSetting} from "./setting.js";
import {choice, entries, integer, list, optionalText, text} from "./settingKinds.js";

/** What answers requests: the engine, the local model file, the upstream servers; and where the editor finds models. */
export const modelSettings = {
    engine: editorSetting({
        kind: choice<HostConfig["engine"]>(["local", "upstream"]),
        cli: {
            flag: "engine", env: "LOCAL_RESPONSES_ENGINE",
            help: "local (a GGUF file, the default) or upstream (OpenAI-compatible Chat Completions servers; docs/upstream.md)"
        },
        editor: {
            key: "engine", default: "local", reaction: "rebuild", restricted: true, scope: "machine", order: 0, markdown: true,
            description: "What answers requests: `local` (a GGUF file on this machine, the default) or `upstream` (the servers "
                + "in `#localResponses.upstream.urls#`; stored responses, background jobs and the rest of the Responses "
                + "API stay here). The CLI's `--engine`.",
            enumDescriptions: [
                "A GGUF model file run on this machine (localResponses.model.path)",
                "OpenAI-compatible Chat Completions servers (localResponses.upstream.urls): vLLM, SGLang, llama-server, Ollama"
            ]
        },
        apply(config, value) {
            config.engine = value;
        }
    }),
    modelPath: editorSetting({
        kind: optionalText(),
        cli: {flag: "model", env: "LOCAL_RESPONSES_MODEL", help: "GGUF model file to serve (required with --engine local)"},
        editor: {
            key: "model.path", default: null, reaction: "loadModel", restricted: true, scope: "machine-overridable", order: 1,
            markdown: true,
            description: "GGUF model file to serve. `~` is your home folder; a relative path is relative to the first "
                + "workspace folder. Set by **Local Responses: Load Model…**."
        },
        apply(config, value) {
            config.modelPath = value;
        }
    }),
    upstreamUrls: editorSetting({
        kind: list({many: "http(s) URLs", item: {one: "an http(s) URL", test: isUpstreamUrl}}),
        cli: {
            flag: "upstream", env: "LOCAL_RESPONSES_UPSTREAM",
            help: "base URL of a Chat Completions server for --engine upstream, or beside --model/--models-dir, routed by model name "
                + "(repeatable; env: comma-separated)"
        },
        editor: {
            key: "upstream.urls", default: [], reaction: "rebuild", restricted: true, scope: "machine", order: 0, markdown: true,
            description: "Base URLs of the Chat Completions servers for `#localResponses.engine#`: `upstream`, e.g. "
                + "`http://gpu-box:8000/v1`. Several: health-checked, least-loaded first, a conversation stays on its "
                + "server. With `local` and a `#localResponses.models.directory#`, their models are served beside the "
                + "folder's, routed by name. The API key they need: **Local Responses: Set Upstream API Key…** (kept in "
                + "SecretStorage). The CLI's `--upstream`."
        },
        apply(config, value) {
            config.upstream.urls = value;
        }
    }),
    upstreamApiKey: cliSetting({
        kind: text(),
        cli: {flag: "upstream-api-key", env: "LOCAL_RESPONSES_UPSTREAM_API_KEY", help: "bearer key sent to the upstreams (never logged)"},
        apply(config, value) {
            config.upstream.apiKey = value;
        }
    }),
    upstreamApiKeyFile: cliSetting({
        kind: text(),
        cli: {
            flag: "upstream-api-key-file", env: "LOCAL_RESPONSES_UPSTREAM_API_KEY_FILE", help: "file holding the upstream key (first line)"
        }
    }),
    upstreamModel: editorSetting({
        kind: optionalText(),
        cli: {
            flag: "upstream-model", env: "LOCAL_RESPONSES_UPSTREAM_MODEL",
            help: "upstream model name (default: the first in the upstream's /v1/models)"
        },
        editor: {
            key: "upstream.model", default: null, reaction: "rebuild", restricted: true, scope: "machine", order: 0, markdown: true,
            description: "The upstream model's name (default: the first in the upstream's `/v1/models`). The CLI's "
                + "`--upstream-model`."
        },
        apply(config, value) {
            config.upstream.model = value;
        }
    }),
    upstreamTimeoutSeconds: editorSetting({
        kind: integer({min: 1}),
        cli: {
            flag: "upstream-timeout-secs", env: "LOCAL_RESPONSES_UPSTREAM_TIMEOUT_SECS",
            help: "seconds an upstream may stay silent before the request fails with 504 (default 600)"
        },
        editor: {
            key: "upstream.timeoutSeconds", default: defaultUpstreamTimeoutSeconds, reaction: "rebuild", restricted: true,
            scope: "machine", order: 0, markdown: true,
            description: "Seconds an upstream may stay silent before the request fails with 504. The CLI's "
                + "`--upstream-timeout-secs`."
        },
        apply(config, value) {
            config.upstream.timeoutSeconds = value;
        }
    }),
    modelAlias: editorSetting({
        kind: optionalText(),
        cli: {flag: "model-alias", env: "LOCAL_RESPONSES_MODEL_ALIAS", help: "model name reported to clients (default: file name)"},
        editor: {
            key: "model.alias", default: null, reaction: "rebuild", restricted: false, scope: "machine-overridable", order: 2,
            description: "Model name reported to clients (default: the file name without .gguf)."
        },
        apply(config, value) {
            config.modelAlias = value;
        }
    }),
    downloadDirectory: editorSetting({
        kind: optionalText(),
        editor: {
            key: "model.downloadDirectory", default: null, reaction: "none", restricted: true, scope: "machine", order: 3,
            description: "Folder that Download Model… writes to (default: the extension's global storage)."
        }
    }),
    /** Extra Download Model… entries (checked by parseCatalog when the list opens). */
    modelCatalog: editorSetting({
        kind: entries("{label, uri} entries"),
        editor: {
            key: "model.catalog", default: [], reaction: "none", restricted: true, scope: "machine", order: 3, markdown: true,
            description: "Extra models offered by **Download Model…** besides its curated list (a team's own model server, for "
                + "example): `{\"label\": …, \"uri\": …}` entries. Each shows whether it fits this machine, estimated from "
                + "its GGUF header before downloading.",
            items: {
                type: "object",
                required: ["label", "uri"],
                properties: {
                    label: {type: "string"},
                    uri: {type: "string", description: "hf:<user>/<repo>[:<quant>] or an http(s) URL of a .gguf file"},
                    quantization: {type: "string"},
                    sizeBytes: {type: "number"},
                    description: {type: "string"}
                }
            }
        }
    })
};
