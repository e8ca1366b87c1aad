import * as vscode from "vscode";
import {commandIds} from "../manifest/commandIds.js";
import {settingKeys, settingsSection, type ExtensionSettings} from "../settings/extensionSettings.js";
import {exclusionOf} from "./completionExclusion.js";
import {completionStatusView} from "./completionStatusView.js";
import {ContextChunks} from "./ContextChunks.js";
import {EditorCompletions, type CompletionController, type CompletionSettings} from "./EditorCompletions.js";
import {documentLines, documentName, InlineSuggestions} from "./InlineSuggestions.js";

/** The completion settings of the editor's whole settings. */
export function completionSettingsOf(settings: ExtensionSettings): CompletionSettings & {exclude: readonly string[], maxFileBytes: number} {
    return {
        enabled: settings.completionsEnabled, model: settings.completionsModel, debounceMs: settings.completionsDebounceMs,
        maxTokens: settings.completionsMaxTokens, timeLimitMs: settings.completionsTimeLimitMs,
        prefixLines: settings.completionsPrefixLines, suffixLines: settings.completionsSuffixLines,
        exclude: settings.completionsExclude, maxFileBytes: settings.completionsMaxFileKiB * 1024
    };
}

/**
 * Code completion in the editor: the inline completion provider (for every file; it asks nothing while completion is
 * off or unavailable, or of an excluded or big file), its status bar item (on/off, the figures; a click toggles it),
 * and the other files' chunks it sends as context, taken where the person worked in a file when they leave it.
 */
export class CompletionsFeature implements vscode.Disposable {
    public readonly completions: EditorCompletions;
    private readonly chunks = new ContextChunks();
    private readonly item = vscode.window.createStatusBarItem("localResponses.completions", vscode.StatusBarAlignment.Right, 99);
    /** Where each open document was last edited: the chunk kept when the person leaves it. */
    private readonly lastEdit = new Map<string, number>();
    private settings: ReturnType<typeof completionSettingsOf>;
    private active: vscode.TextEditor | undefined;
    private readonly disposables: vscode.Disposable[] = [];

    public constructor(controller: CompletionController, settings: ExtensionSettings, log: (line: string) => void) {
        this.settings = completionSettingsOf(settings);
        this.completions = new EditorCompletions(controller, this.settings);
        this.item.name = "Local Responses: Completions";
        this.item.command = commandIds.toggleCompletions;
        const offChanges = this.completions.onChange(() => this.render());
        this.disposables.push(
            {dispose: offChanges},
            vscode.languages.registerInlineCompletionItemProvider({pattern: "**"},
                new InlineSuggestions(this.completions, this.chunks, (document) => this.skip(document), log)),
            vscode.workspace.onDidChangeTextDocument((event) => {
                const change = event.contentChanges[0];
                if (change != null)
                    this.lastEdit.set(event.document.uri.toString(), change.range.start.line);
            }),
            vscode.workspace.onDidCloseTextDocument((document) => this.lastEdit.delete(document.uri.toString())),
            vscode.window.onDidChangeActiveTextEditor((editor) => this.switchTo(editor))
        );
        // The files already open at start: their top (or what their editors show) is context from the first suggestion on.
        for (const editor of vscode.window.visibleTextEditors)
            this.remember(editor.document, editor.visibleRanges[0]?.start.line ?? 0);
        this.active = vscode.window.activeTextEditor;
        this.render();
        this.item.show();
    }

    /** Follows a settings change (`localResponses.completions.*`). */
    public update(settings: ExtensionSettings): void {
        this.settings = completionSettingsOf(settings);
        this.completions.update(this.settings);
    }

    /** Turns completion on or off in the user settings (the status bar item, the palette). */
    public async toggle(): Promise<void> {
        await vscode.workspace.getConfiguration(settingsSection)
            .update(settingKeys.completionsEnabled, !this.settings.enabled, vscode.ConfigurationTarget.Global);
    }

    /** A shown suggestion was accepted (its item's command). */
    public accepted(): void {
        this.completions.accepted();
    }

    /** Why a document gets no suggestions and gives no context, or null. */
    private skip(document: vscode.TextDocument): string | null {
        const end = document.lineAt(document.lineCount - 1).range.end;
        return exclusionOf({path: documentName(document), bytes: document.offsetAt(end), scheme: document.uri.scheme}, this.settings);
    }

    /** Leaving a file keeps the lines where the person worked in it, for suggestions in the next. */
    private switchTo(editor: vscode.TextEditor | undefined): void {
        const left = this.active;
        this.active = editor;
        if (left == null || left.document.isClosed)
            return;
        const key = left.document.uri.toString();
        this.remember(left.document, this.lastEdit.get(key) ?? left.selection.active.line);
    }

    private remember(document: vscode.TextDocument, line: number): void {
        if (this.skip(document) != null)
            return;
        this.chunks.remember(documentName(document), documentLines(document), line);
    }

    private render(): void {
        const view = completionStatusView(this.completions.availability, this.completions.stats.snapshot);
        this.item.text = view.text;
        this.item.tooltip = view.tooltip;
    }

    public dispose(): void {
        for (const disposable of this.disposables)
            disposable.dispose();
        this.completions.dispose();
        this.item.dispose();
    }
}
