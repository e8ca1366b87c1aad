import fs from "node:fs/promises";
import path from "node:path";
import * as vscode from "vscode";
import {downloadModel, isDownloadableModelUri, type DownloadProgress} from "../../engine/models/downloadModel.js";
import {estimateModelFit} from "../../engine/models/modelFit.js";
import {downloadRecorded, type RecordedDownload} from "../../engine/models/recordedDownload.js";
import {formatBytes} from "./formatBytes.js";
import {describeEntry, describeFit, parseCatalog, type CatalogEntry} from "./modelCatalog.js";
import type {ModelCommandPorts} from "./modelCommandPorts.js";
import {loadAndRemember} from "./loadModel.js";
import {Settings} from "../settings/Settings.js";
import {contextSettings} from "../settings/extensionSettings.js";

type PickItem = vscode.QuickPickItem & {entry?: CatalogEntry, custom?: true};
/** What the catalog and its fit estimates read. */
type CatalogContext = Pick<ModelCommandPorts, "controller" | "log" | "extensionUri">;

/**
 * Download Model…: the curated list (media/models.json) and the settings' own entries, each with an estimate of
 * whether it fits this machine read from its GGUF header, or any `hf:` URI or https URL; then a cancellable
 * download (checked against the entry's SHA-256 when it gives one, else against the hashes its first download
 * recorded, which a first download records) and the load.
 */
export async function downloadModelCommand(
    context: CatalogContext & Pick<ModelCommandPorts, "models">
): Promise<void> {
    if (context.controller.state.engineKind === "upstream")
        return offerLocalEngine(context);
    const picked = await pickModel(context);
    if (picked == null)
        return;
    const {uri, sha256, fromCatalog} = picked;
    const directory = context.models.directory();
    // A catalog entry without a checksum is held to what its first download was; a typed URI names no entry.
    const recorded = fromCatalog && sha256 == null ? context.models.hashes.recorded(uri) : null;
    context.log.info(`download: ${uri} into ${directory}${sha256 != null ? ` (SHA-256 ${sha256})`
        : recorded != null ? " (checked against the SHA-256 its first download recorded)" : ""}`);

    const download = await vscode.window.withProgress({
        location: vscode.ProgressLocation.Notification,
        title: "Downloading model",
        cancellable: true
    }, async (progress, token) => {
        const controller = new AbortController();
        token.onCancellationRequested(() => controller.abort());
        let reported = 0;
        const options = {
            uri,
            directory,
            sha256,
            signal: controller.signal,
            onProgress: ({downloadedBytes, totalBytes}: DownloadProgress) => {
                const fraction = totalBytes > 0 ? downloadedBytes / totalBytes : 0;
                progress.report({
                    increment: Math.max(0, (fraction - reported) * 100),
                    message: `${formatBytes(downloadedBytes)} of ${totalBytes > 0 ? formatBytes(totalBytes) : "?"}`
                });
                reported = fraction;
            }
        };
        try {
            // A typed URI has nothing to record or check against: node-llama-cpp's resumable downloader, as it is.
            return fromCatalog ? await downloadRecorded({...options, recorded}) : {path: await downloadModel(options), hashes: {}};
        } catch (error) {
            if (controller.signal.aborted)
                return null;
            if (recorded != null)
                return {failed: error as Error};
            throw error;
        }
    });
    if (download != null && "failed" in download)
        return offerToForget(context, uri, download.failed);
    if (download == null) {
        context.log.info("download: cancelled");
        void vscode.window.showInformationMessage("Local Responses: download cancelled.");
        return;
    }
    const modelPath = download.path;
    context.log.info(`download: saved ${modelPath}`);
    if (fromCatalog && sha256 == null && recorded == null) {
        await context.models.hashes.record(uri, download.hashes);
        context.log.info(`download: recorded the SHA-256 of ${describeHashes(download)}: later downloads of ${uri} are checked against it`);
    }
    context.models.changed();
    await loadAndRemember(context, modelPath);
}

function describeHashes(download: RecordedDownload): string {
    return Object.entries(download.hashes).map(([name, hash]) => `${name} (${hash})`).join(", ");
}

/**
 * A download that did not match its first download's hashes: the file was deleted (`downloadRecorded`). The person
 * may know the publisher replaced it on purpose; forgetting the record lets the next download record anew.
 */
async function offerToForget(context: Pick<ModelCommandPorts, "models" | "log">, uri: string, error: Error): Promise<void> {
    context.log.error(`download: ${error.message}`);
    const forget = "Forget the Recorded Checksum";
    const choice = await vscode.window.showErrorMessage(`Local Responses: ${error.message}`, forget);
    if (choice === forget) {
        await context.models.hashes.forget(uri);
        context.log.info(`download: forgot the recorded SHA-256 of ${uri}; its next download records anew`);
    }
}

/** Download Model… with the upstream engine: downloads are GGUF files for the local engine; offers to switch to it. */
async function offerLocalEngine(context: Pick<ModelCommandPorts, "log">): Promise<void> {
    const choice = await vscode.window.showInformationMessage(
        "Local Responses: Download Model… fetches GGUF files for the local engine, and localResponses.engine is upstream: the upstream "
            + "servers provide the models (Load Model… picks one).",
        "Switch to Local Engine", "Cancel");
    if (choice !== "Switch to Local Engine")
        return;
    context.log.info("settings: localResponses.engine set to local (from Download Model…)");
    await Settings.setEngine("local");
    void vscode.window.showInformationMessage("Local Responses: switched to the local engine. Run Download Model… again to pick a model.");
}

