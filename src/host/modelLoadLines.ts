import type {ModelInfo} from "../engine/types.js";
import {describeBackend, partialOffloadNote} from "./backendText.js";
import {chatFormatWarning, describeChatFormat} from "./chatFormatText.js";

/**
 * What the log says of a model just loaded: one line with where it computes, its context, chat format and KV cache
 * keys, then a warning line for each thing the person should change (tool calls not understood, a model partly on the GPU).
 */
export function modelLoadLines(info: ModelInfo): string[] {
    const keys = info.keyCache == null ? ""
        : `, ${info.keyCache.type} keys${info.keyCache.note == null ? "" : ` (${info.keyCache.note})`}`;
    const format = info.chatFormat == null ? info.chatWrapper : describeChatFormat(info.chatFormat);
    const on = info.backend == null ? "" : ` on ${describeBackend(info.backend)}`;
    const warnings = [info.chatFormat == null ? null : chatFormatWarning(info.id, info.chatFormat), partialOffloadNote(info)];
    return [
        `model: loaded ${info.id}${on} (context ${info.contextSize} × ${info.sequences} sequences, ${format}${keys})`,
        ...warnings.flatMap((warning) => warning == null ? [] : [`model: warning: ${warning}`])
    ];
}
