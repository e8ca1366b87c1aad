/**
 * The environment variable that the client set-ups (Configure Codex…, Configure Claude Code…) read the server's key
 * from. The editor keeps the key in SecretStorage only, so a client's config file names this variable, never the key:
 * a key in a file that another program reads or syncs would leak with it.
 */
export const clientKeyVariable = "LOCAL_RESPONSES_API_KEY";

/** The shell line a person runs before starting a client, naming the variable but not the key. */
export function clientKeyShellHint(): string {
    return `export ${clientKeyVariable}="<paste the key from 'Local Responses: Copy API Key'>"`;
}
