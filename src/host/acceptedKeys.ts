/**
 * The keys a request may carry: the configured ones and the operator's (`--admin-api-key`). The same array while
 * neither list changes: authentication keeps each list's key digests by its identity, so a new array per request would
 * hash every key again.
 */
export class AcceptedKeys {
    private union: {apiKeys: string[], adminApiKeys: string[], keys: string[]} | undefined;

    public of(apiKeys: string[], adminApiKeys: string[]): string[] {
        if (adminApiKeys.length === 0)
            return apiKeys;
        if (this.union?.apiKeys !== apiKeys || this.union.adminApiKeys !== adminApiKeys)
            this.union = {apiKeys, adminApiKeys, keys: [...new Set([...apiKeys, ...adminApiKeys])]};
        return this.union.keys;
    }
}
