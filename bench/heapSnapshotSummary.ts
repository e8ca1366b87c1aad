import fs from "node:fs";

/** Objects of one kind in a heap snapshot: how many, and their own bytes. */
export type HeapCount = {count: number, selfBytes: number};

/**
 * Counts a V8 heap snapshot's nodes by kind: objects and closures by constructor name, everything else by node
 * type (string, code, array, …). Two summaries taken under the same load tell which kinds accumulate.
 */
export function summarizeHeapSnapshot(path: string): Map<string, HeapCount> {
    const snapshot = JSON.parse(fs.readFileSync(path, "utf8")) as {
        snapshot: {meta: {node_fields: string[], node_types: [string[]]}},
        nodes: number[],
        strings: string[]
    };
    const fields = snapshot.snapshot.meta.node_fields;
    const typeNames = snapshot.snapshot.meta.node_types[0];
    const width = fields.length;
    const typeField = fields.indexOf("type");
    const nameField = fields.indexOf("name");
    const sizeField = fields.indexOf("self_size");
    const counts = new Map<string, HeapCount>();
    for (let index = 0; index < snapshot.nodes.length; index += width) {
        const type = typeNames[snapshot.nodes[index + typeField]!]!;
        const key = type === "object" || type === "closure" ? `${type} ${snapshot.strings[snapshot.nodes[index + nameField]!]}` : type;
        const entry = counts.get(key) ?? {count: 0, selfBytes: 0};
        entry.count++;
        entry.selfBytes += snapshot.nodes[index + sizeField]!;
        counts.set(key, entry);
    }
    return counts;
}

/** The kinds whose count grew most between two summaries, as printable lines. */
export function heapGrowth(before: Map<string, HeapCount>, after: Map<string, HeapCount>, top = 15): string[] {
    const rows = [...new Set([...before.keys(), ...after.keys()])].map((key) => {
        const a = before.get(key) ?? {count: 0, selfBytes: 0};
        const b = after.get(key) ?? {count: 0, selfBytes: 0};
        return {key, a, b, countDelta: b.count - a.count, bytesDelta: b.selfBytes - a.selfBytes};
    });
    const total = (counts: Map<string, HeapCount>) => [...counts.values()].reduce((sum,
        entry) => ({count: sum.count + entry.count, selfBytes: sum.selfBytes + entry.selfBytes}), {count: 0, selfBytes: 0});
    const [first, last] = [total(before), total(after)];
    const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;
    return [
        `all objects: ${first.count} → ${last.count} `
            + `(${last.count - first.count >= 0 ? "+" : ""}${last.count - first.count}), ${kb(first.selfBytes)} → ${kb(last.selfBytes)}`,
        ...rows.sort((x, y) => y.bytesDelta - x.bytesDelta).slice(0, top)
            .map(
                (row) => `  ${row.key.slice(0, 60).padEnd(60)} ${String(row.a.count).padStart(8)} → ${String(row.b.count).padStart(8)} `
                    + ` ${kb(row.a.selfBytes).padStart(9)} → ${kb(row.b.selfBytes).padStart(9)}`
            )
    ];
}
