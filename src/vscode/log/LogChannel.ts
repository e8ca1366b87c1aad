import * as vscode from "vscode";
import {formatRequestLine, type RequestLogEntry} from "../../server/middleware/requestLog.js";

/**
 * The extension's `LogOutputChannel`: one line per HTTP request (method, path, status, tokens, ms) and the
 * engine's events. Request bodies, prompts and keys never reach it: the entries it receives carry none.
 */
export class LogChannel implements vscode.Disposable {
    public readonly channel = vscode.window.createOutputChannel("Local Responses", {log: true});

    public request(entry: RequestLogEntry): void {
        const line = formatRequestLine(entry);
        if (entry.status >= 500)
            this.channel.error(line);
        else if (entry.status >= 400)
            this.channel.warn(line);
        else
            this.channel.info(line);
    }

    public info(line: string): void {
        this.channel.info(line);
    }

    public warn(line: string): void {
        this.channel.warn(line);
    }

    public error(line: string): void {
        this.channel.error(line);
    }

    public show(): void {
        this.channel.show(true);
    }

    public dispose(): void {
        this.channel.dispose();
    }
}
