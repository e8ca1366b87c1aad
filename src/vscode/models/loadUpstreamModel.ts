import * as vscode from "vscode";
import type {ModelCommandPorts} from "./modelCommandPorts.js";
import {Settings} from "../settings/Settings.js";
import {describeUpstreamChoice, noUpstreamModelReason, upstreamModelChoices} from "./upstreamModelChoices.js";

type UpstreamContext = Pick<ModelCommandPorts, "controller" | "log">;

/**
 * Load Model… with `localResponses.engine` upstream: the models the upstreams list (the connected one first and
 * marked); the choice is connected and written to `localResponses.upstream.model`. With no upstream answering, an
 * error names each upstream and why, and offers the settings.
 */
export async function loadUpstreamModelCommand(context: UpstreamContext): Promise<void> {
    const controller = context.controller;
    const listings = await vscode.window.withProgress({
        location: vscode.ProgressLocation.Window, title: "Asking the upstreams for their models"
    }, () => controller.listUpstreamModels());
    const reason = noUpstreamModelReason(listings);
    if (reason != null) {
        context.log.warn(`upstream: ${reason}`);
        const choice = await vscode.window.showErrorMessage(`Local Responses: ${reason}`, "Open Settings");
        if (choice === "Open Settings")
            await vscode.commands.executeCommand("workbench.action.openSettings", "localResponses.upstream");
        return;
    }
    const silent = listings.filter((listing) => listing.error != null);
    for (const listing of silent)
        context.log.warn(`upstream: ${listing.url} did not list its models: ${listing.error}`);

    const state = controller.state;
    const current = state.upstreamModel ?? controller.currentSettings.upstreamModel;
    const choices = upstreamModelChoices(listings, current);
    const picked = await vscode.window.showQuickPick(choices.map((choice) => ({
        label: choice.model,
        description: describeUpstreamChoice(choice, state.upstreamModel != null),
        choice
    })), {
        title: "Load Model (upstream)",
        placeHolder: silent.length === 0
            ? "A model the upstreams serve"
            : `A model the upstreams serve (${silent.map((listing) => listing.url).join(", ")} did not answer: see Show Logs)`
    });
    if (picked == null)
        return;
    await connectUpstreamModel(context, picked.choice.model);
}

/** Connects to `model`, makes it the upstream model setting, and serves (with autoStart) if the server was stopped. */
export async function connectUpstreamModel(context: UpstreamContext, model: string): Promise<void> {
    const controller = context.controller;
    const info = await vscode.window.withProgress({location: vscode.ProgressLocation.Notification, title: `Connecting to ${model}`},
        () => controller.connectUpstreamModel(model));
    // The controller adopted the model: the settings change below is not applied a second time.
    await Settings.setUpstreamModel(model);
    let where = controller.state.endpoint;
    if (where == null && controller.currentSettings.autoStart)
        where = await controller.startServer();
    void vscode.window.showInformationMessage(
        `Local Responses: ${info.id} connected (upstream `
            + `on ${info.path})${where != null ? `, serving on ${where}` : " (server stopped)"}.`);
}
