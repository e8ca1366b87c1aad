import type * as vscode from "vscode";
import {LocalResponsesExtension} from "./vscode/LocalResponsesExtension.js";

let face: LocalResponsesExtension | undefined;

/** Cheap by design: wires the face and returns; the model loads in the background (autoStart) or on demand. */
export function activate(context: vscode.ExtensionContext): void {
    face = new LocalResponsesExtension(context);
    face.start();
}

/** Stops serving (in-flight requests end) and frees the model before the extension host exits. */
export async function deactivate(): Promise<void> {
    await face?.dispose();
    face = undefined;
}
