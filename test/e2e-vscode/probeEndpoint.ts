import type {Workbench} from "./Workbench.js";

/**
 * What a client gets from the endpoint right now: the HTTP status of `GET /v1/models` with this key, or
 * "refused" when nothing listens on the port (a stopped server).
 */
export async function probeEndpoint(endpoint: string, apiKey: string): Promise<number | "refused"> {
    try {
        const response = await fetch(`${endpoint}/models`,
            {headers: {authorization: `Bearer ${apiKey}`}, signal: AbortSignal.timeout(10_000)});
        await response.body?.cancel();
        return response.status;
    } catch (error) {
        const code = (error as {cause?: {code?: string}}).cause?.code;
        if (code === "ECONNREFUSED")
            return "refused";
        throw error;
    }
}

/**
 * The endpoint and key a person copies (Copy Endpoint URL, Copy API Key), as a client is given them. The clipboard and
 * the toasts are cleared first, so what is read is what this copy wrote.
 */
export async function copiedConnection(workbench: Workbench): Promise<{endpoint: string, apiKey: string}> {
    const copy = async (command: string, toast: string | RegExp) => {
        await workbench.clearNotifications();
        await workbench.page.evaluate(() => navigator.clipboard.writeText(""));
        await workbench.runCommand(command);
        await workbench.notification(toast).waitFor({timeout: 10_000});
        return workbench.clipboard();
    };
    return {
        endpoint: await copy("Local Responses: Copy Endpoint URL", /copied http/),
        apiKey: await copy("Local Responses: Copy API Key", "API key copied")
    };
}
