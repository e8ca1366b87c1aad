import type {ResponseStore} from "../../store/ResponseStore.js";
import type {ResponseDetail, ResponseSummary} from "./shared/inspectorProtocol.js";
import type {InspectorResponses} from "./inspectorSources.js";
import {summarizeResponse} from "./shared/responseSummary.js";

/** The inspector's view of the host's response store: every owner's responses, newest first. */
export class StoreResponses implements InspectorResponses {
    public constructor(private readonly store: ResponseStore) {}

    public list(): ResponseSummary[] {
        return this.store.list().map(summarizeResponse);
    }

    public detail(id: string): ResponseDetail | null {
        const stored = this.store.inspect(id);
        if (stored == null)
            return null;
        return {response: stored.response, inputItems: [...stored.inputItems], timings: stored.timings ?? null};
    }

    public delete(id: string): boolean {
        const stored = this.store.inspect(id);
        return stored != null && this.store.delete(stored.owner, id);
    }

    public clear(): number {
        return this.store.clear();
    }

    public onChange(listener: () => void): () => void {
        return this.store.onChange(() => listener());
    }
}