/** What to download: a URI, the SHA-256 its catalog entry gives (a typed URI has none), and whether an entry named it. */
type Download = {uri: string, sha256: string | null, fromCatalog: boolean};

async function pickModel(context: CatalogContext): Promise<Download | null> {
    const entries = await catalog(context);
    if (entries.length === 0)
        return typed(await askForUri());
    const settings = context.controller.currentSettings;
    // The estimate is for what Load would allocate: the settings' context and sequences, or the engine's plan.
    const {contextSize, parallel} = contextSettings(settings);
    const planned = {contextSize, sequences: parallel};
    const pick = vscode.window.createQuickPick<PickItem>();
    pick.title = "Download Model";
    pick.placeholder = "A model for coding agents, or enter a URL";
    pick.matchOnDescription = true;
    pick.matchOnDetail = true;
    const items: PickItem[] = entries.map((entry) => ({
        label: entry.label,
        description: describeEntry(entry),
        detail: `$(loading~spin) Estimating fit… · ${entry.description}`,
        entry
    }));
    const custom: PickItem = {
        label: "$(link) Enter a URL or hf: URI…", description: "any GGUF file (or paste it here)", alwaysShow: true, custom: true
    };
    const render = () => {
        pick.items = [...items, {label: "", kind: vscode.QuickPickItemKind.Separator}, custom];
    };
    render();
    // A URI pasted into the list's filter is downloaded as it is: the custom row says so.
    pick.onDidChangeValue((value) => {
        const typed = value.trim();
        custom.label = isDownloadableModelUri(typed) ? `$(cloud-download) Download ${typed}` : "$(link) Enter a URL or hf: URI…";
        render();
    });
    pick.busy = true;

    // Each estimate reads a header over the network: a few at a time, and none once the list is closed.
    const stop = new AbortController();
    const estimates = (async () => {
        const queue = [...items];
        const worker = async () => {
            for (let item = queue.shift(); item != null && !stop.signal.aborted; item = queue.shift()) {
                const entry = item.entry!;
                try {
                    const fit = await estimateModelFit({
                        uri: entry.uri, ...planned, signal: stop.signal
                    });
                    item.detail = `${describeFit(fit)} · ${entry.description}`;
                    context.log.info(
                        `download: fit of ${entry.uri}: ${fit.verdict} (needs ${fit.requiredBytes} bytes, ${fit.availableBytes} available)`
                    );
                } catch (error) {
                    item.detail = `$(question) Fit unknown: ${(error as Error).message.split("\n")[0]} · ${entry.description}`;
                }
                if (!stop.signal.aborted)
                    render();
            }
        };
        await Promise.all([worker(), worker()]);
        pick.busy = false;
    })();

    const chosen = await new Promise<PickItem | string | undefined>((resolve) => {
        pick.onDidAccept(() => {
            const typed = pick.value.trim();
            const selected = pick.selectedItems[0];
            resolve(selected?.custom === true && isDownloadableModelUri(typed) ? typed : selected);
            pick.hide();
        });
        pick.onDidHide(() => resolve(undefined));
        pick.show();
    });
    stop.abort();
    pick.dispose();
    void estimates;
    if (chosen == null)
        return null;
    if (typeof chosen === "string")
        return typed(chosen);
    if (chosen.custom === true)
        return typed(await askForUri());
    return chosen.entry != null ? {uri: chosen.entry.uri, sha256: chosen.entry.sha256, fromCatalog: true} : null;
}

/** A URI the person typed or pasted: no catalog entry, so no checksum to hold it to. */
function typed(uri: string | null): Download | null {
    return uri == null ? null : {uri, sha256: null, fromCatalog: false};
}

async function askForUri(): Promise<string | null> {
    const uri = await vscode.window.showInputBox({
        title: "Download Model",
        prompt: "A Hugging Face URI (hf:user/model:quant) or an https URL of a .gguf file",
        placeHolder: "hf:user/model:Q4_K_M",
        ignoreFocusOut: true,
        validateInput: (value) => value.trim() === "" || isDownloadableModelUri(value.trim()) ? null
            : "Enter hf:<user>/<model>[:<quant>] or an https URL (plain http only from localhost)."
    });
    return uri == null || uri.trim() === "" ? null : uri.trim();
}

/** The curated list, then the settings' entries; problems in either go to the log. */
async function catalog(context: CatalogContext): Promise<CatalogEntry[]> {
    const file = path.join(context.extensionUri.fsPath, "media", "models.json");
    const curated = parseCatalog(JSON.parse(await fs.readFile(file, "utf8")), "media/models.json");
    const own = parseCatalog(context.controller.currentSettings.modelCatalog, "localResponses.model.catalog");
    for (const problem of [...curated.problems, ...own.problems])
        context.log.warn(`download: ${problem}`);
    return [...own.entries, ...curated.entries];
}
