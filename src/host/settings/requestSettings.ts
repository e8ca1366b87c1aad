import {cliSetting, editorSetting} from "./setting.js";
import {boolean, integer, list, text} from "./settingKinds.js";

/** How requests are checked and answered: strictness, reasoning tokens, browser origins, body size, stream keep-alives. */
export const requestSettings = {
    strictModel: editorSetting({
        kind: boolean(),
        cli: {flag: "strict-model", env: "LOCAL_RESPONSES_STRICT_MODEL", help: "require 'model' to name the loaded model"},
        editor: {
            key: "strictModel", default: false, reaction: "rebuild", restricted: false, order: 30,
            description: "Require the request's model to name the loaded model (404 otherwise). Off: any model name is served "
                + "by the loaded model."
        },
        apply(config, value) {
            config.strictModel = value;
        }
    }),
    strictTools: editorSetting({
        kind: boolean(),
        cli: {
            flag: "strict-tools", env: "LOCAL_RESPONSES_STRICT_TOOLS", help: "refuse hosted tool types with 400 instead of ignoring them"
        },
        editor: {
            key: "strictTools", default: false, reaction: "rebuild", restricted: false, order: 31,
            description: "Refuse hosted tool types (web_search, …) with 400 instead of ignoring them."
        },
        apply(config, value) {
            config.strictTools = value;
        }
    }),
    reasoningSecret: cliSetting({
        kind: text(),
        cli: {
            flag: "reasoning-secret", env: "LOCAL_RESPONSES_REASONING_SECRET",
            help: "HMAC secret for reasoning encrypted_content tokens (default: kept in --data-dir; random per process with "
                + "--store memory; not encryption)"
        },
        apply(config, value) {
            config.reasoningSecret = value;
        }
    }),
    reasoningEchoMaxBytes: cliSetting({
        kind: integer({min: 0}),
        cli: {
            flag: "reasoning-echo-max-bytes", env: "LOCAL_RESPONSES_REASONING_ECHO_MAX_BYTES",
            help: "reasoning remembered to re-inject when clients drop it (default 16777216; 0 disables)"
        },
        apply(config, value) {
            config.reasoningEchoMaxBytes = value;
        }
    }),
    allowedOrigins: editorSetting({
        kind: list({many: "origins", commas: true}),
        cli: {
            flag: "allowed-origins", env: "LOCAL_RESPONSES_ALLOWED_ORIGINS",
            help: "comma-separated browser origins allowed (CORS); none by default"
        },
        editor: {
            key: "server.allowedOrigins", default: [], reaction: "rebuild", restricted: true, scope: "machine", order: 12,
            description: "Browser origins allowed to call the API (CORS). None by default."
        },
        apply(config, value) {
            config.allowedOrigins = value;
        }
    }),
    bodyLimitBytes: cliSetting({
        kind: integer({min: 1024}),
        cli: {flag: "body-limit", env: "LOCAL_RESPONSES_BODY_LIMIT", help: "largest request body in bytes (default 16777216)"},
        apply(config, value) {
            config.bodyLimitBytes = value;
        }
    }),
    streamKeepAliveSeconds: cliSetting({
        kind: integer({min: 0}),
        cli: {
            flag: "stream-keepalive-secs", env: "LOCAL_RESPONSES_STREAM_KEEPALIVE_SECS",
            help: "seconds of silence before a stream gets a keep-alive (keepalive event or SSE comment, WebSocket "
                + "ping; default 15; 0 disables)"
        },
        apply(config, value) {
            config.streamKeepAliveSeconds = value;
        }
    }),
    streamWriteTimeoutSeconds: cliSetting({
        kind: integer({min: 1}),
        cli: {
            flag: "stream-write-timeout-secs", env: "LOCAL_RESPONSES_STREAM_WRITE_TIMEOUT_SECS",
            help: "seconds a stream's reader may leave its socket full (stopped reading) before it is cut and its generation "
                + "stopped; every protocol, foreground and background (default 5)"
        },
        apply(config, value) {
            config.streamWriteTimeoutSeconds = value;
            config.background.streamWriteTimeoutSeconds = value;
        }
    })
};
