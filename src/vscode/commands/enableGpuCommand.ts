import * as vscode from "vscode";
import {gpuBuildsFolder, gpuBuildsFolderVariable} from "../../engine/models/gpuBuilds/installedGpuBuilds.js";
import {
    gpuBuildPackages, gpuBuilds, installedGpuBuildsIn, installGpuBuild, type GpuBuild, type GpuInstallProgress
} from "../../engine/models/gpuBuilds/installGpuBuild.js";
import {installedBuildsLackingLibraries} from "../../engine/models/gpuBuilds/missingLibraries.js";
import type {LogChannel} from "../log/LogChannel.js";
import {formatBytes} from "../models/formatBytes.js";

/** What Enable GPU… uses of the face: the log and the extension's global storage (the builds go to its `gpu/`). */
export type EnableGpuPorts = {log: LogChannel, context: Pick<vscode.ExtensionContext, "globalStorageUri">};

const descriptions: Record<GpuBuild, string> = {
    cuda: "NVIDIA GPUs; needs the CUDA 12 runtime (libcudart, libcublas) installed",
    vulkan: "AMD, Intel and NVIDIA GPUs through their Vulkan driver"
};

/**
 * Enable GPU…: fetches node-llama-cpp's CUDA or Vulkan build for this platform (the same install as `local-responses
 * gpu install`, into the extension's global storage) with a cancellable progress notification, then offers to reload the
 * window, whose new extension host loads the model on that build (with the gpu setting on auto or that backend).
 */
export async function enableGpuCommand(ports: EnableGpuPorts): Promise<void> {
    const folder = gpuBuildsFolder(ports.context.globalStorageUri.fsPath);
    const available = gpuBuilds.filter((build) => {
        try {
            return gpuBuildPackages(build).length > 0;
        } catch {
            return false;
        }
    });
    if (available.length === 0) {
        void vscode.window.showInformationMessage(`Local Responses: node-llama-cpp has no separate GPU build for `
            + `${process.platform}-${process.arch} (on Apple silicon the bundled build uses Metal already).`);
        return;
    }
    const installed = await installedGpuBuildsIn(folder);
    const picked = await vscode.window.showQuickPick(available.map((build) => ({
        label: build === "cuda" ? "CUDA" : "Vulkan", build,
        description: installed.includes(build) ? "installed" : undefined, detail: descriptions[build]
    })), {title: "Enable GPU: which build to download"});
    if (picked == null)
        return;
    const {build} = picked;
    ports.log.info(`gpu: installing the ${build} build into ${folder}`);
    const cancel = new AbortController();
    try {
        await vscode.window.withProgress({
            location: vscode.ProgressLocation.Notification, title: `Downloading the ${picked.label} build`, cancellable: true
        }, async (progress, token) => {
            token.onCancellationRequested(() => cancel.abort(new Error("cancelled")));
            let reported = 0;
            await installGpuBuild({
                folder, build, signal: cancel.signal,
                onProgress: ({packageName, downloadedBytes, totalBytes}: GpuInstallProgress) => {
                    const fraction = totalBytes > 0 ? downloadedBytes / totalBytes : 0;
                    progress.report({
                        increment: Math.max(0, (fraction - reported) * 100),
                        message: `${packageName}: ${formatBytes(downloadedBytes)} of ${formatBytes(totalBytes)}`
                    });
                    reported = fraction;
                }
            });
        });
    } catch (error) {
        if (cancel.signal.aborted) {
            ports.log.info("gpu: cancelled; nothing was installed");
            return;
        }
        throw new Error(`${(error as Error).message} (the CPU build keeps working)`, {cause: error});
    }
    ports.log.info(`gpu: installed the ${build} build in ${folder}`);
    const lacking = await installedBuildsLackingLibraries({[gpuBuildsFolderVariable]: folder}, build);
    for (const line of lacking)
        ports.log.warn(`gpu: ${line}`);
    // The extension host loads one node-llama-cpp build for its life (a second build's libraries share the first's names,
    // so the loader would hand it the CPU build's), so the GPU build comes with a new extension host: a window reload.
    const reload = "Reload Window";
    const choice = await vscode.window.showInformationMessage(`Local Responses: the ${picked.label} build is installed.`
        + (lacking.length > 0 ? ` Warning: ${lacking.join(" ")}` : "")
        + ` Reload the window to load the model on it (with the gpu setting on auto or ${build}).`, reload);
    if (choice === reload)
        await vscode.commands.executeCommand("workbench.action.reloadWindow");
}
