import * as vscode from "vscode";
import type {CoreSources} from "../inspector/inspectorSources.js";
import type {InspectorTarget} from "../inspector/InspectorPanel.js";
import type {LogChannel} from "../log/LogChannel.js";

/** List Stored Responses: a quick pick with status, time and tokens; open one in the inspector or delete it. */
/** What listing the stored responses uses of the face. */
export type ListResponsesPorts = {
    session: Pick<CoreSources, "responses">,
    log: LogChannel,
    openInspector(target?: string | InspectorTarget): void
};

export async function listResponsesCommand(context: ListResponsesPorts): Promise<void> {
    const responses = context.session.responses.list();
    if (responses.length === 0) {
        void vscode.window.showInformationMessage("Local Responses: no stored responses yet.");
        return;
    }
    const deleteButton: vscode.QuickInputButton = {iconPath: new vscode.ThemeIcon("trash"), tooltip: "Delete"};
    const pick = vscode.window.createQuickPick<vscode.QuickPickItem & {id: string}>();
    pick.title = "Stored Responses";
    pick.placeholder = "Pick one to open it in the inspector";
    pick.matchOnDescription = true;
    pick.matchOnDetail = true;
    // A person may look a response up in the inspector (a webview, which takes focus when it re-renders) before
    // picking; Escape still closes the list. (In CI the list closed under the test as the inspector re-rendered.)
    pick.ignoreFocusOut = true;
    const render = () => {
        pick.items = context.session.responses.list().map((response) => ({
            id: response.id,
            label: response.id,
            description: `${response.status} · ${new Date(response.createdAt * 1000).toLocaleTimeString()} `
                + `· ${response.inputTokens ?? "?"} in / ${response.outputTokens ?? "?"} out${response.background ? " · background" : ""}`,
            detail: response.preview,
            buttons: [deleteButton]
        }));
    };
    render();
    await new Promise<void>((resolve) => {
        pick.onDidTriggerItemButton(async ({item}) => {
            if (context.session.responses.delete(item.id))
                context.log.info(`store: deleted ${item.id} from the list`);
            render();
        });
        pick.onDidAccept(() => {
            const chosen = pick.selectedItems[0];
            pick.hide();
            if (chosen != null)
                context.openInspector(chosen.id);
        });
        pick.onDidHide(() => {
            pick.dispose();
            resolve();
        });
        pick.show();
    });
}
