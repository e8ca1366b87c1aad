import {defaultMaxLoadedModels, type ModelIsolation} from "../config.js";
import {cliSetting, editorSetting} from "./setting.js";
import {byteSize, choice, integer, optionalText} from "./settingKinds.js";

/** A model library (docs/models.md): where models come from, how many stay loaded, in how much memory, for how long. */
export const librarySettings = {
    modelsDir: editorSetting({
        kind: optionalText(),
        cli: {
            flag: "models-dir", env: "LOCAL_RESPONSES_MODELS_DIR",
            help: "serve every GGUF in this folder (and its subfolders), each by its file name, loaded when a request names it"
        },
        editor: {
            key: "models.directory", default: null, reaction: "rebuild", restricted: true, scope: "machine", order: 4, markdown: true,
            description: "A folder of GGUF models to serve together (a model library): each is listed by its file name, in "
                + "`GET /v1/models` and the editor's chat, and loaded when a request names it. `~` is your home folder. "
                + "The CLI's `--models-dir` (docs/models.md)."
        },
        apply(config, value) {
            config.library.modelsDir = value;
        }
    }),
    modelsPreset: cliSetting({
        kind: optionalText(),
        cli: {
            flag: "models-preset", env: "LOCAL_RESPONSES_MODELS_PRESET",
            help: "JSON or TOML file of per-model settings: path, aliases, context_size, parallel (docs/models.md)"
        },
        apply(config, value) {
            config.library.presetsFile = value;
        }
    }),
    maxLoadedModels: editorSetting({
        kind: integer({min: 1}),
        cli: {
            flag: "max-loaded-models", env: "LOCAL_RESPONSES_MAX_LOADED_MODELS",
            help: "models loaded at once; past it the least recently used idle one is unloaded (default 4)"
        },
        editor: {
            key: "models.maxLoaded", default: defaultMaxLoadedModels, reaction: "rebuild", restricted: true, scope: "machine", order: 4,
            markdown: true,
            description: "With `#localResponses.models.directory#`: how many models stay loaded at once; past it the least "
                + "recently used idle one is unloaded. The CLI's `--max-loaded-models`."
        },
        apply(config, value) {
            config.library.maxLoaded = value;
        }
    }),
    memoryBudget: cliSetting({
        kind: byteSize(),
        cli: {
            flag: "memory-budget", env: "LOCAL_RESPONSES_MEMORY_BUDGET",
            help: "memory the loaded models may take, by node-llama-cpp's estimates, e.g. 24GiB (default: what is free at start)"
        },
        apply(config, value) {
            config.library.memoryBudgetBytes = value;
        }
    }),
    idleUnloadSeconds: editorSetting({
        kind: integer({min: 0}),
        cli: {
            flag: "idle-unload-secs", env: "LOCAL_RESPONSES_IDLE_UNLOAD_SECS",
            help: "unload a library model after this many seconds without requests (default 0: never)"
        },
        editor: {
            key: "models.idleUnloadSeconds", default: 0, reaction: "rebuild", restricted: true, scope: "machine", order: 4,
            markdown: true,
            description: "With `#localResponses.models.directory#`: unload a model this many seconds after its last request, "
                + "freeing its memory (0: never). The CLI's `--idle-unload-secs`."
        },
        apply(config, value) {
            config.library.idleUnloadSeconds = value === 0 ? null : value;
        }
    }),
    modelIsolation: editorSetting({
        kind: choice<ModelIsolation>(["process", "shared"]),
        cli: {
            flag: "model-isolation", env: "LOCAL_RESPONSES_MODEL_ISOLATION",
            help: "process: each library model runs in a process of its own, so that one model's crash leaves the others serving; "
                + "shared: all in the server's process (default process)"
        },
        editor: {
            key: "models.isolation", default: "process", reaction: "rebuild", restricted: true, scope: "machine", order: 4,
            markdown: true,
            description: "With `#localResponses.models.directory#`: run each model in a process of its own (`process`), so that a "
                + "native crash in one model fails only its requests and the editor's extension host keeps running, or all in the "
                + "extension host (`shared`: ~90 MB less per loaded model, and ~0.8 s less on a load that finds no spare process "
                + "ready). The CLI's `--model-isolation`.",
            enumDescriptions: [
                "Each model in its own process: a crash ends that model's requests only, and it loads again on its next request.",
                "Every model in the extension host's process: a native crash in any model takes the extension host down."
            ]
        },
        apply(config, value) {
            config.library.isolation = value;
        }
    })
};
