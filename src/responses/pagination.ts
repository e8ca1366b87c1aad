import {invalidRequest} from "../protocol/errors.js";

export type PageQuery = {order?: unknown, limit?: unknown, after?: unknown};

export type Page<T> = {object: "list", data: T[], first_id: string | null, last_id: string | null, has_more: boolean};

/**
 * One page of a list by item id cursor, as OpenAI pages input items and conversation items:
 * `order` asc|desc (default desc), `limit` 1-100 (default 20), `after` an item id of the list.
 */
export function pageById<T extends {id: string}>(items: readonly T[], query: PageQuery, notFound: (after: string) => string): Page<T> {
    const order = query.order ?? "desc";
    if (order !== "asc" && order !== "desc")
        throw invalidRequest("'order' must be 'asc' or 'desc'.", "order");
    // Decimal digits only: Number() would also read "0x10", "1e2" and " 5 ".
    const limit = query.limit == null ? 20 : typeof query.limit === "string" && /^\d{1,3}$/.test(query.limit) ? Number(query.limit) : NaN;
    if (!Number.isInteger(limit) || limit < 1 || limit > 100)
        throw invalidRequest("'limit' must be an integer from 1 to 100.", "limit");

    const ordered = order === "asc" ? [...items] : [...items].reverse();
    let start = 0;
    if (query.after != null) {
        const index = ordered.findIndex((item) => item.id === query.after);
        if (index < 0)
            throw invalidRequest(notFound(String(query.after)), "after");
        start = index + 1;
    }
    const data = ordered.slice(start, start + limit);
    return {object: "list", data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: start + limit < ordered.length};
}
