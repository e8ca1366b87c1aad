import type {FromWebview, PersistedViewState} from "../src/vscode/inspector/shared/inspectorProtocol.js";

type VsCodeApi = {
    postMessage(message: FromWebview): void,
    getState(): PersistedViewState | undefined,
    setState(state: PersistedViewState): void
};

declare function acquireVsCodeApi(): VsCodeApi;

/** The webview's bridge to the extension; acquirable once per page. */
export const vscodeApi: VsCodeApi = acquireVsCodeApi();
