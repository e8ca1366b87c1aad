import * as vscode from "vscode";
import {downloadModel, isDownloadableModelUri} from "../../engine/downloadModel.js";
import {formatBytes} from "../logic/formatBytes.js";
import type {LocalResponsesExtension} from "../LocalResponsesExtension.js";
import {Settings} from "../Settings.js";
import {loadAndRemember} from "./loadModel.js";

/** Download Model…: an `hf:` URI or an https URL, with a cancellable progress notification, then load it. */
export async function downloadModelCommand(face: LocalResponsesExtension): Promise<void> {
    const uri = await vscode.window.showInputBox({
        title: "Download Model",
        prompt: "A Hugging Face URI (hf:user/model:quant) or an https URL of a .gguf file",
        placeHolder: "hf:user/model:Q4_K_M",
        ignoreFocusOut: true,
        validateInput: (value) => value.trim() === "" || isDownloadableModelUri(value.trim()) ? null : "Enter hf:<user>/<model>[:<quant>] or an http(s) URL."
    });
    if (uri == null || uri.trim() === "")
        return;
    const directory = Settings.downloadDirectory(face.controller.currentSettings, face.context.globalStorageUri);
    face.log.info(`download: ${uri.trim()} into ${directory}`);

    const modelPath = await vscode.window.withProgress({
        location: vscode.ProgressLocation.Notification,
        title: "Downloading model",
        cancellable: true
    }, async (progress, token) => {
        const controller = new AbortController();
        token.onCancellationRequested(() => controller.abort());
        let reported = 0;
        try {
            return await downloadModel({
                uri: uri.trim(),
                directory,
                signal: controller.signal,
                onProgress: ({downloadedBytes, totalBytes}) => {
                    const fraction = totalBytes > 0 ? downloadedBytes / totalBytes : 0;
                    progress.report({
                        increment: Math.max(0, (fraction - reported) * 100),
                        message: `${formatBytes(downloadedBytes)} of ${totalBytes > 0 ? formatBytes(totalBytes) : "?"}`
                    });
                    reported = fraction;
                }
            });
        } catch (error) {
            if (controller.signal.aborted)
                return null;
            throw error;
        }
    });
    if (modelPath == null) {
        face.log.info("download: cancelled");
        void vscode.window.showInformationMessage("Local Responses: download cancelled.");
        return;
    }
    face.log.info(`download: saved ${modelPath}`);
    await loadAndRemember(face, modelPath);
}
