import * as vscode from "vscode";
import type {PickModel, ServedModels} from "./chooseModels.js";
import type {HostController} from "../controller/HostController.js";

/** The model picks of Configure Codex… and Configure Claude Code…, as the editor's QuickPick. */
export const pickModelInEditor: PickModel = async (items, {title, placeHolder}) => vscode.window.showQuickPick(items, {title, placeHolder});

/** What the server serves now, with the library's default model (the one a request without `model` gets). */
export function servedModels(controller: HostController): ServedModels {
    const {model, library} = controller.state;
    return {model, library, defaultId: library == null ? null : libraryDefault(controller)};
}

function libraryDefault(controller: HostController): string | null {
    try {
        return controller.host.library?.resolve(null) ?? null;
    } catch {
        // An empty library has no default; the pick then simply lists the models in order.
        return null;
    }
}
