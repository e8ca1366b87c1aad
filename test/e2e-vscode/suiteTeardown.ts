import fs from "node:fs";
import path from "node:path";
import type {CodeServer} from "./CodeServer.js";
import type {Workbench} from "./Workbench.js";

/**
 * The end of an e2e suite: the extension's output channel saved beside its screenshots (`artifacts`), the browser
 * closed and code-server stopped. Either may be missing when the suite's `before` failed part way.
 */
export async function closeSuite(server: CodeServer | undefined, workbench: Workbench | undefined, artifacts: string): Promise<void> {
    fs.mkdirSync(artifacts, {recursive: true});
    if (server != null)
        fs.writeFileSync(path.join(artifacts, "extension-output.log"), server.outputChannelLog("Local Responses"));
    await workbench?.close();
    await server?.stop();
}
