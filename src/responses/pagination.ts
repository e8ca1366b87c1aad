import {invalidRequest} from "../protocol/errors.js";
import {checkBody, validatePageQuery} from "./requestSchemas/validators.js";

export type Page<T> = {object: "list", data: T[], first_id: string | null, last_id: string | null, has_more: boolean};

/**
 * One page of a list by item id cursor, as OpenAI pages input items and conversation items: `order` asc|desc
 * (default desc), `limit` 1-100 (default 20), `after` an item id of the list. The query's shape is checked by
 * `schemas/pageQuery.ts`; an `after` that names no item of the list is refused here.
 */
export function pageById<T extends {id: string}>(items: readonly T[], rawQuery: unknown, notFound: (after: string) => string): Page<T> {
    const query = checkBody(validatePageQuery, rawQuery);
    const order = query.order ?? "desc";
    const limit = query.limit == null ? 20 : Number(query.limit);

    const ordered = order === "asc" ? [...items] : [...items].reverse();
    let start = 0;
    if (query.after != null) {
        const index = ordered.findIndex((item) => item.id === query.after);
        if (index < 0)
            throw invalidRequest(notFound(query.after), "after");
        start = index + 1;
    }
    const data = ordered.slice(start, start + limit);
    return {
        object: "list", data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: start + limit < ordered.length
    };
}
