import {cliSetting} from "./setting.js";
import {byteSize, integer, optionalText} from "./settingKinds.js";

/** A model library (docs/models.md): where models come from, how many stay loaded, in how much memory, for how long. */
export const librarySettings = {
    modelsDir: cliSetting({
        kind: optionalText(),
        cli: {
            flag: "models-dir", env: "LOCAL_RESPONSES_MODELS_DIR",
            help: "serve every GGUF in this folder (and its subfolders), each by its file name, loaded when a request names it"
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
    maxLoadedModels: cliSetting({
        kind: integer({min: 1}),
        cli: {
            flag: "max-loaded-models", env: "LOCAL_RESPONSES_MAX_LOADED_MODELS",
            help: "models loaded at once; past it the least recently used idle one is unloaded (default 4)"
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
    idleUnloadSeconds: cliSetting({
        kind: integer({min: 0}),
        cli: {
            flag: "idle-unload-secs", env: "LOCAL_RESPONSES_IDLE_UNLOAD_SECS",
            help: "unload a library model after this many seconds without requests (default 0: never)"
        },
        apply(config, value) {
            config.library.idleUnloadSeconds = value === 0 ? null : value;
        }
    })
};
